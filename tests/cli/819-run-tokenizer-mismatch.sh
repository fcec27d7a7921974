# A run counting lengths with a different tokenizer than the server's: it stops on the first
# answers (exit 2, see 852); with --allow-tokenizer-mismatch every trial is flagged as a
# tokenizer mismatch (usage.prompt_tokens vs the local count), with one warning.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
"$DIPMAP" gen kv --n 3 --seed 1 --negatives 1 --out golden.jsonl >/dev/null || fail "gen"
# filler in German, French and Japanese: cl100k_base (the server) needs far more tokens than o200k_base
python3 - >hay.jsonl <<'PY'
import json, random
random.seed(1)
words = ("Straße Größe Übung Mädchen Häuser schön fröhlich Bücher Käse Brücke über natürlich "
         "Flüsse Bäume 東京 北京 学校 先生 電車 天気 新聞 ça été déjà où").split()
for i in range(300):
    print(json.dumps({"id": "h%d" % i, "title": "", "text": " ".join(random.choice(words) for _ in range(40))},
                     ensure_ascii=False))
PY
start_sim sim --dataset golden.jsonl --tokenizer cl100k_base
run_args
expect_code 2 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 2k --depths 0,50,100 --db t.db --run mm --tokenizer o200k_base
assert_contains err "tokenizer mismatch: the server counted"
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 2k --depths 0,50,100 --db t.db --run mm --tokenizer o200k_base \
    --allow-tokenizer-mismatch
[ "$(grep -c 'warning: tokenizer mismatch' err)" = 1 ] || fail "expected one mismatch warning"
n=$(sed -n 's/^tokenizer mismatch: \([0-9]*\) trial(s).*/\1/p' out)
bad=$(q t.db "select count(*) from trials where abs(usage_prompt_tokens * 1.0 / realized_length - 1) > 0.02")
[ -n "$n" ] && [ "$n" = "$bad" ] && [ "$n" -gt 0 ] || fail "mismatch count '$n' vs store $bad"
# the matching tokenizer: no warning
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0,50,100 --db t.db --run ok --tokenizer cl100k_base
assert_not_contains err "tokenizer mismatch"
assert_not_contains out "tokenizer mismatch"
