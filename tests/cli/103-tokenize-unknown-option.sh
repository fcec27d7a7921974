# An unknown option exits 2 with the shared opt.c message and a hint (exact stderr).
"$DIPMAP" tokenize --bogus
