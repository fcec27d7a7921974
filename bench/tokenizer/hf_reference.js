// Reference ids from Hugging Face tokenizers (npm `tokenizers`, the native build of the Rust
// library), for the optional conformance check and for regenerating the test vectors; never
// needed to build or run dipmap. usage:
//   node hf_reference.js ids TOKENIZER.json FILE [plain]   -> one line of ids
//   node hf_reference.js vectors OUT.jsonl NAME=TOKENIZER.json...   -> test vectors (see below)
//   node hf_reference.js time TOKENIZER.json FILE           -> "load_s encode_s n_ids" (CPU s)
//   node hf_reference.js texts OUT.jsonl SPEC.json          -> ids of given texts (see below)
// `plain` is HF's encode_special_tokens (special added tokens are text), which the binding
// cannot express: the file is loaded with the text of its special added tokens replaced by
// private-use strings no input contains (see load()).
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { Tokenizer } = require('tokenizers');

function load(file, plain) {
    if (!plain)
        return Tokenizer.fromFile(file);
    const j = JSON.parse(fs.readFileSync(file, 'utf8'));
    // HF numbers added tokens that are not in the model's vocab in list order: a special one
    // keeps its place under a private-use name; one that is in the vocab (its id is the
    // vocab's) is simply dropped
    j.added_tokens = j.added_tokens.filter(t => !(t.special && t.content in j.model.vocab));
    j.added_tokens.forEach((t, i) => { if (t.special) t.content = `\uE000${i}\uE001`; });
    const tmp = path.join(os.tmpdir(), `hfref-plain-${process.pid}.json`);
    fs.writeFileSync(tmp, JSON.stringify(j));
    const tk = Tokenizer.fromFile(tmp);
    fs.unlinkSync(tmp);
    return tk;
}

async function ids(tk, text) {
    const e = await tk.encode(text, null, { addSpecialTokens: false });
    return e.getIds();
}

// Deterministic pseudo-random slices (mulberry32), on code-point boundaries.
function rng(seed) {
    return () => {
        seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

async function main() {
    const mode = process.argv[2];
    if (mode === 'ids') {
        const tk = load(process.argv[3], process.argv[5] === 'plain');
        const text = fs.readFileSync(process.argv[4], 'utf8');
        process.stdout.write((await ids(tk, text)).join(' ') + '\n');
    } else if (mode === 'time') {
        // process CPU time (user + system), one encode thread (RAYON_NUM_THREADS=1)
        const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
        const t0 = cpu();
        const tk = load(process.argv[3], false);
        const t1 = cpu();
        const text = fs.readFileSync(process.argv[4], 'utf8');
        const t2 = cpu();
        const n = (await ids(tk, text)).length;
        const t3 = cpu();
        console.log(`${(t1 - t0).toFixed(3)} ${(t3 - t2).toFixed(3)} ${n}`);
    } else if (mode === 'vectors') {
        // texts: EDGE (the edge cases of vectors.jsonl, given as a JSON list in $EDGE_TEXTS),
        // per-family special-token texts, and slices of the corpora in $CORPUS_DIR.
        const out = fs.openSync(process.argv[3], 'w');
        const edge = JSON.parse(fs.readFileSync(process.env.EDGE_TEXTS, 'utf8'));
        const corpora = ['en', 'nonen', 'code'].map(c =>
            Array.from(fs.readFileSync(path.join(process.env.CORPUS_DIR, c + '.txt'), 'utf8')));
        for (const spec of process.argv.slice(4)) {
            const [name, file] = spec.split('=');
            const j = JSON.parse(fs.readFileSync(file, 'utf8'));
            const added = j.added_tokens.map(t => t.content);
            const texts = [];
            edge.forEach(e => texts.push([`edge/${e.name}`, e.text]));
            const pick = added.filter((_, i) => i < 4 || i % Math.max(1, Math.floor(added.length / 8)) === 0).slice(0, 12);
            pick.forEach((a, i) => {
                texts.push([`special/${i}-alone`, a]);
                texts.push([`special/${i}-in-text`, `Hello ${a}world,${a} ${a}\n${a}x`]);
            });
            texts.push(['special/chat', `${pick[0] || ''}user\nWhat is 2+2?${pick[1] || ''}\n${pick[2] || ''}assistant\n`]);
            const r = rng(20251201 + name.length);
            for (let c = 0; c < 3; c++)
                for (let k = 0; k < 20; k++) {
                    const cps = corpora[c];
                    const len = 1 + Math.floor(r() * (k % 2 ? 3000 : 300));
                    const start = Math.floor(r() * (cps.length - len));
                    texts.push([`slice/${['en', 'nonen', 'code'][c]}/${start}+${len}`, cps.slice(start, start + len).join('')]);
                }
            const tk = load(file, false), tkp = load(file, true);
            for (const [id, text] of texts) {
                const rec = { id: `${name}/${id}`, tokenizer: name, text, ids: await ids(tk, text),
                              plain_ids: await ids(tkp, text) };
                fs.writeSync(out, JSON.stringify(rec) + '\n');
            }
        }
        fs.closeSync(out);
    } else if (mode === 'texts') {
        // SPEC.json: [{"name","file","texts":[...]}] (bench/tokenizer/mechanisms.py writes it);
        // one line per text: {"tokenizer","text","ids","plain_ids"}
        const out = fs.openSync(process.argv[3], 'w');
        for (const t of JSON.parse(fs.readFileSync(process.argv[4], 'utf8'))) {
            const tk = load(t.file, false), tkp = load(t.file, true);
            for (const text of t.texts) {
                const rec = { tokenizer: t.name, text, ids: await ids(tk, text),
                              plain_ids: await ids(tkp, text) };
                fs.writeSync(out, JSON.stringify(rec) + '\n');
            }
        }
        fs.closeSync(out);
    } else {
        console.error('usage: hf_reference.js ids|vectors|time|texts ...');
        process.exit(2);
    }
}
main().catch(e => { console.error(e); process.exit(1); });
