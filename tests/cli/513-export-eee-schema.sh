# dipmap export --format eee writes Every Eval Ever's records (schema 0.3.0, evaleval/every_eval_ever,
# tests/data/eee/): per run an aggregate record data/dipmap/DEVELOPER/MODEL/UUID.json and its
# samples UUID_samples.jsonl. Both validate against the published schemas (Debian's
# python3-jsonschema; skipped without it unless DIPMAP_REQUIRE_JSONSCHEMA=1, as in CI). The
# aggregate holds one accuracy result per (length, depth) cell with the store's counts, its
# interval and sample count, one dip per length with its bootstrap interval, depth and length
# as metadata, the run's settings as generation config; every finished trial is one sample whose
# evaluation_result_id names its cell; the checksum and row count describe the samples file;
# exporting again gives the same file names. Without --out the command refuses (exit 2).
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"
py=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import jsonschema' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || require_or_skip DIPMAP_REQUIRE_JSONSCHEMA "python3-jsonschema is not installed"
start_sim sim --dataset "$REPO/datasets/needle.jsonl" --model org/my-model
expect_code 0 "$DIPMAP" run --endpoint "$SIM_URL" --model org/my-model --dataset "$REPO/datasets/needle.jsonl" \
    --haystack "$REPO/datasets/nq-haystack.jsonl.gz" --lengths 1k,2k --depths 0:100:25 --questions 10 \
    --temperature 0 --progress none --db t.db --run r1
expect_code 2 "$DIPMAP" export r1 --db t.db --format eee
assert_contains err "--format eee writes two files per run: give the folder with --out DIR"
expect_code 0 "$DIPMAP" export r1 --db t.db --format eee --out eee
assert_contains err "Every Eval Ever 0.3.0"
ls eee/data/dipmap/org/my-model/ >files1
expect_code 0 "$DIPMAP" export r1 --db t.db --format eee --out eee
ls eee/data/dipmap/org/my-model/ >files2
cmp -s files1 files2 || fail "a second export made other files: $(cat files1 files2)"
[ "$(wc -l <files1)" = 2 ] || fail "expected one record and one samples file: $(cat files1)"
"$py" - "$TESTS/data/eee" eee t.db <<'PY' || fail "the Every Eval Ever records are wrong (above)"
import glob, hashlib, json, os, sqlite3, sys
import jsonschema
schemas, out, db = sys.argv[1:4]
agg_schema = json.load(open(os.path.join(schemas, "eval.schema.json")))
inst_schema = json.load(open(os.path.join(schemas, "instance_level_eval.schema.json")))
[agg_path] = glob.glob(os.path.join(out, "data", "dipmap", "org", "my-model", "*-*.json"))
agg = json.load(open(agg_path))
jsonschema.Draft7Validator(agg_schema).validate(agg)
samples_path = os.path.join(out, agg["detailed_evaluation_results"]["file_path"])
assert os.path.exists(samples_path), samples_path
lines = open(samples_path, encoding="utf-8").read().splitlines()
v = jsonschema.Draft7Validator(inst_schema)
for l in lines:
    v.validate(json.loads(l))
der = agg["detailed_evaluation_results"]
assert der["checksum"] == hashlib.sha256(open(samples_path, "rb").read()).hexdigest(), "checksum"
assert der["total_rows"] == len(lines)
con = sqlite3.connect(db)
cells = con.execute("""select length, depth_bp, sum(outcome = 'correct'), sum(outcome in ('correct', 'wrong'))
                       from trials where outcome != 'pending' group by length, depth_bp""").fetchall()
ntrials = con.execute("select count(*) from trials where outcome != 'pending'").fetchone()[0]
assert len(lines) == ntrials, (len(lines), ntrials)
res = {r["evaluation_result_id"]: r for r in agg["evaluation_results"]}
for length, bp, k, n in cells:
    r = res["accuracy@length=%d,depth=%g" % (length, bp / 10000)]
    sd = r["score_details"]
    assert abs(sd["score"] - k / n) < 1e-9, (r, k, n)
    assert sd["uncertainty"]["num_samples"] == n
    ci = sd["uncertainty"]["confidence_interval"]
    assert ci["lower"] <= sd["score"] <= ci["upper"] and ci["confidence_level"] == 0.95
    md = r["metric_config"]["additional_details"]
    assert md["length_tokens"] == str(length) and md["depth"] == "%g" % (bp / 10000), md
    assert r["generation_config"]["generation_args"]["temperature"] == 0
    assert r["generation_config"]["generation_args"]["max_tokens"] == 256
dips = [r for r in agg["evaluation_results"] if r["metric_config"]["metric_id"] == "dipmap.dip"]
assert sorted(int(d["metric_config"]["additional_details"]["length_tokens"]) for d in dips) == [1024, 2048], dips
for d in dips:
    ci = d["score_details"]["uncertainty"]["confidence_interval"]
    assert ci["lower"] <= d["score_details"]["score"] <= ci["upper"]
    assert d["score_details"]["uncertainty"]["num_samples"] == 10
assert len(res) == len(cells) + 2
for l in lines:
    s = json.loads(l)
    assert s["evaluation_result_id"] in res, s["evaluation_result_id"]
    assert s["input"]["raw"].endswith("?") and s["input"]["reference"], s["input"]
assert agg["model_info"]["id"] == "org/my-model" and agg["model_info"]["developer"] == "org"
print("ok", len(res), "results,", len(lines), "samples")
PY
