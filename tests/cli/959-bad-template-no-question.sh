# Bad input: a template without the {question} placeholder (and without {documents}, {text}) -> exit 2 naming file and line.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
printf '# no question\n[user]\nDocuments:\n{documents}\n[document]\n{text}\n' >noq.txt
bad_run 2 "error: ./noq.txt:2: [user] has no {question} placeholder" --template ./noq.txt
printf '[user]\n{question}\n[document]\n{text}\n' >nodocs.txt
bad_run 2 "error: ./nodocs.txt:1: [user] must contain {documents} exactly once (found 0)" --template ./nodocs.txt
printf '[user]\n{documents} {question}\n[document]\n{title}\n' >notext.txt
bad_run 2 "error: ./notext.txt:3: [document] must contain {text} exactly once" --template ./notext.txt
printf '[user]\n{documents} {question} {answer}\n[document]\n{text}\n' >unknown.txt
bad_run 2 "error: ./unknown.txt:2: [user]: unknown placeholder {answer}" --template ./unknown.txt
