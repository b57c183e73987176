#!/usr/bin/env python3
"""tests/hostile/concurrent.py -- a daemon under concurrent load, for `make tsan` (and plain runs).

usage: python3 tests/hostile/concurrent.py [--bin build/posencd] [--seconds 20] [--threads 16]
                                           [--sanitizer-log DIR]
--threads clients hammer one daemon (its own data directory, --threads 4 workers) with everything
that shares state between worker threads: the RoPE cache (the same and different configurations,
so hits, misses and evictions race; --cache-bytes is small), PUT / GET / DELETE of the same few
tables while POST /learned and /attention method learned read them, GET /tables, /metrics,
/limits, and malformed requests. Then SIGTERM.
Pass: every status is one the request may get (never a 5xx), no transport errors, exit code 0
after SIGTERM, and, with --sanitizer-log DIR (the daemon gets TSAN_OPTIONS/ASAN_OPTIONS
log_path=DIR/report), no sanitizer report files; with --valgrind the daemon runs under memcheck
and any error or definite/indirect leak makes its exit code 99.
Standard library only; all traffic to 127.0.0.1.
"""
import argparse
import glob
import json
import os
import random
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import Daemon, connect, read_response  # noqa: E402


def npy_bytes(rows, cols, seed):
    d = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    text = d.encode() + b" " * ((64 - (10 + len(d) + 1) % 64) % 64) + b"\n"
    vals = [((seed * 31 + i) % 97) / 97.0 - 0.5 for i in range(rows * cols)]
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + struct.pack(
        "<%dd" % len(vals), *vals)


def ops(rnd):
    """One random request: (method, path, headers, body, acceptable statuses)."""
    r = rnd.random()
    name = "cc%d" % rnd.randrange(4)
    j = {"Content-Type": "application/json"}
    if r < 0.25:
        hd = rnd.choice([8, 16, 64, 128])
        body = {"head_dim": hd, "seq_len": rnd.randrange(1, 300),
                "base": rnd.choice([10000, 500000, 1e6])}
        if rnd.random() < 0.3:
            body["scaling"] = {"type": "linear", "factor": rnd.choice([2, 4])}
        return "POST", "/rope", j, json.dumps(body).encode(), (200,)
    if r < 0.35:
        return ("POST", "/sinusoidal", j,
                json.dumps({"d_model": rnd.choice([4, 32, 64]), "seq_len": 32}).encode(), (200,))
    if r < 0.42:
        return ("POST", "/alibi", j, json.dumps({"num_heads": 8, "seq_len": 16}).encode(), (200,))
    if r < 0.50:
        rows, cols = rnd.choice([(4, 4), (16, 8), (64, 16)])
        return ("PUT", "/tables/" + name, {"Content-Type": "application/x-npy"},
                npy_bytes(rows, cols, rnd.randrange(1000)), (200, 201))
    if r < 0.55:
        return "DELETE", "/tables/" + name, {}, b"", (204, 404)
    if r < 0.62:
        return "GET", "/tables/" + name, {"Accept": "application/x-npy"}, b"", (200, 404)
    if r < 0.72:
        body = {"table": rnd.choice([name, "demo-512x64"]), "seq_len": 4, "extend": "copy"}
        return "POST", "/learned", j, json.dumps(body).encode(), (200, 422)
    if r < 0.77:
        body = {"q": [[1, 0, 0, 1]] * 3, "k": [[0, 1, 1, 0]] * 3,
                "method": {"learned": {"table": name, "extend": "copy"}}}
        return "POST", "/attention", j, json.dumps(body).encode(), (200, 422)
    if r < 0.82:
        return "GET", "/tables", {}, b"", (200,)
    if r < 0.88:
        return "GET", "/metrics", {}, b"", (200,)
    if r < 0.92:
        return "GET", "/limits", {}, b"", (200,)
    return "POST", "/rope", j, rnd.choice([b"{", b"[" * 3000, b'{"head_dim": 3}']), (400, 422)


def client(port, stop, seed, out):
    rnd = random.Random(seed)
    sock = None
    n = 0
    while not stop.is_set():
        method, path, hdrs, body, ok = ops(rnd)
        raw = ("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n" %
               (method, path, len(body))).encode()
        raw += b"".join(("%s: %s\r\n" % kv).encode() for kv in hdrs.items()) + b"\r\n" + body
        try:
            if sock is None:
                sock = connect(port, timeout=60)
            sock.sendall(raw)
            st, h, b = read_response(sock, timeout=60)
            n += 1
            if st not in ok:
                out["bad"].append("%s %s -> %d %r" % (method, path, st, b[:200]))
            if h.get("connection", "").lower() == "close":
                sock.close()
                sock = None
        except Exception as e:  # noqa: BLE001
            out["transport"].append("%s %s: %r" % (method, path, e))
            if sock:
                sock.close()
            sock = None
    if sock:
        sock.close()
    with out["lock"]:
        out["n"] += n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=common.default_bin())
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--sanitizer-log", default=None)
    ap.add_argument("--valgrind", action="store_true",
                    help="run the daemon under valgrind memcheck (errors or definite/indirect "
                         "leaks -> exit code 99)")
    a = ap.parse_args()
    prefix = []
    if a.valgrind:
        prefix = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
                  "--errors-for-leak-kinds=definite,indirect", "--show-leak-kinds=definite,indirect"]
    env = {}
    if a.sanitizer_log:
        os.makedirs(a.sanitizer_log, exist_ok=True)
        for f in glob.glob(os.path.join(a.sanitizer_log, "report*")):
            os.unlink(f)
        path = os.path.join(os.path.abspath(a.sanitizer_log), "report")
        env["TSAN_OPTIONS"] = "log_path=%s:second_deadlock_stack=1:%s" % (
            path, os.environ.get("TSAN_OPTIONS", ""))
        env["ASAN_OPTIONS"] = "log_path=%s:%s" % (path, os.environ.get("ASAN_OPTIONS", ""))
    data = tempfile.mkdtemp(prefix="posenc-concurrent-")
    d = Daemon(a.bin, ["--threads", "4", "--data-dir", data, "--cache-bytes", "262144",
                       "--cache-positions", "256"], env=env, start_timeout=60,
               prefix=prefix)
    out = {"bad": [], "transport": [], "n": 0, "lock": threading.Lock()}
    stop = threading.Event()
    ths = [threading.Thread(target=client, args=(d.port, stop, i, out)) for i in range(a.threads)]
    t0 = time.monotonic()
    for t in ths:
        t.start()
    time.sleep(a.seconds)
    stop.set()
    for t in ths:
        t.join(120)
    secs = time.monotonic() - t0
    rc = d.stop(timeout=60)
    log = d.log_text()
    d.cleanup()
    for f in glob.glob(os.path.join(data, "*")) + glob.glob(os.path.join(data, ".*")):
        os.unlink(f)
    os.rmdir(data)
    reports = sorted(glob.glob(os.path.join(a.sanitizer_log, "report*"))) if a.sanitizer_log \
        else []
    problems = []
    if out["bad"]:
        problems.append("%d unexpected statuses, e.g. %s" % (len(out["bad"]), out["bad"][:3]))
    if out["transport"]:
        problems.append("%d transport errors, e.g. %s" % (len(out["transport"]),
                                                         out["transport"][:3]))
    if rc != 0:
        problems.append("exit code %s after SIGTERM" % rc)
    if reports:
        problems.append("%d sanitizer report file(s): %s" % (len(reports), reports))
        for f in reports[:2]:
            with open(f) as fh:
                print(fh.read()[:6000])
    if a.valgrind and "==" in log:
        print(log[-6000:])
    if "ThreadSanitizer" in log or "AddressSanitizer" in log:
        problems.append("sanitizer output in the daemon log")
        print(log[-6000:])
    print("concurrent: %d requests from %d threads in %.1f s (%.0f/s), exit code %s" %
          (out["n"], a.threads, secs, out["n"] / secs, rc))
    print("concurrent: %s" % ("PASS" if not problems else "FAIL: " + "; ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
