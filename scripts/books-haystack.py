#!/usr/bin/env python3
"""Build datasets/books-haystack.jsonl.gz: paragraph-sized filler chunks of public-domain books.

usage: scripts/books-haystack.py --out OUT.jsonl.gz SOURCE...

SOURCE is one of
  NUMBER=FILE.txt   a Project Gutenberg plain-text eBook (its START/END markers present)
  NUMBER=FILE.htm   one book of Project Gutenberg's King James Bible HTML (eBook 10900,
                    10900-h/bookNN.htm): the <h1> name and each <p> verse
  FILE.jsonl.gz     a haystack this script wrote: its chunks are read back and chunked again

The eBook's text between the markers is kept; the Project Gutenberg header, footer and license,
and every paragraph that names Project Gutenberg, a URL, its producers or an illustration, are
dropped. Paragraphs (lines joined, whitespace collapsed, the _italic_ underscores removed) are
split at sentence ends when longer than MAX_WORDS, and consecutive pieces are joined with "\\n"
into chunks of at least MIN_WORDS words (a short last piece of a book joins the chunk before
it). Reading a written haystack back gives the same pieces (a chunk's lines), so running the
script on its own output reproduces it byte for byte: tests/cli/213-shipped-datasets.sh does.
Deterministic: the gzip header carries no name and no time.
"""
import gzip
import html
import io
import json
import re
import sys

MIN_WORDS = 70
MAX_WORDS = 140
PACK_WORDS = 100

# eBook number -> (author, title); the chunks' "title" is the title (the Bible: its book's name)
BOOKS = {
    "16215": ("William Harrison Ainsworth", "Jack Sheppard"),
    "14263": ("Elinor Macartney Lane", "Katrine"),
    "3261": ("William Morris", "News from Nowhere"),
    "9198": ("Izaak Walton", "The Complete Angler, 1653"),
    "14881": ("Hezekiah Butterworth", "The Log School-House on the Columbia"),
    "10900": ("", "The King James Bible"),
}
DROP = re.compile(r"gutenberg|https?:|www\.|^produced by|^e-text|^etext|transcriber|proofread|^\[illustration|"
                  r"\(underscore\)|^-+$", re.I)
SENTENCE_END = re.compile(r'(?<=[.!?])["\')\]]*\s+(?=["\'(\[]?[A-Z0-9])')


def fail(msg):
    sys.stderr.write("books-haystack: %s\n" % msg)
    sys.exit(2)


def clean(par):
    return " ".join(par.replace("_", " ").split())


def gutenberg_paragraphs(path):
    text = open(path, "rb").read().decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines) if re.match(r"\*\*\* ?START OF", l)), None)
    end = next((i for i, l in enumerate(lines) if re.match(r"\*\*\* ?END OF|End of (the )?Project Gutenberg", l,
                                                           re.I)), None)
    if start is None or end is None or end <= start:
        fail("%s: no Project Gutenberg START/END markers" % path)
    while start < end and lines[start].strip():  # the START marker may span two lines
        start += 1
    pars, cur = [], []
    for l in lines[start:end] + [""]:
        if l.strip():
            cur.append(l)
        elif cur:
            pars.append(clean(" ".join(cur)))
            cur = []
    return [p for p in pars if p and not DROP.search(p)]


def bible_paragraphs(path):
    text = open(path, "rb").read().decode("latin-1")
    name = re.search(r"<h1[^>]*>(.*?)</h1>", text, re.S)
    if not name:
        fail("%s: no <h1> book name" % path)
    verses = [clean(html.unescape(re.sub(r"<[^>]+>", " ", v))) for v in re.findall(r"<p>(.*?)</p>", text, re.S)]
    return clean(html.unescape(name.group(1))), [v for v in verses if v]


def split_long(par):
    """A paragraph over MAX_WORDS as pieces of whole sentences, each up to PACK_WORDS words."""
    if len(par.split()) <= MAX_WORDS:
        return [par]
    pieces, cur = [], []
    for s in SENTENCE_END.split(par):
        if cur and len(" ".join(cur + [s]).split()) > PACK_WORDS:
            pieces.append(" ".join(cur))
            cur = []
        cur.append(s)
    pieces.append(" ".join(cur))
    return pieces


def chunks_of(pieces):
    out, cur, words = [], [], 0
    for p in pieces:
        cur.append(p)
        words += len(p.split())
        if words >= MIN_WORDS:
            out.append(cur)
            cur, words = [], 0
    if cur:
        if out:
            out[-1].extend(cur)
        else:
            out.append(cur)
    return ["\n".join(c) for c in out]


def read_sources(args):
    """-> [(key, title, pieces)] in order; key names the id prefix ('pg16215', 'pg10900-01')."""
    books = []
    for a in args:
        if a.endswith(".jsonl.gz"):
            with gzip.open(a, "rt", encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    try:
                        c = json.loads(line)
                        key = c["id"].rsplit("-", 1)[0]
                        pieces = c["text"].split("\n")
                        title = c["title"]
                    except (ValueError, KeyError, AttributeError) as e:
                        fail("%s:%d: not a chunk of this script (%s)" % (a, n, e))
                    if books and books[-1][0] == key:
                        books[-1][2].extend(pieces)
                    else:
                        books.append((key, title, pieces))
            continue
        num, eq, path = a.partition("=")
        if not eq or num not in BOOKS:
            fail("%s: a source is NUMBER=FILE with NUMBER one of %s" % (a, ", ".join(BOOKS)))
        if path.endswith(".htm"):
            m = re.search(r"book(\d+)\.htm$", path)
            if not m:
                fail("%s: the Bible's HTML books are named bookNN.htm" % path)
            name, pars = bible_paragraphs(path)
            books.append(("pg%s-%s" % (num, m.group(1)), name, [x for p in pars for x in split_long(p)]))
        else:
            pars = gutenberg_paragraphs(path)
            books.append(("pg" + num, BOOKS[num][1], [x for p in pars for x in split_long(p)]))
    return books


def main(argv):
    if len(argv) < 3 or argv[0] != "--out":
        fail("usage: scripts/books-haystack.py --out OUT.jsonl.gz SOURCE...")
    out, sources = argv[1], argv[2:]
    buf = io.StringIO()
    n = 0
    for key, title, pieces in read_sources(sources):
        for i, text in enumerate(chunks_of(pieces), 1):
            buf.write(json.dumps({"id": "%s-%05d" % (key, i), "title": title, "text": text},
                                 ensure_ascii=False) + "\n")
            n += 1
    data = buf.getvalue().encode("utf-8")
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                               compresslevel=9) as g:
        g.write(data)
    sys.stderr.write("books-haystack: %d chunks, %d bytes of JSONL -> %s\n" % (n, len(data), out))


if __name__ == "__main__":
    main(sys.argv[1:])
