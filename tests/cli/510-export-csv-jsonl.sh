# dipmap export: one row per finished trial of each run, every column of the store's trials
# table plus the run's identity and the axes; CSV and JSON lines parse back to exactly the
# stored values (hostile text included); unknown runs and bad formats exit 2 with nothing written.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/run-lib.sh"
make_kv 3
start_sim sim --dataset golden.jsonl
run_args
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k --depths 0:100:50 --repeats 2 --db t.db \
    --run r1 --tag nightly,gpu
expect_code 0 "$DIPMAP" run "${RUN_ARGS[@]}" --lengths 1k,2k --depths 0:100:50 --db t.db --run r2
# a hostile answer: comma, quotes, CR LF, a tab, a control byte and an invalid UTF-8 byte
q t.db "update trials set answer = 'a, \"b\"' || char(13,10) || 'c' || char(9,1) || cast(x'ff' as text) || '<x>'
        where question_id = (select min(question_id) from trials) and length = 1024 and depth_bp = 0
        and repeat = 0 and run_id = (select id from runs where name = 'r1')"

expect_code 0 "$DIPMAP" export r1 r2 --db t.db --out all.csv
assert_contains err "wrote 36 trials of 2 runs to all.csv"
[ ! -s out ] || fail "export --out wrote to stdout"
expect_code 0 "$DIPMAP" export r1 r2 --db t.db --format jsonl
cp out all.jsonl
q t.db "select name from pragma_table_info('trials') where name != 'run_id'" >trial_cols
[ "$(wc -l <trial_cols)" -ge 20 ] || fail "cannot read the trials schema"
python3 - t.db all.csv all.jsonl trial_cols <<'PY' || fail "export does not match the store"
import csv, json, sqlite3, sys
db, csvp, jsonlp, colsp = sys.argv[1:]
cols = open(colsp).read().split()
con = sqlite3.connect(db)
con.text_factory = lambda b: b.decode('utf-8', 'replace')
rows = con.execute(
    "select r.name, r.model_requested, r.tags, r.golden_sha256, t.* from trials t join runs r on r.id = t.run_id "
    "where t.outcome != 'pending' order by r.name, t.question_id, t.length, t.depth_bp, t.repeat").fetchall()
names = ['run', 'model_requested', 'tags', 'golden_sha256'] + [d[0] for d in con.execute('select * from trials').description]
want = [dict(zip(names, r)) for r in rows]
assert len(want) == 36, len(want)

with open(csvp, newline='', encoding='utf-8') as f:
    got_csv = list(csv.DictReader(f))
got_jsonl = [json.loads(l) for l in open(jsonlp, encoding='utf-8')]
for got, kind in ((got_csv, 'csv'), (got_jsonl, 'jsonl')):
    assert len(got) == 36, (kind, len(got))
    header = list(got[0].keys())
    missing = [c for c in cols if c not in header]
    assert not missing, f'{kind}: stored columns not exported: {missing}'
    for c in ('run', 'model_requested', 'tags', 'golden_sha256', 'depth', 'scored', 'correct', 'run_status'):
        assert c in header, (kind, c)
    for w, g in zip(want, got):
        for c in ['run', 'model_requested', 'tags', 'golden_sha256', 'question_id', 'outcome', 'answer', 'prompt_sha256', 'finish_reason']:
            wv, gv = w[c], g[c]
            if kind == 'csv' and wv is None:
                wv = ''
            assert wv == gv, (kind, c, wv, gv)
        for c in ('length', 'depth_bp', 'repeat', 'realized_length', 'attempts', 'gold_offset'):
            assert int(g[c]) == w[c], (kind, c, w[c], g[c])
        for c in ('realized_depth', 'latency_ms', 'finished_at'):
            assert abs(float(g[c]) - w[c]) < 1e-9, (kind, c)
        assert float(g['depth']) == w['depth_bp'] / 10000
        assert str(g['scored']).lower() == ('true' if w['outcome'] in ('correct', 'wrong') else 'false')
    hostile = [g for g in got if '<x>' in (g['answer'] or '')]
    assert len(hostile) == 1, kind
    assert hostile[0]['answer'] == 'a, "b"\r\nc\t\x01\ufffd<x>', (kind, hostile[0]['answer'])
# usage_prompt_tokens from the server round-trips; the run's identity is on every row
assert all(g['run'] in ('r1', 'r2') for g in got_jsonl)
assert {g['tags'] for g in got_jsonl if g['run'] == 'r1'} == {'nightly,gpu'}
assert all(isinstance(g['usage_prompt_tokens'], int) for g in got_jsonl)
PY

# errors: unknown run (nothing written, an existing file kept), bad format, no run
echo keep >kept.csv
expect_code 2 "$DIPMAP" export r1 nope --db t.db --out kept.csv
assert_contains err "export: no run named 'nope'"
[ "$(cat kept.csv)" = keep ] || fail "a failed export replaced the output file"
ls kept.csv.tmp.* 2>/dev/null && fail "temporary file left behind"
expect_code 2 "$DIPMAP" export r1 --db t.db --format xlsx
assert_contains err "--format 'xlsx': expected csv, jsonl or eee"
expect_code 2 "$DIPMAP" export --db t.db
assert_contains err "export: which runs?"
expect_code 2 "$DIPMAP" export r1 --db missing.db
exit 0
