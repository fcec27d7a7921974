# a template missing a required placeholder is an error naming the file and line (exit 2)
cat >t.txt <<'T'
# my template
[system]
Answer briefly.

[user]
Here are the documents:
{documents}
Answer:
[document]
{title}: {text}
T
"$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" --template ./t.txt
