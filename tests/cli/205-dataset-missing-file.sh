# a missing golden set file is an input error (exit 2) naming the file
"$DIPMAP" show-prompt --dataset no-such-set.jsonl
