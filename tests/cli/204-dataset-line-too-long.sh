# a golden-set line over the 1 MiB limit is an input error naming file and line (exit 2)
{
    echo '{"id": "q1", "question": "a", "answers": ["b"], "gold": [{"text": "b c"}]}'
    printf '{"id": "q2", "question": "'
    head -c 1100000 /dev/zero | tr '\0' x
    echo '"}'
} >long.jsonl
"$DIPMAP" show-prompt --dataset long.jsonl
