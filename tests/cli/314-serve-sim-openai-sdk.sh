# serve-sim against the official OpenAI SDK (npm `openai` 6.x, the Node client): every route
# serve-sim serves, driven through the SDK's own methods -- models list and retrieve, chat
# completions, completions, files create / retrieve / content / list (paged) / delete, batches
# create / retrieve / list (paged) / cancel -- and the routes outside OpenAI's API (health,
# tokenize, detokenize, props, apply-template) through the SDK's generic get/post. Every answer
# carries an x-request-id (the SDK's request_id, logged by serve-sim); errors are OpenAI's error
# object (type invalid_request_error, param, code), so the SDK raises its NotFoundError,
# BadRequestError and AuthenticationError with those fields; a batch carries every timestamp of
# the API's Batch object. Before: models.retrieve 404ed, files.list and files.delete 405ed,
# batches had no created_at / expires_at / in_progress_at / completed_at, errors had the types
# "NotFoundError" / "BadRequestError", and no answer had an x-request-id.
#
# The SDK is not part of the repository: DIPMAP_OPENAI_SDK names a folder holding
# node_modules/openai (what `npm install --prefix DIR openai@6.49.0` makes; .ci/run does that and
# sets DIPMAP_REQUIRE_OPENAI_SDK=1), else node's own module path is tried; without node or the
# package the test is skipped.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/cli/lib/sim-lib.sh"

need_tool node DIPMAP_REQUIRE_OPENAI_SDK "node is not installed (the OpenAI SDK is a Node package)"
sdk_path=${DIPMAP_OPENAI_SDK:+$DIPMAP_OPENAI_SDK/node_modules}
sdk_version=$(NODE_PATH=$sdk_path node -e 'console.log(require("openai/version").VERSION)' 2>/dev/null)
case "$sdk_version" in
6.*) ;;
'') require_or_skip DIPMAP_REQUIRE_OPENAI_SDK "the npm package openai is not installed (npm install --prefix DIR openai@6.49.0, then DIPMAP_OPENAI_SDK=DIR)" ;;
*) require_or_skip DIPMAP_REQUIRE_OPENAI_SDK "the npm package openai is $sdk_version, not 6.x" ;;
esac
echo "openai SDK $sdk_version"

pylib -c 'import simclient; simclient.make_dataset("ds.jsonl", 5)'
pylib -c 'import simclient as sc; open("p3.txt", "w").write(sc.prompt_at(3, 300, 0.5, sc.rng(1)))'
start_sim sim --dataset ds.jsonl --model base:edge=1,dip=0 --model cand --api-key sk-sim \
    --chat-template chatml --log log.jsonl
sim_url=$SIM_URL
# a second server whose batches stay in validating for 10 minutes: a cancel that is not refused
start_sim slow --dataset ds.jsonl --model base:edge=1,dip=0 --batch-delay-ms 600000
slow_url=$SIM_URL

NODE_PATH=$sdk_path node - "$sim_url" "$slow_url" >sdk.out 2>sdk.err <<'EOF' || { cat sdk.out sdk.err >&2; fail "the SDK run failed (above)"; }
const OpenAI = require("openai");
const { toFile } = require("openai");
const fs = require("fs");
const assert = require("assert/strict");
const [url, slowUrl] = process.argv.slice(2);
const sdk = new OpenAI({ apiKey: "sk-sim", baseURL: url + "/v1", maxRetries: 0 });
const root = new OpenAI({ apiKey: "sk-sim", baseURL: url, maxRetries: 0 }); // routes outside /v1
const slow = new OpenAI({ apiKey: "none", baseURL: slowUrl + "/v1", maxRetries: 0 });
const prompt = fs.readFileSync("p3.txt", "utf8");
const ids = []; // every x-request-id the SDK saw
const routes = [];

// a call through the SDK: its data, with the request id checked and kept
async function call(route, promise) {
    const { data, request_id } = await promise.withResponse();
    assert.match(request_id, /^req_[0-9a-f]{32}$/, route + ": x-request-id");
    ids.push(request_id);
    routes.push(route);
    return data;
}
// a call the SDK must raise as cls with OpenAI's error object
async function refused(route, promise, cls, status, param, code) {
    try {
        await promise;
    } catch (e) {
        assert.ok(e instanceof cls, route + ": " + e.constructor.name + " " + e.message);
        assert.equal(e.status, status, route);
        assert.equal(e.type, "invalid_request_error", route + ": type");
        assert.equal(e.param, param, route + ": param");
        assert.equal(e.code, code, route + ": code");
        assert.match(e.requestID, /^req_[0-9a-f]{32}$/, route + ": x-request-id of an error");
        ids.push(e.requestID);
        routes.push(route + " -> " + status);
        return e;
    }
    assert.fail(route + ": no error");
}
async function all(page) { // every item of a paged list, page after page (?after=)
    const out = [];
    for await (const x of page) out.push(x);
    return out;
}
function isTime(v, what) { assert.ok(Number.isInteger(v) && v > 1.7e9, what + ": " + v); }

(async () => {
    // models
    const models = await call("GET /v1/models", sdk.models.list());
    assert.deepEqual(models.data.map((m) => m.id), ["base", "cand"]);
    const m = await call("GET /v1/models/{id}", sdk.models.retrieve("cand"));
    assert.equal(m.id, "cand");
    assert.equal(m.object, "model");
    isTime(m.created, "model created");
    await refused("GET /v1/models/{id}", sdk.models.retrieve("gpt-x"), OpenAI.NotFoundError, 404, null, "model_not_found");

    // generation
    const messages = [{ role: "system", content: "Answer from the documents." }, { role: "user", content: prompt }];
    const c = await call("POST /v1/chat/completions", sdk.chat.completions.create({ model: "base", messages, max_completion_tokens: 20 }));
    assert.equal(c.choices[0].message.content, "PASS-3-OK");
    assert.equal(c.choices[0].finish_reason, "stop");
    const t = await call("POST /v1/completions", sdk.completions.create({ model: "base", prompt, max_tokens: 20 }));
    assert.equal(t.choices[0].text, "PASS-3-OK");
    assert.equal(t.usage.total_tokens, t.usage.prompt_tokens + t.usage.completion_tokens);
    await refused("POST /v1/chat/completions", sdk.chat.completions.create({ model: "gpt-x", messages: [{ role: "user", content: "hi" }] }),
        OpenAI.NotFoundError, 404, null, "model_not_found");
    await refused("POST /v1/chat/completions", sdk.chat.completions.create({ model: "base", messages: [{ role: "user", content: "hi" }], max_tokens: -3 }),
        OpenAI.BadRequestError, 400, "max_tokens", "integer_below_min_value");
    await refused("POST /v1/chat/completions", sdk.chat.completions.create({ model: "base" }),
        OpenAI.BadRequestError, 400, "messages", "missing_required_parameter");
    await refused("POST /v1/chat/completions", sdk.chat.completions.create({ model: "base", messages: [{ role: "user", content: "hi" }], n: 2 }),
        OpenAI.BadRequestError, 400, "n", null);
    const wrongKey = new OpenAI({ apiKey: "sk-wrong", baseURL: url + "/v1", maxRetries: 0 });
    await refused("GET /v1/models (wrong key)", wrongKey.models.list(), OpenAI.AuthenticationError, 401, null, "invalid_api_key");
    await refused("GET /v1/nothing", sdk.get("/nothing"), OpenAI.NotFoundError, 404, null, null);

    // files
    const lines = [0, 1, 2, 3].map((i) => JSON.stringify({ custom_id: "c" + i, method: "POST", url: "/v1/chat/completions",
        body: { model: "base", messages, max_completion_tokens: 20 } })).join("\n") + "\n";
    const f = await call("POST /v1/files", sdk.files.create({ file: await toFile(Buffer.from(lines), "in.jsonl"), purpose: "batch" }));
    assert.equal(f.object, "file");
    assert.equal(f.filename, "in.jsonl");
    assert.equal(f.bytes, Buffer.byteLength(lines));
    assert.equal(f.status, "processed");
    isTime(f.created_at, "file created_at");
    const f2 = await call("GET /v1/files/{id}", sdk.files.retrieve(f.id));
    assert.deepEqual(f2, f);
    const content = await call("GET /v1/files/{id}/content", sdk.files.content(f.id));
    assert.equal(await content.text(), lines);
    const spare = await call("POST /v1/files", sdk.files.create({ file: await toFile(Buffer.from(lines), "spare.jsonl"), purpose: "batch" }));
    routes.push("GET /v1/files");
    const listed = await all(sdk.files.list({ limit: 1 })); // one per page: the pages follow ?after=
    assert.deepEqual(listed.map((x) => x.id), [spare.id, f.id], "files.list, newest first");
    const asc = await call("GET /v1/files", sdk.files.list({ order: "asc", purpose: "batch" }));
    assert.deepEqual(asc.data.map((x) => x.id), [f.id, spare.id]);
    assert.equal(asc.has_more, false);
    const del = await call("DELETE /v1/files/{id}", sdk.files.delete(spare.id));
    assert.deepEqual(del, { id: spare.id, object: "file", deleted: true });
    await refused("GET /v1/files/{id}", sdk.files.retrieve(spare.id), OpenAI.NotFoundError, 404, "id", null);
    await refused("DELETE /v1/files/{id}", sdk.files.delete(spare.id), OpenAI.NotFoundError, 404, "id", null);
    assert.deepEqual((await sdk.files.list()).data.map((x) => x.id), [f.id], "a deleted file is not listed");

    // batches (batch-delay-ms 0: a batch is completed when it is next read)
    const b = await call("POST /v1/batches", sdk.batches.create({ input_file_id: f.id, endpoint: "/v1/chat/completions",
        completion_window: "24h", metadata: { night: "3" } }));
    assert.equal(b.object, "batch");
    isTime(b.created_at, "created_at");
    assert.equal(b.expires_at, b.created_at + 86400, "expires_at: the end of the 24 h window");
    const done = await call("GET /v1/batches/{id}", sdk.batches.retrieve(b.id));
    assert.equal(done.status, "completed");
    assert.equal(done.model, "base");
    for (const k of ["created_at", "in_progress_at", "finalizing_at", "completed_at", "expires_at"]) isTime(done[k], k);
    for (const k of ["failed_at", "expired_at", "cancelling_at", "cancelled_at"]) assert.equal(done[k], null, k);
    assert.ok(done.created_at <= done.in_progress_at && done.in_progress_at <= done.finalizing_at
        && done.finalizing_at <= done.completed_at, "the states in order");
    assert.deepEqual(done.request_counts, { total: 4, completed: 4, failed: 0 });
    assert.deepEqual(done.metadata, { night: "3" });
    assert.equal(done.usage.input_tokens, 4 * c.usage.prompt_tokens, "usage: the lines' prompt tokens");
    assert.equal(done.usage.total_tokens, done.usage.input_tokens + done.usage.output_tokens);
    const out = await (await sdk.files.content(done.output_file_id)).text();
    const answers = out.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(answers.map((a) => a.custom_id).sort(), ["c0", "c1", "c2", "c3"]);
    assert.ok(answers.every((a) => a.response.status_code === 200 && a.response.body.choices[0].message.content === "PASS-3-OK"));
    await refused("POST /v1/batches/{id}/cancel", sdk.batches.cancel(b.id), OpenAI.BadRequestError, 400, null, null);
    await refused("GET /v1/batches/{id}", sdk.batches.retrieve("batch_nope"), OpenAI.NotFoundError, 404, "batch_id", null);
    await refused("POST /v1/batches", sdk.batches.create({ input_file_id: "file-nope", endpoint: "/v1/chat/completions", completion_window: "24h" }),
        OpenAI.NotFoundError, 404, "input_file_id", null);
    const b2 = await sdk.batches.create({ input_file_id: f.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const b3 = await sdk.batches.create({ input_file_id: f.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    routes.push("GET /v1/batches");
    const bl = await all(sdk.batches.list({ limit: 2 }));
    assert.deepEqual(bl.map((x) => x.id), [b3.id, b2.id, b.id], "batches.list, newest first, 2 per page");
    const page = await call("GET /v1/batches", sdk.batches.list({ limit: 1 }));
    assert.equal(page.has_more, true);

    // a cancel that is taken: the slow server's batch is still validating
    const sf = await slow.files.create({ file: await toFile(Buffer.from(lines), "in.jsonl"), purpose: "batch" });
    const sb = await slow.batches.create({ input_file_id: sf.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    assert.equal(sb.status, "validating");
    assert.equal(sb.in_progress_at, null);
    const cancelled = await call("POST /v1/batches/{id}/cancel", slow.batches.cancel(sb.id));
    assert.equal(cancelled.status, "cancelling");
    isTime(cancelled.cancelling_at, "cancelling_at");
    assert.equal(cancelled.cancelled_at, null);

    // the routes outside OpenAI's API, through the SDK's own get/post
    assert.deepEqual(await call("GET /health", root.get("/health")), { status: "ok" });
    const tk = await call("POST /tokenize", root.post("/tokenize", { body: { prompt: "hello world" } }));
    assert.deepEqual(tk.tokens, [15339, 1917]);
    const dt = await call("POST /detokenize", root.post("/detokenize", { body: { tokens: [15339, 1917] } }));
    assert.equal(dt.content, "hello world");
    const props = await call("GET /props", root.get("/props"));
    assert.match(props.build_info, /^dipmap-sim/);
    const at = await call("POST /apply-template", root.post("/apply-template", { body: { messages: [{ role: "user", content: "hi" }] } }));
    assert.equal(at.prompt, "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");

    assert.equal(new Set(ids).size, ids.length, "every request id is unique");
    fs.writeFileSync("ids.json", JSON.stringify(ids));
    console.log([...new Set(routes)].join("\n"));
})().catch((e) => { console.error(e.stack || e); process.exit(1); });
EOF
cat sdk.out
# every route the test names was driven
for r in "GET /v1/models" "GET /v1/models/{id}" "POST /v1/chat/completions" "POST /v1/completions" \
    "POST /v1/files" "GET /v1/files" "GET /v1/files/{id}" "GET /v1/files/{id}/content" "DELETE /v1/files/{id}" \
    "POST /v1/batches" "GET /v1/batches" "GET /v1/batches/{id}" "POST /v1/batches/{id}/cancel" \
    "GET /health" "POST /tokenize" "POST /detokenize" "GET /props" "POST /apply-template"; do
    grep -qxF "$r" sdk.out || fail "the SDK run did not drive $r"
done
# serve-sim logged each request id the SDK saw
pylib - <<'EOF' || exit 1
import json, simclient as sc
from simclient import check
logged = {l.get("request_id") for l in sc.read_log("log.jsonl") + sc.read_log("slow.log")}
missing = [i for i in json.load(open("ids.json")) if i not in logged]
check(not missing, "request ids the SDK saw but serve-sim did not log: %r" % missing)
EOF
stop_sim "$SIM_PID"
exit 0
