# show-prompt (any command loading a golden set) rejects invalid UTF-8 with file:line and exit 2
cp "$TESTS/data/datasets/bad-utf8.jsonl" .
"$DIPMAP" show-prompt --dataset bad-utf8.jsonl
