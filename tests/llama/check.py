#!/usr/bin/env python3
"""Checks for the llama-server tests (tests/cli/99x-llama-*.sh), standard library only.

usage: check.py CMD ARGS...
  sent-once LOG DB RUN MAX_RESENT
      every trial of RUN is in DB exactly once and its prompt reached the server (LOG is
      llama-server's --log-verbose output, which holds each request body); prompts the
      server was sent more than once number at most MAX_RESENT (the requests in flight at
      a kill -9); no generation request in LOG is for a prompt outside the run.
  requests LOG
      print the number of generation requests (chat or completions) in LOG
  overhead LOG URL N
      for every chat request in LOG, usage.prompt_tokens of its logged response minus the
      server's /tokenize count of its system and user contents equals N (the template overhead)
  tokenize-parity URL TOKENIZER_JSON TEXT_FILE...
      for each file, the ids of POST URL/tokenize equal `dipmap tokenize --ids` of the
      same file with TOKENIZER_JSON (DIPMAP from the environment); print one line per file
"""
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import urllib.request


def die(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def generation(path):
    return path.split("?")[0].rstrip("/").endswith("/completions")


def request_bodies(log):
    """JSON bodies of the generation requests llama-server logged (debug level): each
    "request:" line follows the "done request: METHOD PATH ..." line of the same request,
    so /apply-template and /tokenize bodies (which may hold messages too) are told apart."""
    out = []
    path = ""
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            j = line.find("done request: ")
            if j >= 0:
                parts = line[j + len("done request: "):].split()
                path = parts[1] if len(parts) > 1 else ""
                continue
            i = line.find("request:  {")
            if i < 0 or not generation(path):
                continue
            try:
                body = json.loads(line[i + len("request:  "):])
            except ValueError:
                continue  # a body too long for one log line is cut: count it as unknown
            if isinstance(body, dict) and ("messages" in body or "prompt" in body):
                out.append(body)
    return out


def prompt_sha(body):
    """The runner's prompt hash: sha256(system NUL user) for chat, sha256(prompt) otherwise."""
    if "messages" in body:
        sys_msg = "".join(m["content"] for m in body["messages"] if m.get("role") == "system")
        user = "".join(m["content"] for m in body["messages"] if m.get("role") == "user")
        data = sys_msg.encode() + b"\0" + user.encode()
    else:
        data = body["prompt"].encode()
    return hashlib.sha256(data).hexdigest()


def cmd_sent_once(log, db, run, max_resent):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute(
        "select t.question_id, t.length, t.depth_bp, t.repeat, t.prompt_sha256, t.outcome"
        " from trials t join runs r on r.id = t.run_id where r.name = ?", (run,)).fetchall()
    planned = con.execute("select trials_planned from runs where name = ?", (run,)).fetchone()
    con.close()
    if not rows or not planned:
        die("run %s has no trials in %s" % (run, db))
    keys = set((r[0], r[1], r[2], r[3]) for r in rows)
    if len(keys) != len(rows) or len(rows) != planned[0]:
        die("%d trial rows, %d distinct, %d planned" % (len(rows), len(keys), planned[0]))
    pending = [r for r in rows if r[5] == "pending"]
    if pending:
        die("%d trials still pending" % len(pending))
    sent = {}
    for b in request_bodies(log):
        h = prompt_sha(b)
        sent[h] = sent.get(h, 0) + 1
    want = {}
    for r in rows:
        want[r[4]] = want.get(r[4], 0) + 1
    missing = [h for h in want if h not in sent]
    if missing:
        die("%d prompts of the run never reached the server (e.g. %s)" % (len(missing), missing[0]))
    extra = [h for h in sent if h not in want]
    if extra:
        die("%d prompts the server answered are not in the run" % len(extra))
    resent = sum(max(0, sent[h] - want[h]) for h in want)
    print("trials %d, requests %d, resent %d" % (len(rows), sum(sent.values()), resent))
    if resent > max_resent:
        die("%d requests were sent again, more than the %d in flight at the kill" % (resent, max_resent))


def server_count(url, text):
    req = urllib.request.Request(url + "/tokenize", json.dumps({"content": text}).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return len(json.loads(r.read())["tokens"])


def cmd_overhead(log, url, want):
    """Pairs each logged chat request with the response logged after it."""
    pairs = []
    body = None
    path = ""
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            j = line.find("done request: ")
            if j >= 0:
                parts = line[j + len("done request: "):].split()
                path = parts[1] if len(parts) > 1 else ""
                continue
            if not generation(path):
                continue
            for tag in ("request:  {", "response: {"):
                i = line.find(tag)
                if i < 0:
                    continue
                try:
                    obj = json.loads(line[i + len(tag) - 1:])
                except ValueError:
                    obj = None
                if tag.startswith("request"):
                    body = obj if isinstance(obj, dict) and "messages" in obj else None
                elif body is not None and isinstance(obj, dict) and "usage" in obj:
                    pairs.append((body, obj["usage"]["prompt_tokens"]))
                    body = None
    if not pairs:
        die("no chat request with its response in %s" % log)
    bad = 0
    for b, used in pairs:
        content = sum(server_count(url, m["content"]) for m in b["messages"])
        if used - content != want:
            bad += 1
            print("request: usage %d - content %d = %d, not %d" % (used, content, used - content, want))
    print("%d requests, overhead %d" % (len(pairs), want))
    if bad:
        die("%d of %d requests had another overhead" % (bad, len(pairs)))


def cmd_requests(log):
    print(len(request_bodies(log)))


def cmd_tokenize_parity(url, tokenizer, files):
    dipmap = os.environ["DIPMAP"]
    bad = 0
    for path in files:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        req = urllib.request.Request(url + "/tokenize", json.dumps({"content": text}).encode(),
                                     {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            server = json.loads(r.read())["tokens"]
        local = subprocess.run([dipmap, "tokenize", "--tokenizer", tokenizer, "--ids", path],
                               check=True, capture_output=True, text=True).stdout.split()
        local = [int(x) for x in local]
        same = local == server
        print("%s: %d tokens local, %d server, %s" % (os.path.basename(path), len(local),
                                                      len(server), "equal" if same else "DIFFER"))
        if not same:
            bad += 1
            n = next((i for i, (a, b) in enumerate(zip(local, server)) if a != b),
                     min(len(local), len(server)))
            print("  first difference at token %d: local %s server %s" % (
                n, local[n:n + 5], server[n:n + 5]))
    if bad:
        die("%d of %d texts tokenized differently" % (bad, len(files)))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "sent-once" and len(argv) == 6:
        cmd_sent_once(argv[2], argv[3], argv[4], int(argv[5]))
    elif cmd == "overhead" and len(argv) == 5:
        cmd_overhead(argv[2], argv[3], int(argv[4]))
    elif cmd == "requests" and len(argv) == 3:
        cmd_requests(argv[2])
    elif cmd == "tokenize-parity" and len(argv) >= 5:
        cmd_tokenize_parity(argv[2], argv[3], argv[4:])
    else:
        die("bad arguments: %r" % argv[1:])


if __name__ == "__main__":
    main(sys.argv)
