# --tokenizer without its value exits 2 naming the option (exact stderr).
"$DIPMAP" tokenize --tokenizer
