# dipmap import longbench-v2 (README "Importing NoLiMa, RULER and LongBench v2"), on a small file
# in the published shape (tests/data/import/SOURCE.md): every record's context becomes haystack
# chunks (ids lb2-ID#N, untitled), paragraphs at blank lines with their inner newlines and
# indentation kept, long paragraphs cut as a text haystack cuts them (200-word pieces past 300
# words); the words are the context's, in order, none lost. The multiple-choice questions mark no
# evidence and are not imported (said). The haystack loads (show-prompt fits a needle trial to
# exactly its length in it); --limit counts records; a record without a context is named by
# file, line and field, writing nothing.
. "$TESTS/cli/lib/lib.sh"
src=$TESTS/data/import/longbench-v2.jsonl
expect_code 0 "$DIPMAP" import longbench-v2 "$src" --out h.jsonl
assert_contains err "import: 2 records -> 9 haystack chunks in h.jsonl (their multiple-choice questions mark no evidence to place at a depth and are not imported)"
python3 - "$src" <<'PY' || fail "longbench-v2 import (above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
chunks = [json.loads(l) for l in open("h.jsonl")]
for r in recs:
    mine = [c for c in chunks if c["id"].startswith("lb2-%s#" % r["_id"])]
    assert [c["id"] for c in mine] == ["lb2-%s#%d" % (r["_id"], i) for i in range(len(mine))], mine
    # the same words in the same order: nothing lost, nothing added
    assert " ".join(r["context"].split()) == " ".join(" ".join(c["text"] for c in mine).split())
    for c in mine:
        assert c["text"] == c["text"].rstrip() and c["text"].strip(), c
        assert not c.get("title"), c
        assert len(c["text"].split()) <= 300, (c["id"], len(c["text"].split()))
        assert "\n\n" not in c["text"], c  # a blank line ends a chunk
assert len(chunks) == 9, len(chunks)
code = [c["text"] for c in chunks if "def push" in c["text"]][0]
assert code == "    def push(self, x):\n        self.items.append(x)", repr(code)
long = [c for c in chunks if "harbour ledger" in c["text"]]
assert [len(c["text"].split()) for c in long] == [200, 200, 260], [len(c["text"].split()) for c in long]
PY
# the haystack serves a depth sweep: a needle trial fits it to exactly its length
expect_code 0 "$DIPMAP" show-prompt --dataset "$REPO/datasets/needle.jsonl" --haystack h.jsonl \
    --length 1k --depth 50
assert_contains out "# length: target 1024, realized 1024 "
assert_contains out "harbour ledger"
expect_code 0 "$DIPMAP" import longbench-v2 "$src" --out one.jsonl --limit 1
assert_contains err "import: 1 record -> 6 haystack chunks in one.jsonl"
# a record without a context: file, line and field; nothing written
head -n 1 "$src" >bad.jsonl
python3 -c 'import json; r = json.loads(open("bad.jsonl").readline()); del r["context"]; print(json.dumps(r))' >>bad.jsonl
expect_code 2 "$DIPMAP" import longbench-v2 bad.jsonl --out bad-out.jsonl
assert_contains err "bad.jsonl:2: \"context\": missing or not a non-empty string"
[ ! -e bad-out.jsonl ] || fail "a failed import left bad-out.jsonl"
exit 0
