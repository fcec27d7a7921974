"""Small HTTP client and data helpers for the serve-sim CLI tests (stdlib only).

Every request opens its own connection, so a dropped or truncated response
affects only that request. Results are classified the way a benchmark client
must see them: HTTP status, headers, body, or the transport error.
"""
import http.client
import json
import math
import random
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor

WORDS = (
    "river stone market window garden paper silver orange planet engine letter "
    "bridge winter summer forest island camera doctor teacher pocket candle "
    "mirror ladder button rocket signal harbor valley desert castle village "
    "machine blanket basket pencil carpet jacket kettle lemon marble needle "
    "ocean pepper puzzle rabbit saddle tunnel violin wallet yellow zebra "
    "quietly slowly brightly carefully often rarely never always sometimes "
    "walks builds carries paints writes opens closes finds keeps follows"
).split()


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def filler(rng, nwords):
    """Deterministic filler text of nwords common words (about 1 token each)."""
    out = []
    for i in range(nwords):
        w = rng.choice(WORDS)
        out.append(w + ("." if i % 12 == 11 else ""))
    return " ".join(out)


def question(i):
    return "What is the passcode of vault number %d?" % i


def gold_text(i):
    return "Records show that the passcode of vault number %d is PASS-%d-OK." % (i, i)


def neg_text(i):
    return "A rumour claims the passcode of vault number %d is WRONG-%d-NO." % (i, i)


def make_dataset(path, n, negatives=True, answer=None):
    """n questions q0000.. with one gold chunk and (optionally) a hard negative with a value."""
    with open(path, "w") as f:
        for i in range(n):
            q = {
                "id": "q%04d" % i,
                "question": question(i),
                "answers": [answer(i) if answer else "PASS-%d-OK" % i, "PASS-%d" % i],
                "gold": [{"id": "g%d" % i, "title": "Vault %d" % i, "text": gold_text(i)}],
            }
            if negatives:
                q["distractors"] = [{"id": "n%d" % i, "text": neg_text(i), "value": "WRONG-%d-NO" % i}]
            f.write(json.dumps(q) + "\n")


_POOL = {}


def _pool(seed):
    if seed not in _POOL:
        r = random.Random(seed)
        _POOL[seed] = filler(r, 300000).split(" ")
    return _POOL[seed]


def prompt_at(i, words, frac, rng, negative=True):
    """A prompt for question i: ~words words of filler (a random slice of a fixed pool) with the
    gold chunk at word fraction frac (0 = first, 1 = last), the hard negative at a random
    place (when negative), then the question."""
    pool = _pool(12345)
    if words >= len(pool):  # a million-token prompt: the pool over and over
        pool = pool * (words // len(pool) + 2)
    off = rng.randrange(len(pool) - words)
    text = pool[off : off + words]
    pos = int(round(frac * len(text)))
    docs = text[:pos] + ["\n" + gold_text(i) + "\n"] + text[pos:]
    if negative:
        k = rng.randrange(len(docs) + 1)
        docs.insert(k, "\n" + neg_text(i) + "\n")
    return "Documents:\n" + " ".join(docs) + "\n\nQuestion: " + question(i) + "\nAnswer:"


class Result:
    def __init__(self):
        self.status = None  # int, or None when no response
        self.headers = {}
        self.body = b""
        self.error = None  # "drop", "truncate", "timeout" or an exception name
        self.elapsed = 0.0
        self.json = None

    def __repr__(self):
        return "Result(status=%r, error=%r, body=%r)" % (self.status, self.error, self.body[:200])


def request(port, method, path, obj=None, headers=None, timeout=60, raw=None):
    r = Result()
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    body = raw if raw is not None else (json.dumps(obj).encode() if obj is not None else None)
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        r.status = resp.status
        r.headers = {k.lower(): v for k, v in resp.getheaders()}
        try:
            r.body = resp.read()
        except http.client.IncompleteRead as e:
            r.body = e.partial
            r.error = "truncate"
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        r.error = "drop"
    except socket.timeout:
        r.error = "timeout"
    except Exception as e:  # noqa: BLE001 - reported to the test
        r.error = type(e).__name__
    finally:
        conn.close()
    r.elapsed = time.monotonic() - t0
    if r.status is not None and r.error is None and r.headers.get("content-type", "").startswith(
        "application/json"
    ):
        try:
            r.json = json.loads(r.body)
        except ValueError:
            r.json = None
    return r


def post(port, path, obj, **kw):
    return request(port, "POST", path, obj, **kw)


def get(port, path, **kw):
    return request(port, "GET", path, None, **kw)


def chat(port, content, model=None, system=None, **extra):
    msgs = []
    if system is not None:
        msgs.append({"role": "system", "content": system})
    msgs.append({"role": "user", "content": content})
    obj = {"messages": msgs, "temperature": 0}
    if model:
        obj["model"] = model
    obj.update(extra)
    return post(port, "/v1/chat/completions", obj)


def content_of(r):
    return r.json["choices"][0]["message"]["content"]


def parallel(fn, items, workers=16):
    with ThreadPoolExecutor(max_workers=workers) as ex:
        return list(ex.map(fn, items))


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def planted_p(edge, dip, shape, x, T):
    """P(x,T) = edge - depth(T)(1 - |2x-1|^shape), depth(T) = dip clamp(log2(T/1500)/4, 0, 1)."""
    depth = dip * min(1.0, max(0.0, math.log2(T / 1500.0) / 4.0)) if T > 0 else 0.0
    x = min(1.0, max(0.0, x))
    return min(1.0, max(0.0, edge - depth * (1 - abs(2 * x - 1) ** shape)))


def within(observed, ps, k=4.5):
    """observed successes vs Bernoulli(p_i) trials: |obs - sum p| <= k sd."""
    mean = sum(ps)
    sd = math.sqrt(sum(p * (1 - p) for p in ps))
    return abs(observed - mean) <= k * sd + 1e-9, mean, sd


def rng(seed):
    return random.Random(seed)
