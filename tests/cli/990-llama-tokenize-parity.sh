# Real llama-server: dipmap's own count of the model's tokenizer.json gives the same ids as
# the server's POST /tokenize (English haystack chunks, 16 other languages, C and Python,
# Unicode edge cases), and `dipmap tokenize --tokenizer server` reports the server's count.
# The texts are put in NFC first: llama.cpp (0253fb21f5) does not apply the tokenizer.json
# NFC normalizer of Qwen3, so decomposed text ("pe\u0300i" in the NQ haystack) is one token
# longer on the server than in the Hugging Face tokenizer; that is checked separately.
. "$TESTS/cli/lib/lib.sh"
. "$TESTS/llama/lib.sh"
llama_require
llama_tokenizer
llama_start srv -c 4096 -np 1
python3 - "$REPO/datasets/nq-haystack.jsonl.gz" "$TESTS/data/tokenizer/corpus" <<'PY'
import gzip, json, os, sys, unicodedata
def write(name, text):
    open(name, "w", newline="").write(unicodedata.normalize("NFC", text))
with gzip.open(sys.argv[1], "rt", encoding="utf-8") as f:
    chunks = [json.loads(l) for _, l in zip(range(40), f)]
raw = "\n\n".join(c["title"] + "\n" + c["text"] for c in chunks)
open("raw.haystack", "w", newline="").write(raw)
write("haystack.txt", raw)
write("edge.txt", "caf\u00e9 cafe\u0301 \u00c5ngstr\u00f6m \uff21\uff22 \u4e2d\u6587 \U0001f600\U0001f468\u200d\U0001f469 "
                            "tab\there  \n\n\r\n 12345 3.14159 don't I'M we'll \u00a0nbsp x\u2028y ")
for name in ("en", "nonen", "code"):
    p = os.path.join(sys.argv[2], name + ".txt.gz")
    if os.path.exists(p):
        with gzip.open(p, "rt", encoding="utf-8", newline="") as f:
            text = f.read(400000)
        write(name + ".txt", text[200000:212000])
PY
llama_check tokenize-parity "$LLAMA_URL" "$LLAMA_TOKENIZER" ./*.txt >parity.out || { cat parity.out >&2; fail "token ids differ"; }
cat parity.out
# the raw haystack (with its NFD sequences): --tokenizer server counts exactly what the server does
want=$(python3 -c 'import json,sys,urllib.request as u; r=u.urlopen(u.Request(sys.argv[1]+"/tokenize", json.dumps({"content":open("raw.haystack", newline="").read()}).encode(), {"Content-Type":"application/json"})); print(len(json.loads(r.read())["tokens"]))' "$LLAMA_URL")
expect_code 0 "$DIPMAP" tokenize --tokenizer server --endpoint "$LLAMA_URL" raw.haystack
[ "$(tr -d '[:space:]' <out)" = "$want" ] || fail "dipmap tokenize --tokenizer server said '$(cat out)', the server counted $want"
