# dipmap tokenize --tokenizer server against the real serve-sim (127.0.0.1,
# port 0): its /tokenize (vLLM shape, detected first) counts with the same
# native tokenizer, so the server count equals the local count of each file;
# two files give two distinct chunk counts (the per-text cache does not mix them).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
T=$REPO/tests/data/tokenizer
gzip -dc "$T/corpus/nonen.txt.gz" | head -c 20000 >a.txt
gzip -dc "$T/corpus/code.txt.gz" | head -c 30000 >b.txt
start_sim sim
for f in a.txt b.txt; do
    expect_code 0 "$DIPMAP" tokenize --tokenizer "$SIM_TOKENIZER" $f
    want=$(cat out)
    expect_code 0 "$DIPMAP" tokenize --tokenizer server --endpoint "$SIM_URL/v1" --model dipmap-sim $f
    [ "$(cat out)" = "$want" ] || fail "server count of $f: $(cat out), local $want"
done
expect_code 0 "$DIPMAP" tokenize --tokenizer server --endpoint "$SIM_URL" --model dipmap-sim a.txt b.txt a.txt
[ "$(wc -l <out)" = 4 ] || fail "expected 3 file lines and a total: $(cat out)"
a1=$(sed -n 1p out | cut -f1); a2=$(sed -n 3p out | cut -f1); b=$(sed -n 2p out | cut -f1)
[ "$a1" = "$a2" ] && [ "$a1" != "$b" ] || fail "per-file counts wrong: $(cat out)"
stop_sim "$SIM_PID"
