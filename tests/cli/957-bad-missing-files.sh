# Bad input: missing dataset, haystack, template, tokenizer and config files -> exit 2 naming the path.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/95x-lib.bash"
setup_prior
bad_run 2 "error: no-such.jsonl: cannot open: No such file or directory" --dataset no-such.jsonl
bad_run 2 "error: no-hay.jsonl: cannot open: No such file or directory" --haystack no-hay.jsonl
bad_run 2 "error: ./no-tpl.txt: cannot read template: No such file or directory" --template ./no-tpl.txt
bad_run 2 "error: run: template 'no-such-template' not found (a file, or a name in prompts/)" --template no-such-template
bad_run 2 "error: run: ./no.tiktoken: cannot read: No such file or directory" --tokenizer ./no.tiktoken
bad_run 2 "error: cannot read config file no.json: No such file or directory" --config no.json
