#!/usr/bin/env python3
"""Write a tiny random-weight llama model as a GGUF file (Python 3 standard library only).

usage: gen_gguf.py --tokenizer tokenizer.json[.gz] --config tokenizer_config.json[.gz]
                   --out model.gguf [--seed 1] [--ctx 131072]

The model is a 2-layer llama (width 64, 4 heads, feed-forward 128, context 131072) with
seeded random weights and the real vocabulary, merges, special tokens and chat template
of a Hugging Face byte-level BPE tokenizer (Qwen2/Qwen3 or GPT-2 style), so llama-server
counts and templates prompts exactly like the real model would.

Its output is made to be valid text, because llama-server's chat parser answers HTTP 500
"Failed to parse input" to gibberish. Two embedding dimensions carry the decision and
every other weight is small noise, so the last token's embedding alone picks the next
token (the attention and feed-forward layers add ~1% to the residual stream):
  dim 0 = 1 in every token's embedding; in the output matrix it scores a short list of
          ordinary word tokens highest and the end-of-turn token a little lower;
  dim 1 = 1 only in those word tokens' embeddings; in the output matrix it adds a large
          score to end-of-turn and a large penalty to the words.
So after any prompt that does not end in one of the words the model says one word (which
one depends on the noise) and then ends its turn: "Paris", "seven", ... Greedy decoding
(temperature 0) makes every answer reproducible.

GGUF v3 layout (ggml/docs/gguf.md): header (magic "GGUF", version 3, tensor count,
metadata count), metadata key/values, tensor infos (name, dims innermost first, type,
offset), padding to general.alignment, tensor data (each tensor aligned).
"""

import argparse
import os
import gzip
import json
import random
import struct
import sys

GGUF_MAGIC = b"GGUF"
GGUF_VERSION = 3
ALIGN = 32

# metadata value types
T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY = 4, 5, 6, 7, 8, 9
# tensor types
G_F32, G_F16 = 0, 1
# llama.cpp token types
TOK_NORMAL, TOK_CONTROL, TOK_USER_DEFINED = 1, 3, 4

N_EMBD, N_LAYER, N_HEAD, N_FF = 64, 2, 4, 128

# Answer words: whole words without a leading space (the answer starts the assistant turn).
# Only those that are one token in the vocabulary are used.
WORDS = ["Paris", "London", "Berlin", "blue", "green", "red", "seven", "yes", "no", "The",
         "answer", "river", "city", "Yes", "No", "north", "south", "gold", "silver", "apple",
         "water", "stone", "tree"]


def die(msg):
    sys.stderr.write("gen_gguf.py: error: %s\n" % msg)
    sys.exit(2)


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e))


class Writer:
    def __init__(self):
        self.kv = []
        self.tensors = []  # (name, dims, type, bytes)

    @staticmethod
    def s(text):
        b = text.encode("utf-8")
        return struct.pack("<Q", len(b)) + b

    def add(self, key, vtype, value):
        out = self.s(key) + struct.pack("<I", vtype)
        if vtype == T_UINT32:
            out += struct.pack("<I", value)
        elif vtype == T_FLOAT32:
            out += struct.pack("<f", value)
        elif vtype == T_BOOL:
            out += struct.pack("<B", 1 if value else 0)
        elif vtype == T_STRING:
            out += self.s(value)
        else:
            raise ValueError(vtype)
        self.kv.append(out)

    def add_array(self, key, etype, values):
        parts = [self.s(key), struct.pack("<IIQ", T_ARRAY, etype, len(values))]
        if etype == T_STRING:
            parts.extend(self.s(v) for v in values)
        elif etype == T_INT32:
            parts.append(struct.pack("<%di" % len(values), *values))
        else:
            raise ValueError(etype)
        self.kv.append(b"".join(parts))

    def tensor(self, name, dims, gtype, data):
        n = 1
        for d in dims:
            n *= d
        want = n * (4 if gtype == G_F32 else 2)
        if len(data) != want:
            raise ValueError("%s: %d bytes, expected %d" % (name, len(data), want))
        self.tensors.append((name, dims, gtype, bytes(data)))

    def write(self, path):
        head = [GGUF_MAGIC, struct.pack("<IQQ", GGUF_VERSION, len(self.tensors), len(self.kv))]
        head.extend(self.kv)
        offset = 0
        offsets = []
        for name, dims, gtype, data in self.tensors:
            offsets.append(offset)
            head.append(self.s(name) + struct.pack("<I", len(dims)) +
                        struct.pack("<%dQ" % len(dims), *dims) + struct.pack("<IQ", gtype, offset))
            offset += (len(data) + ALIGN - 1) // ALIGN * ALIGN
        blob = b"".join(head)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(blob)
            f.write(b"\0" * (-len(blob) % ALIGN))
            for name, dims, gtype, data in self.tensors:
                f.write(data)
                f.write(b"\0" * (-len(data) % ALIGN))
        os.replace(tmp, path)


def f32_noise(rng, n, scale):
    return struct.pack("<%df" % n, *(rng.uniform(-scale, scale) for _ in range(n)))


def f16_noise(rng, n):
    """n half floats of random sign with magnitude in [2^-8, 2^-6) (0.004..0.016).

    Built from random bytes (fast in pure Python): the low byte is the mantissa's low 8
    bits, the high byte is mapped to sign | exponent 7 or 8 | mantissa's top 2 bits.
    """
    data = bytearray(rng.randbytes(2 * n))
    table = bytes((b & 0x80) | ((7 + ((b >> 2) & 1)) << 2) | (b & 3) for b in range(256))
    data[1::2] = data[1::2].translate(table)
    return data


def f16(x):
    return struct.pack("<e", x)


def set_column(data, n_rows, col, value):
    """Set column col of every row of an f16 [n_rows x N_EMBD] matrix to value."""
    lo, hi = f16(value)
    stride = 2 * N_EMBD
    data[2 * col::stride] = bytes([lo]) * n_rows
    data[2 * col + 1::stride] = bytes([hi]) * n_rows


def set_cell(data, row, col, value):
    i = 2 * (row * N_EMBD + col)
    data[i:i + 2] = f16(value)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokenizer", required=True, help="tokenizer.json (or .json.gz)")
    ap.add_argument("--config", required=True, help="tokenizer_config.json (or .json.gz)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ctx", type=int, default=131072, help="llama.context_length")
    ap.add_argument("--name", default="dipmap-tiny")
    a = ap.parse_args()

    tok = load_json(a.tokenizer)
    cfg = load_json(a.config)
    model = tok.get("model") or {}
    if model.get("type") != "BPE" or not isinstance(model.get("vocab"), dict):
        die("%s: model.type must be BPE with a vocab object" % a.tokenizer)

    # tokens by id: the BPE vocabulary, then the added tokens
    by_id = {i: t for t, i in model["vocab"].items()}
    types = {i: TOK_NORMAL for i in by_id}
    for at in tok.get("added_tokens", []):
        by_id[at["id"]] = at["content"]
        types[at["id"]] = TOK_CONTROL if at.get("special") else TOK_USER_DEFINED
    n_vocab = max(by_id) + 1
    tokens = []
    ttypes = []
    for i in range(n_vocab):
        if i in by_id:
            tokens.append(by_id[i])
            ttypes.append(types[i])
        else:  # a hole in the id space (not in GPT-2/Qwen files; kept valid anyway)
            tokens.append("[PAD%d]" % i)
            ttypes.append(TOK_USER_DEFINED)
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]

    ids = {t: i for i, t in by_id.items()}

    def special(name):
        v = cfg.get(name)
        if isinstance(v, dict):
            v = v.get("content")
        return ids.get(v) if isinstance(v, str) else None

    eos = special("eos_token")
    if eos is None:
        die("%s: eos_token is missing or not in the vocabulary" % a.config)
    pad = special("pad_token")
    bos = special("bos_token")
    if bos is None:
        bos = pad if pad is not None else eos
    template = cfg.get("chat_template")
    pre = "qwen2" if any(t == "<|im_start|>" for t in by_id.values()) else "gpt-2"
    words = [ids[w] for w in WORDS if w in ids]
    if len(words) < 3:
        die("%s: fewer than 3 of the answer words are single tokens" % a.tokenizer)

    w = Writer()
    w.add("general.architecture", T_STRING, "llama")
    w.add("general.name", T_STRING, a.name)
    w.add("general.file_type", T_UINT32, 1)  # mostly F16
    w.add("general.alignment", T_UINT32, ALIGN)
    w.add("llama.vocab_size", T_UINT32, n_vocab)
    w.add("llama.context_length", T_UINT32, a.ctx)
    w.add("llama.embedding_length", T_UINT32, N_EMBD)
    w.add("llama.block_count", T_UINT32, N_LAYER)
    w.add("llama.feed_forward_length", T_UINT32, N_FF)
    w.add("llama.attention.head_count", T_UINT32, N_HEAD)
    w.add("llama.attention.head_count_kv", T_UINT32, N_HEAD)
    w.add("llama.rope.dimension_count", T_UINT32, N_EMBD // N_HEAD)
    w.add("llama.rope.freq_base", T_FLOAT32, 1000000.0)
    w.add("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, 1e-6)
    w.add("tokenizer.ggml.model", T_STRING, "gpt2")
    w.add("tokenizer.ggml.pre", T_STRING, pre)
    w.add_array("tokenizer.ggml.tokens", T_STRING, tokens)
    w.add_array("tokenizer.ggml.token_type", T_INT32, ttypes)
    w.add_array("tokenizer.ggml.merges", T_STRING, merges)
    w.add("tokenizer.ggml.bos_token_id", T_UINT32, bos)
    w.add("tokenizer.ggml.eos_token_id", T_UINT32, eos)
    if pad is not None:
        w.add("tokenizer.ggml.padding_token_id", T_UINT32, pad)
    w.add("tokenizer.ggml.add_bos_token", T_BOOL, bool(cfg.get("add_bos_token", False)))
    if isinstance(template, str):
        w.add("tokenizer.chat_template", T_STRING, template)

    rng = random.Random(a.seed)
    emb = f16_noise(rng, n_vocab * N_EMBD)
    set_column(emb, n_vocab, 0, 1.0)
    set_column(emb, n_vocab, 1, 0.0)
    for t in words:
        set_cell(emb, t, 1, 1.0)
    out = f16_noise(rng, n_vocab * N_EMBD)
    set_column(out, n_vocab, 0, 0.0)
    set_column(out, n_vocab, 1, 0.0)
    for t in words:
        set_cell(out, t, 0, 4.0)
        set_cell(out, t, 1, -10.0)
    set_cell(out, eos, 0, 3.0)
    set_cell(out, eos, 1, 10.0)

    ones = struct.pack("<%df" % N_EMBD, *([1.0] * N_EMBD))
    w.tensor("token_embd.weight", [N_EMBD, n_vocab], G_F16, emb)
    for layer in range(N_LAYER):
        p = "blk.%d." % layer
        w.tensor(p + "attn_norm.weight", [N_EMBD], G_F32, ones)
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.tensor(p + name + ".weight", [N_EMBD, N_EMBD], G_F32,
                     f32_noise(rng, N_EMBD * N_EMBD, 0.02))
        w.tensor(p + "ffn_norm.weight", [N_EMBD], G_F32, ones)
        w.tensor(p + "ffn_gate.weight", [N_EMBD, N_FF], G_F32, f32_noise(rng, N_EMBD * N_FF, 0.02))
        w.tensor(p + "ffn_up.weight", [N_EMBD, N_FF], G_F32, f32_noise(rng, N_EMBD * N_FF, 0.02))
        w.tensor(p + "ffn_down.weight", [N_FF, N_EMBD], G_F32, f32_noise(rng, N_FF * N_EMBD, 0.02))
    w.tensor("output_norm.weight", [N_EMBD], G_F32, ones)
    w.tensor("output.weight", [N_EMBD, n_vocab], G_F16, out)
    w.write(a.out)


if __name__ == "__main__":
    main()
