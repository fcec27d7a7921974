// npm `tiktoken` (WASM) on the same files as bench_tokenizer, for the ratio in
// bench/bench_tokenizer.sh. Prints one line in bench_tokenizer's format.
// usage: node bench_tokenizer_node.js ENCODING FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const { get_encoding } = require('tiktoken');
const enc_name = process.argv[2];
// CPU time of the process (user + system), like the native bench's thread CPU time
const now = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
let best_load = Infinity, enc = null;
for (let k = 0; k < 3; k++) {
    const t0 = now();
    const e = get_encoding(enc_name);
    e.encode_ordinary('warm');
    best_load = Math.min(best_load, now() - t0);
    if (enc) enc.free();
    enc = e;
}
let line = `tokenizer=${enc_name} load_ms=${(best_load * 1000).toFixed(1)}`;
for (const f of process.argv.slice(3)) {
    const text = fs.readFileSync(f, 'utf8');
    const bytes = fs.statSync(f).size;
    let best = Infinity, n = 0;
    for (let k = 0; k < 4; k++) {
        const t0 = now();
        n = enc.encode_ordinary(text).length;
        const t = now() - t0;
        if (k && t < best) best = t;
    }
    line += ` ${path.basename(f)}=${(bytes / 1e6 / best).toFixed(1)}MB/s,${n}`;
}
console.log(line);
enc.free();
