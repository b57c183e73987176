#!/usr/bin/env python3
"""tests/replay/replay.py -- sends the same requests to two posencd binaries and compares the
answers byte for byte (issue 14: a restructure must not change behaviour).

usage: replay.py --old BIN_OLD --new BIN_NEW [--out DIR] [--old-root DIR] [--new-root DIR]
                 [--expected FILE] [--allow-unused] [--list]

Each binary runs on its own ephemeral loopback port with a fresh, empty data directory; the
request list (built below, deterministically, from this repository's files) is sent to both,
one request at a time, in the same order, on one keep-alive connection per daemon. Every answer's
status, headers and body are compared after the normalisations listed in NORMALISATIONS (and
nothing else). Differences allowed on purpose are listed in expected_diffs.json (format in
README.md). The served files (web/, openapi.yaml) of each daemon come from its own tree
(--old-root / --new-root; default: the folder above the binary's folder when it holds
openapi.yaml, else this repository).

Writes to --out (default a new temporary folder): report.txt (summary and every difference),
summary.json, requests.tsv (every request with both statuses), diffs/ (both bodies of every
differing answer), old.log / new.log (the daemons' output).
Exit status: 0 when every difference is expected (and every expected entry was used, unless
--allow-unused), 1 otherwise, 2 on a usage or start-up error.
The request list is built by catalog.py. Python 3 standard library, plus python3-yaml (Debian)
to read openapi.yaml.
"""
import argparse
import fnmatch
import http.client
import json
import os
import re
import shutil
import sys
import tempfile
import time

try:
    import yaml  # noqa: F401  (catalog.py reads openapi.yaml with it)
except ImportError:  # pragma: no cover
    sys.stderr.write("replay: python3-yaml is needed to read openapi.yaml "
                     "(Debian: apt-get install python3-yaml)\n")
    sys.exit(2)

sys.dont_write_bytecode = True  # no __pycache__ next to catalog.py or tests/hostile/common.py
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "hostile"))
import common as hostile  # noqa: E402  (the daemon starter the hostile tests use)
from catalog import all_requests  # noqa: E402

# ---- normalisations ------------------------------------------------------------------------
# Everything that may legitimately differ between two runs of the SAME binary, and nothing
# more. Each entry: what, and why. compare() applies exactly these.
NORMALISATIONS = [
    ("header Date dropped",
     "wall-clock time of the answer"),
    ("header X-Request-Id dropped",
     "generated from a per-process random salt and a counter when the client sends none"),
    ("problem+json member `instance` cut out of the bytes of an application/problem+json body "
     "(with its comma; the rest of the bytes stay compared)",
     "it is urn:posenc:request:<the X-Request-Id above>"),
    ("header Content-Length compared as 'matches the body' (kept verbatim when it does not)",
     "the bodies are compared after the normalisations below, which may change their length"),
    ("headers compared as a list sorted by lower-cased name (order among fields of one name kept)",
     "HTTP gives field order across names and name case no meaning"),
    ("GET /version: `git_revision` and `build.date` replaced by placeholders",
     "the commit and the day each binary was built (build.compiler and versions stay compared)"),
    ("table descriptions (PUT /tables/NAME, GET /tables, GET /tables/NAME as JSON): every "
     "`created` string replaced by a placeholder (null stays null)",
     "the wall-clock time the table was stored"),
    ("GET /metrics: the values of *_duration_seconds_bucket and *_duration_seconds_sum samples "
     "replaced by a placeholder (names, labels, counts and every other sample stay compared)",
     "request latencies"),
]


# ---- daemons ---------------------------------------------------------------------------------

def tree_of(binary):
    up = os.path.dirname(os.path.dirname(os.path.abspath(binary)))
    return up if os.path.isfile(os.path.join(up, "openapi.yaml")) else ROOT


class Daemon:
    """One posencd (tests/hostile/common.py starts it) on an ephemeral loopback port, with a fresh
    data directory and the web/ and openapi.yaml of `root`; one keep-alive connection."""

    def __init__(self, name, binary, root, outdir):
        self.name, self.root = name, os.path.abspath(root)
        self.data = tempfile.mkdtemp(prefix=f"replay-{name}-data-")
        self.log_path = os.path.join(outdir, f"{name}.log")
        self.conn = None
        try:  # later options win: these replace common.Daemon's --web-dir "" and --spec
            self.d = hostile.Daemon(os.path.abspath(binary), args=[
                "--threads", "2", "--compute-threads", "2", "--data-dir", self.data,
                "--web-dir", os.path.join(self.root, "web"),
                "--spec", os.path.join(self.root, "openapi.yaml")])
        except RuntimeError as e:
            shutil.rmtree(self.data, ignore_errors=True)
            raise RuntimeError(f"{name} daemon ({binary}): {e}")
        self.port = self.d.port

    def send(self, r):
        """One request; returns (status, [(name, value)], body) or ("error: ...", [], b"")."""
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            try:
                self.conn.putrequest(r.method, r.path, skip_accept_encoding=True)
                for k, v in r.headers:
                    self.conn.putheader(k, v)
                if r.body is not None:
                    self.conn.putheader("Content-Length", str(len(r.body)))
                self.conn.endheaders(r.body if r.body is not None else None)
                resp = self.conn.getresponse()
                body = resp.read()
                out = (resp.status, resp.getheaders(), body)
                if resp.will_close:
                    self.conn.close()
                    self.conn = None
                return out
            except (http.client.HTTPException, OSError) as e:
                self.conn.close()
                self.conn = None
                # a keep-alive connection the server had closed: retry once on a new one
                if attempt == 1 or not isinstance(e, (http.client.RemoteDisconnected,
                                                      BrokenPipeError, ConnectionResetError)):
                    return (f"error: {type(e).__name__}: {e}", [], b"")
        return ("error: unreachable", [], b"")

    def stop(self):
        if self.conn is not None:
            self.conn.close()
        self.d.stop()
        with open(self.log_path, "w", encoding="utf-8") as f:
            f.write(self.d.log_text())
        self.d.cleanup()
        shutil.rmtree(self.data, ignore_errors=True)


# ---- normalising and comparing ----------------------------------------------------------------

INSTANCE_AFTER = re.compile(rb',"instance":"(?:[^"\\]|\\.)*"')
INSTANCE_FIRST = re.compile(rb'^\{"instance":"(?:[^"\\]|\\.)*",?')
CREATED = re.compile(rb'"created":"[^"]*"')
DURATION = re.compile(rb"^([a-z_]*_duration_seconds_(?:bucket|sum)\{[^}]*\}) .*$", re.M)


def header_value(headers, name):
    for k, v in headers:
        if k.lower() == name:
            return v
    return None


def norm_body(r, status, headers, body):
    """The body with the normalisations of NORMALISATIONS applied."""
    ct = (header_value(headers, "content-type") or "").split(";")[0].strip().lower()
    path = r.path.split("?")[0]
    if ct == "application/problem+json":  # on the bytes: re-encoding would hide other changes
        body = INSTANCE_AFTER.sub(b"", body, count=1)
        return INSTANCE_FIRST.sub(b"{", body, count=1)
    if ct == "application/json" and path == "/version" and r.method == "GET":
        body = re.sub(rb'"git_revision":"[^"]*"', b'"git_revision":"<rev>"', body)
        return re.sub(rb'"date":"[^"]*"', b'"date":"<date>"', body)
    if ct == "application/json" and path.startswith("/tables"):
        return CREATED.sub(b'"created":"<created>"', body)
    if path == "/metrics" and r.method == "GET":
        return DURATION.sub(rb"\1 <t>", body)
    return body


def norm_headers(headers, raw_body, is_head):
    out = []
    for k, v in headers:
        lk = k.lower()
        if lk in ("date", "x-request-id"):
            continue
        if lk == "content-length" and not is_head and v.strip() == str(len(raw_body)):
            v = "<length of the body>"
        out.append((lk, v))
    out.sort(key=lambda kv: kv[0])  # stable: same-name fields keep their order
    return out


def first_diff(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n if len(a) != len(b) else -1


def snippet(b, at, width=60):
    lo = max(0, at - 20)
    return repr(b[lo:lo + width]) + (f" (from byte {lo})" if lo else "")


def compare(r, old, new):
    """Returns (parts, details): the parts that differ ("status", "header:<name>", "body") and
    human-readable lines saying how."""
    parts, details = [], []
    if old[0] != new[0]:
        parts.append("status")
        details.append(f"status: old {old[0]}, new {new[0]}")
    is_head = r.method == "HEAD"
    ho, hn = norm_headers(old[1], old[2], is_head), norm_headers(new[1], new[2], is_head)
    if ho != hn:
        names = sorted({k for k, _ in ho} | {k for k, _ in hn})
        for k in names:
            vo = [v for kk, v in ho if kk == k]
            vn = [v for kk, v in hn if kk == k]
            if vo != vn:
                parts.append("header:" + k)
                details.append(f"header {k}: old {vo or '(absent)'}, new {vn or '(absent)'}")
    bo, bn = norm_body(r, *old), norm_body(r, *new)
    if bo != bn:
        parts.append("body")
        at = first_diff(bo, bn)
        details.append(f"body: first difference at byte {at} (normalised lengths old {len(bo)}, "
                       f"new {len(bn)})")
        details.append(f"  old: {snippet(bo, at)}")
        details.append(f"  new: {snippet(bn, at)}")
    return parts, details


# ---- expected differences --------------------------------------------------------------------

def load_expected(path):
    doc = json.load(open(path, encoding="utf-8"))
    entries = doc.get("expected", []) if isinstance(doc, dict) else []
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("match"), dict) \
                or not isinstance(e.get("differs"), list) or not e.get("why"):
            raise ValueError(f"{path}: entry {i} needs match (object), differs (list) and why")
        bad = set(e["match"]) - {"id", "source", "method", "path", "accept"}
        if bad:
            raise ValueError(f"{path}: entry {i}: unknown match keys {sorted(bad)}")
    return entries


def entry_matches(e, r):
    vals = {"id": r.id, "source": r.source, "method": r.method, "path": r.path,
            "accept": "" if r.accept is None else r.accept}
    return all(fnmatch.fnmatchcase(vals[k], str(pat)) for k, pat in e["match"].items())


def entry_allows(e, part):
    """The entry lists part among the parts allowed to differ."""
    return any(fnmatch.fnmatchcase(part, a) for a in e["differs"])


def entry_new_ok(e, new):
    """The new answer has the values the entry names (`new`)."""
    for k, want in (e.get("new") or {}).items():
        if k == "status":
            if new[0] != want:
                return False
        elif k.startswith("header:"):
            if header_value(new[1], k[7:].lower()) != want:
                return False
    return True


# ---- main ------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", required=False)
    ap.add_argument("--new", required=False)
    ap.add_argument("--out")
    ap.add_argument("--old-root")
    ap.add_argument("--new-root")
    ap.add_argument("--expected", default=os.path.join(HERE, "expected_diffs.json"))
    ap.add_argument("--allow-unused", action="store_true",
                    help="do not fail when an expected_diffs.json entry matched no difference")
    ap.add_argument("--list", action="store_true", help="print the request list and exit")
    a = ap.parse_args()
    try:
        reqs = all_requests()
    except (RuntimeError, OSError, ValueError) as e:
        sys.stderr.write(f"replay: cannot build the request list: {e}\n")
        return 2
    if a.list:
        for r in reqs:
            print(f"{r.id}\t{r.method} {r.path}\t{r.accept or ''}\t{len(r.body or b'')}")
        return 0
    if not a.old or not a.new:
        ap.error("--old and --new are required")
    for b in (a.old, a.new):
        if not os.access(b, os.X_OK):
            ap.error(f"{b}: not an executable")
    try:
        expected = load_expected(a.expected) if os.path.exists(a.expected) else []
    except ValueError as e:
        sys.stderr.write(f"replay: {e}\n")
        return 2
    out = a.out or tempfile.mkdtemp(prefix="replay-")
    os.makedirs(os.path.join(out, "diffs"), exist_ok=True)
    t0 = time.monotonic()
    daemons = []
    try:
        daemons.append(Daemon("old", a.old, a.old_root or tree_of(a.old), out))
        daemons.append(Daemon("new", a.new, a.new_root or tree_of(a.new), out))
    except RuntimeError as e:
        for d in daemons:
            d.stop()
        sys.stderr.write(f"replay: {e}\n")
        return 2
    old_d, new_d = daemons
    results = []
    try:
        for r in reqs:
            if r.id == "final/metrics":
                time.sleep(0.3)  # let the last requests' completion callbacks count them
            results.append((r, old_d.send(r), new_d.send(r)))
    finally:
        for d in daemons:
            d.stop()
    secs = time.monotonic() - t0

    by_source = {}
    n_bodies = n_200 = n_diff = n_expected = 0
    used = [0] * len(expected)
    lines, tsv = [], ["id\tmethod\tpath\taccept\tbody_bytes\told_status\tnew_status\tverdict"]
    for k, (r, o, n) in enumerate(results):
        s = by_source.setdefault(r.source, {"requests": 0, "answered_200": 0, "with_body": 0,
                                            "with_body_200": 0})
        s["requests"] += 1
        if o[0] == 200 and n[0] == 200:
            n_200 += 1
            s["answered_200"] += 1
        if r.body is not None:
            s["with_body"] += 1
            s["with_body_200"] += o[0] == 200 and n[0] == 200
        if r.method != "HEAD":
            n_bodies += 1
        parts, details = compare(r, o, n)
        verdict = "same"
        if parts:
            n_diff += 1
            # each differing part explained by a matching entry whose `new` values hold (one
            # entry may explain all of them, or several entries a part each: a change made to
            # every answer, such as a header, and a change of this route's body)
            ok = [i for i, e in enumerate(expected) if entry_matches(e, r) and entry_new_ok(e, n)]
            hit = [i for i in ok if any(entry_allows(expected[i], p) for p in parts)]
            if parts and all(any(entry_allows(expected[i], p) for i in ok) for p in parts):
                n_expected += 1
                for i in hit:
                    used[i] += 1
                verdict = "expected"
            else:
                verdict = "DIFFERENT"
            tag = f"{k:05d}"
            for side, resp in (("old", o), ("new", n)):
                with open(os.path.join(out, "diffs", f"{tag}.{side}.body"), "wb") as f:
                    f.write(resp[2])
            lines.append(f"--- {verdict}: {r.id}")
            lines.append(f"    request: {r.method} {r.path}  headers {r.headers}  body "
                         f"{len(r.body or b'')} bytes{': ' + repr(r.body[:120]) if r.body else ''}")
            if hit:
                lines.append(f"    allowed by expected_diffs.json entry {hit[0]}: "
                             f"{expected[hit[0]]['why']}")
            lines += ["    " + d for d in details]
            lines.append(f"    bodies: diffs/{tag}.old.body, diffs/{tag}.new.body")
        tsv.append(f"{r.id}\t{r.method}\t{r.path}\t{r.accept or ''}\t{len(r.body or b'')}\t"
                   f"{o[0]}\t{n[0]}\t{verdict}")
    unused = [i for i, c in enumerate(used) if c == 0]
    summary = (f"replay: {len(results)} requests, {n_bodies} bodies compared, {n_200} answered "
               f"200, {n_diff} differences ({n_expected} expected)")

    def share(n200, n):
        return f"{n} bodies, {n200} answered 200 ({100.0 * n200 / max(n, 1):.1f} %)"

    fz = by_source.get("fuzz", {"with_body": 0, "with_body_200": 0})
    gen = by_source.get("generated", {"with_body": 0, "with_body_200": 0})
    head = [summary,
            f"old: {a.old} (served tree {old_d.root})", f"new: {a.new} (served tree {new_d.root})",
            f"runtime: {secs:.1f} s",
            "requests with a body: " + share(sum(s["with_body_200"] for s in by_source.values()),
                                             sum(s["with_body"] for s in by_source.values()))
            + "; fuzz corpora: " + share(fz["with_body_200"], fz["with_body"]),
            "fuzz corpora and generated valid bodies together: "
            + share(fz["with_body_200"] + gen["with_body_200"], fz["with_body"] + gen["with_body"]),
            "by source: " + ", ".join(f"{k} {v['requests']} ({v['answered_200']} x 200)"
                                      for k, v in by_source.items()),
            "normalisations:"] + [f"  - {w}: {why}" for w, why in NORMALISATIONS]
    for i in unused:
        head.append(f"UNUSED expected_diffs.json entry {i} (matched no difference): "
                    f"{json.dumps(expected[i]['match'])}")
    with open(os.path.join(out, "report.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(head + [""] + lines) + "\n")
    with open(os.path.join(out, "requests.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(tsv) + "\n")
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump({"requests": len(results), "bodies_compared": n_bodies, "answered_200": n_200,
                   "differences": n_diff, "expected": n_expected, "runtime_s": round(secs, 1),
                   "by_source": by_source, "unused_expected": unused}, f, indent=1)
    print("\n".join(head[:7]))
    for l in lines[:40]:
        print(l)
    if len(lines) > 40:
        print(f"... {len(lines) - 40} more lines in {out}/report.txt")
    print(f"report: {out}/report.txt")
    print(summary)
    if n_diff > n_expected:
        return 1
    if unused and not a.allow_unused:
        print("replay: expected differences that did not happen (see report); "
              "--allow-unused to accept")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
