#!/usr/bin/env python3
"""Small tokenizer.json files, one per pipeline mechanism, for dipmap's offline reference-id test
(tests/data/tokenizer/mech/, see its SOURCE.md).

usage: bench/tokenizer/mechanisms.py OUT_DIR
Writes OUT_DIR/NAME.json (one tokenizer per mechanism) and OUT_DIR/texts.json (the texts each is
encoded with). The ids themselves come from Hugging Face tokenizers:
    node bench/tokenizer/hf_reference.js texts OUT.jsonl OUT_DIR/texts.json
Deterministic: the merges are learned (plain BPE training, most frequent pair first, ties to the
smallest pair) from the fixed TRAIN text below; nothing is random.
"""
import json
import os
import sys

TRAIN = (
    "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs! "
    "In 1999 there were 12345 foxes and 678 dogs, said the report (page 42). "
    "Hello world, hello there: what is the value of the key? It is 3.14159 or 2,718. "
    "Don't stop -- it's well-known that e-mail, co-operate and re-enter have hyphens. "
    "Café naïve résumé façade Ångström ﬁne ½ ² ｆｕｌｌ Straße. "
    "the theory of the thing: these three thousand thinkers thought there was something. "
    "Running, jumping, swimming and reading are things people like doing in the morning. "
    "WORD word Word words wordy keyword swordfish MiXeD mixed Mixed KEEP keep Keep. "
) * 3

TEXTS = [
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "  leading and trailing spaces  ",
    "\n\ttabs\tand\nnew lines\r\n",
    "In 1999 there were 12345 foxes; 3.14159 and 2,718 and 007.",
    "Don't stop -- it's well-known: e-mail, co-operate, re-enter!!",
    "(page 42) [x] {y} <z> \"quoted\" 'single' a/b\\c @#$%^&*_+=|~`",
    "Café naïve résumé façade Ångström",
    "ﬁne ½ ² ｆｕｌｌ Ⅸ ㎏ Straße",
    "e\u0301 a\u0300\u0323 \u00c5 \u212b \u1e9b\u0323",
    "\u4f60\u597d\u4e16\u754c \u3053\u3093\u306b\u3061\u306f \u0645\u0631\u062d\u0628\u0627",
    "emoji \U0001f600\U0001f469\u200d\U0001f4bb and \u00a0nbsp\u2009thin",
    "WORD word Word words wordy keyword swordfish",
    "MiXeD mixed MIXED Keep keep KEEP",
    "",
    " ",
    "a",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "1234567890123456789",
    "!!!???...,,,;;;",
]


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + list(
        range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


B2U = bytes_to_unicode()


def train(words, alphabet, n_merges, prefix="", suffix=""):
    """Plain BPE training over words (lists of symbols); returns (vocab list, merges list)."""
    vocab = list(dict.fromkeys(alphabet))
    seqs = []
    for w in words:
        syms = list(w)
        if prefix:
            syms = [syms[0]] + [prefix + s for s in syms[1:]]
        if suffix:
            syms[-1] = syms[-1] + suffix
        for s in syms:
            if s not in vocab:
                vocab.append(s)
        seqs.append(syms)
    merges = []
    for _ in range(n_merges):
        counts = {}
        for s in seqs:
            for a, b in zip(s, s[1:]):
                counts[(a, b)] = counts.get((a, b), 0) + 1
        if not counts:
            break
        best = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        a, b = best
        new = a + (b[len(prefix):] if prefix and b.startswith(prefix) else b)
        merges.append([a, b])
        if new not in vocab:
            vocab.append(new)
        for i, s in enumerate(seqs):
            out, j = [], 0
            while j < len(s):
                if j + 1 < len(s) and s[j] == a and s[j + 1] == b:
                    out.append(new)
                    j += 2
                else:
                    out.append(s[j])
                    j += 1
            seqs[i] = out
    return vocab, merges


def byte_level_model(n_merges=300, extra=(), **opts):
    words = [" " + w if i else w for i, w in enumerate(TRAIN.split(" ")) if w]
    words = ["".join(B2U[b] for b in w.encode("utf-8")) for w in words]
    vocab, merges = train(words, [B2U[b] for b in range(256)], n_merges)
    vocab += [e for e in extra if e not in vocab]
    model = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
             "vocab": {t: i for i, t in enumerate(vocab)}, "merges": [" ".join(m) for m in merges]}
    model.update(opts)
    return model


def char_model(n_merges=250, prefix="", suffix="", unk=None, byte_fallback=False, space="\u2581",
               merges_as_pairs=False):
    chars = sorted(set(TRAIN + "".join(TEXTS)) - set(" \t\n\r"))
    text = TRAIN.replace(" ", " " + space) if space else TRAIN
    words = [w for w in (text.split(" ") if space else TRAIN.split()) if w]
    base = ([unk] if unk else []) + ([f"<0x{b:02X}>" for b in range(256)] if byte_fallback else [])
    alphabet = base + ([space] if space else []) + chars
    vocab, merges = train(words, alphabet, n_merges, prefix, suffix)
    if prefix:
        vocab += [prefix + c for c in chars if prefix + c not in vocab]
    if suffix:
        vocab += [c + suffix for c in chars if c + suffix not in vocab]
    return {"type": "BPE", "dropout": None, "unk_token": unk,
            "continuing_subword_prefix": prefix or None, "end_of_word_suffix": suffix or None,
            "fuse_unk": False, "byte_fallback": byte_fallback,
            "vocab": {t: i for i, t in enumerate(vocab)},
            "merges": merges if merges_as_pairs else [" ".join(m) for m in merges]}


def added(content, id_, special=False, lstrip=False, rstrip=False, single_word=False,
          normalized=False):
    return {"id": id_, "content": content, "single_word": single_word, "lstrip": lstrip,
            "rstrip": rstrip, "normalized": normalized, "special": special}


BL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
BL_NOREGEX = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
              "use_regex": False}


def seq(*pre):
    return {"type": "Sequence", "pretokenizers": list(pre)}


def tokenizer(model, normalizer=None, pre=None, added_tokens=()):
    decoder = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
               "use_regex": True}
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": list(added_tokens), "normalizer": normalizer, "pre_tokenizer": pre,
            "post_processor": None, "decoder": decoder, "model": model}


def files():
    out = {}
    m = byte_level_model
    out["lowercase"] = tokenizer(m(), {"type": "Lowercase"}, BL)
    out["strip"] = tokenizer(m(), {"type": "Strip", "strip_left": True, "strip_right": True}, BL)
    out["strip_left"] = tokenizer(
        m(), {"type": "Sequence", "normalizers": [
            {"type": "Strip", "strip_left": True, "strip_right": False}, {"type": "NFC"}]}, BL)
    out["nfd"] = tokenizer(m(), {"type": "NFD"}, BL)
    out["nfkd"] = tokenizer(m(), {"type": "NFKD"}, BL)
    out["digits"] = tokenizer(m(), None, seq({"type": "Digits", "individual_digits": False},
                                             BL_NOREGEX))
    out["digits_individual"] = tokenizer(
        m(), None, seq({"type": "Digits", "individual_digits": True}, BL_NOREGEX))
    out["punctuation"] = tokenizer(m(), None, seq({"type": "Punctuation", "behavior": "Isolated"},
                                                  BL_NOREGEX))
    out["punctuation_contiguous"] = tokenizer(
        m(), None, seq({"type": "Punctuation", "behavior": "Contiguous"}, BL_NOREGEX))
    out["whitespace"] = tokenizer(m(), None, seq({"type": "Whitespace"}, BL_NOREGEX))
    out["whitespace_split"] = tokenizer(m(), None, seq({"type": "WhitespaceSplit"}, BL_NOREGEX))
    for b in ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"):
        out["split_string_" + b.lower()] = tokenizer(
            m(), None, seq({"type": "Split", "pattern": {"String": "-"}, "behavior": b,
                            "invert": False}, BL_NOREGEX))
    out["split_regex_invert"] = tokenizer(
        m(), None, seq({"type": "Split", "pattern": {"Regex": "\\p{L}+"}, "behavior": "Isolated",
                        "invert": True}, BL_NOREGEX))
    out["bytelevel_prefix_space"] = tokenizer(
        m(), None, {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True})
    out["ignore_merges"] = tokenizer(
        m(extra=["\u0120swordfish", "\u0120wordy", "keyword", "\u0120MIXED", "1234567890"],
          ignore_merges=True), None, BL)
    for scheme in ("first", "always", "never"):
        out["metaspace_" + scheme] = tokenizer(
            char_model(byte_fallback=True, unk="<unk>", merges_as_pairs=True), None,
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": scheme,
             "split": scheme != "never"})
    out["subword_prefix"] = tokenizer(char_model(prefix="##", unk="[UNK]", space=""), None,
                                      {"type": "Whitespace"})
    out["end_of_word_suffix"] = tokenizer(char_model(suffix="</w>", unk="[UNK]", space=""), None,
                                          {"type": "WhitespaceSplit"})
    model = m()
    n = len(model["vocab"])
    out["added_tokens"] = tokenizer(model, {"type": "Lowercase"}, BL, [
        added("<|sp|>", n, special=True),
        added("[L]", n + 1, special=True, lstrip=True),
        added("[R]", n + 2, special=True, rstrip=True),
        added("[LR]", n + 3, special=False, lstrip=True, rstrip=True),
        added("word", n + 4, single_word=True),
        added("MiXeD", n + 5, normalized=True),
        added("Keep", n + 6, normalized=False),
        added("swo", n + 7, single_word=True, special=True),
    ])
    return out


def texts_for(name):
    t = list(TEXTS)
    if name == "added_tokens":
        t += ["a <|sp|> b<|sp|>c", "x   [L] y", "x [L]   y", "x [R]   y", "x   [R] y",
              "p  [LR]  q", "word words sword word, (word) a-word word\n", "MIXED mixed MiXeD",
              "Keep keep KEEP", "swordfish swo swo! .swo", "<|SP|> [l] [r]"]
    if name.startswith("split") or name.startswith("punct"):
        t += ["a-b--c---d -e- f-", "--", "-", "well-known co--operate"]
    if name.startswith("metaspace"):
        t += ["  two  spaces", "\u2581already", "x \u2581 y"]
    return t


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    spec = []
    for name, tk in files().items():
        path = os.path.join(d, name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(tk, f, ensure_ascii=False, separators=(",", ":"))
        spec.append({"name": name, "file": path, "texts": texts_for(name)})
    with open(os.path.join(d, "texts.json"), "w", encoding="utf-8") as f:
        json.dump(spec, f, ensure_ascii=False)


main()
