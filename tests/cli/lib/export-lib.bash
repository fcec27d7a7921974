# Helpers for the export example tests (511, 512); sourced after lib.sh and tests/cli/lib/run-lib.sh.

# export_fixture: a real run r1 against serve-sim (2k tokens x 3 depths x 4 questions x 3
# repeats) exported as trials.csv and trials.jsonl; ./want holds the store's own per-cell
# accuracy as "length depth accuracy" lines.
export_fixture() {
    make_kv 4
    start_sim sim --dataset golden.jsonl --model dipmap-sim:edge=0.9,dip=0.6,seed=3
    run_args
    expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 2k --depths 0:100:50 --repeats 3 --db t.db --run r1
    expect_code 0 "$DIPMAP" export r1 --db t.db --out trials.csv
    expect_code 0 "$DIPMAP" export r1 --db t.db --format jsonl --out trials.jsonl
    q t.db "select length, depth_bp / 10000.0, round(avg(outcome = 'correct'), 3) from trials
            where outcome in ('correct', 'wrong') group by 1, 2 order by 1, 2" | tr '|' ' ' >want
    [ "$(wc -l <want)" = 3 ] || fail "store has $(wc -l <want) cells"
}

# readme_snippet NAME: the fenced block after "<!-- export-example: NAME -->" in docs/schemas.md (formerly README.md)
readme_snippet() {
    awk -v m="<!-- export-example: $1 -->" '
        $0 == m { want = 1; next }
        want && /^```/ { if (inblock) exit; inblock = 1; next }
        inblock { print }' "$REPO/docs/schemas.md"
}
