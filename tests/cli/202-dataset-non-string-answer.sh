# show-prompt (any command loading a golden set) rejects a non-string answer with file:line and exit 2
cp "$TESTS/data/datasets/non-string-answer.jsonl" .
"$DIPMAP" show-prompt --dataset non-string-answer.jsonl
