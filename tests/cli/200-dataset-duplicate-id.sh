# show-prompt (any command loading a golden set) rejects a duplicate question id with file:line and exit 2
cp "$TESTS/data/datasets/dup-id.jsonl" .
"$DIPMAP" show-prompt --dataset dup-id.jsonl
