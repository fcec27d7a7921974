# Every shipped golden set's prompts are byte-for-byte what they were: show-prompt --json for
# each set over questions, lengths, depths, seeds, repeats and the filler modes whose shuffles
# and starts are seeded by FNV-1a (base/hash.h) prints the sha256 of each request, pinned in
# 217-shipped-prompts-pinned.out (recorded before the hash helpers were made one). A change that
# moves any shuffle, filler choice or hard-distractor ranking changes a line.
. "$TESTS/cli/lib/lib.sh"
D=$REPO/datasets
one() { # NAME SET HAYSTACK TEMPLATE QUESTION LENGTH DEPTH SEED REPEAT AXES
    "$DIPMAP" show-prompt --dataset "$2" --haystack "$3" --template "$4" --question "$5" \
        --length "$6" --depth "$7" --seed "$8" --repeat "$9" ${10:+--axes "${10}"} --json \
        >p 2>e || fail "$1 $5 $6 $7 $8 $9 ${10}: exit $? ($(cat e))"
    echo "$1 $5 len=$6 depth=$7 seed=$8 repeat=$9 ${10:-default} $(sha256sum <p | cut -c1-16)"
}
for axes in "" "distractors=hard" "distractors=random" "haystack-order=shuffled" \
    "distractors=random;haystack-order=coherent"; do
    one needle "$D/needle.jsonl" "$D/nq-haystack.jsonl.gz" needle needle-0001 2k 0 0 0 "$axes"
    one needle "$D/needle.jsonl" "$D/nq-haystack.jsonl.gz" needle needle-0017 4k 50 7 1 "$axes"
    one kv "$D/kv.jsonl" "$D/kv-haystack.jsonl.gz" kv kv-0003 1k 25 0 0 "$axes"
    one kv "$D/kv.jsonl" "$D/kv-haystack.jsonl.gz" kv kv-0031 3k 100 3 2 "$axes"
    one nq-open "$D/nq-open.jsonl.gz" "$D/nq-haystack.jsonl.gz" qa nq-0001 2k 50 0 0 "$axes"
    one nq-open "$D/nq-open.jsonl.gz" "$D/nq-haystack.jsonl.gz" qa nq-2000 4k 75 11 3 "$axes"
done
