# show-prompt (any command loading a golden set) rejects an empty chunk text with file:line and exit 2
cp "$TESTS/data/datasets/empty-text.jsonl" .
"$DIPMAP" show-prompt --dataset empty-text.jsonl
