#!/usr/bin/env python3
"""tests/soak/soak.py -- mixed load against one posencd for a while (issue 9, `make soak`).

usage: python3 tests/soak/soak.py [--bin build/posencd] [--seconds 600] [--clients 8]
                                  [--warmup S] [--json out.json]
Load: --clients threads, each on its own keep-alive connection (reopened when the server closes
it), picking requests at random: 70 % small valid (every compute route), 10 % large valid
(responses of 0.13-0.26 M numbers, 2.5-5 MB of JSON), 20 % invalid (malformed JSON, 422s, unknown fields, 404, 405,
deep nesting, a declared body over the cap -> 413). Every answer is checked against the status
its kind must get.
Pass: 0 responses with status >= 500, 0 unexpected statuses, 0 transport errors, and the
daemon's RSS (/proc, sampled every 10 s) stays within 10 % after warm-up (max/min of the samples
taken after --warmup seconds, default min(120, seconds/5)). Prints the figures (requests, rate,
p50/p90/p99/max latency overall and per kind, RSS samples) and exits 1 on failure.
Standard library only; all traffic to 127.0.0.1.
"""
import argparse
import json
import os
import random
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "hostile"))
from common import Daemon, connect, read_response  # noqa: E402

SMALL = [
    ("/sinusoidal", {"d_model": 16, "seq_len": 8}),
    ("/sinusoidal", {"d_model": 64, "positions": [0, 5, 99, 1000]}),
    ("/rope", {"head_dim": 64, "seq_len": 16}),
    ("/rope", {"head_dim": 128, "base": 500000, "seq_len": 8,
               "scaling": {"type": "llama3", "factor": 8, "low_freq_factor": 1,
                           "high_freq_factor": 4, "original_max_position_embeddings": 8192}}),
    ("/rope", {"head_dim": 64, "seq_len": 4, "scaling": {"type": "yarn", "factor": 4,
                                                         "original_max_position_embeddings": 2048}}),
    ("/alibi", {"num_heads": 8, "seq_len": 8}),
    ("/t5/buckets", {"query_positions": [0, 1, 2, 3], "key_positions": [0, 1, 2, 3]}),
    ("/attention", {"q": [[1, 0, 0, 1], [0, 1, 1, 0]], "k": [[1, 0, 0, 1], [0, 1, 1, 0]],
                    "causal": True}),
]
LARGE = [  # 0.13 - 0.26 M numbers, 2.5 - 5 MB of JSON each
    ("/sinusoidal", {"d_model": 512, "seq_len": 512}),
    ("/sinusoidal", {"d_model": 256, "seq_len": 512}),
    ("/rope", {"head_dim": 128, "seq_len": 1024, "include": ["cos_sin"]}),
    ("/alibi", {"num_heads": 16, "seq_len": 128}),
]
INVALID = [
    ("POST", "/sinusoidal", b'{"d_model": 8, "seq_len": ', 400),
    ("POST", "/sinusoidal", b'{"d_model": -1, "seq_len": 4}', 422),
    ("POST", "/rope", b'{"head_dim": 7, "seq_len": 4}', 422),
    ("POST", "/rope", b'{"head_dim": 8, "sacling": {}}', 422),
    ("POST", "/alibi", b'{"num_heads": 8, "seq_len": 100000000}', 422),
    ("POST", "/attention", b"[" * 5000, 400),
    ("POST", "/t5/buckets", b'{"a": 1, "a": 2}', 400),
    ("GET", "/no/such/route", b"", 404),
    ("GET", "/rope", b"", 405),
    ("POST", "/sinusoidal", b"\xff\xfe\x00garbage", 400),
]


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.lat = {"small": [], "large": [], "invalid": [], "too_large": []}
        self.status = {}
        self.s5xx = 0
        self.unexpected = []
        self.transport = []
        self.bytes = 0

    def add(self, kind, st, want, secs, nbytes):
        with self.lock:
            self.lat[kind].append(secs)
            self.status[st] = self.status.get(st, 0) + 1
            self.bytes += nbytes
            if st >= 500:
                self.s5xx += 1
            if st != want and len(self.unexpected) < 50:
                self.unexpected.append((kind, st, want))


def worker(port, stop, stats, seed):
    rnd = random.Random(seed)
    sock = None
    while not stop.is_set():
        r = rnd.random()
        close_after = False
        if r < 0.70:
            kind, (path, body) = "small", rnd.choice(SMALL)
            method, raw, want = "POST", json.dumps(body).encode(), 200
        elif r < 0.80:
            kind, (path, body) = "large", rnd.choice(LARGE)
            method, raw, want = "POST", json.dumps(body).encode(), 200
        elif r < 0.995:
            kind = "invalid"
            method, path, raw, want = rnd.choice(INVALID)
        else:
            kind, method, path, raw, want = "too_large", "POST", "/rope", None, 413
            close_after = True
        try:
            if sock is None:
                sock = connect(port, timeout=30)
            if raw is None:  # declared length over the cap: the server answers and closes
                head = ("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
                        "\r\nContent-Length: %d\r\n\r\n" % (path, 1 << 30)).encode()
            else:
                head = ("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        "Content-Length: %d\r\n\r\n" % (method, path, len(raw))).encode() + raw
            t0 = time.monotonic()
            sock.sendall(head)
            st, h, b = read_response(sock, timeout=30)
            secs = time.monotonic() - t0
            stats.add(kind, st, want, secs, len(b))
            if close_after or h.get("connection", "").lower() == "close":
                sock.close()
                sock = None
        except (OSError, ConnectionError, ValueError, IndexError) as e:
            with stats.lock:
                if len(stats.transport) < 50:
                    stats.transport.append("%s %s: %r" % (kind, path, e))
                else:
                    stats.transport.append("...")
            if sock:
                sock.close()
            sock = None
    if sock:
        sock.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=None)
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("SOAK_SECONDS", 600)))
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--warmup", type=float, default=None)
    ap.add_argument("--json", default=None, help="write the figures here as JSON")
    a = ap.parse_args()
    warm = a.warmup if a.warmup is not None else min(120.0, a.seconds / 5)
    d = Daemon(a.bin, [])
    stats = Stats()
    stop = threading.Event()
    samples = []  # (t, VmRSS kB)
    t0 = time.monotonic()
    ths = [threading.Thread(target=worker, args=(d.port, stop, stats, i), daemon=True)
           for i in range(a.clients)]
    for t in ths:
        t.start()
    try:
        next_sample = 0.0
        while True:
            now = time.monotonic() - t0
            if now >= next_sample:
                if not d.alive():
                    break
                samples.append((round(now, 1), d.status("VmRSS")))
                next_sample += 10.0
            if now >= a.seconds:
                break
            time.sleep(min(0.5, max(0.0, next_sample - now)))
        stop.set()
        for t in ths:
            t.join(40)
        alive = d.alive()
        if alive:
            samples.append((round(time.monotonic() - t0, 1), d.status("VmRSS")))
        hwm = d.status("VmHWM") if alive else -1
        rc = d.stop() if alive else d.proc.returncode
    finally:
        d.cleanup()
    elapsed = time.monotonic() - t0
    after = [rss for t, rss in samples if t >= warm]
    rss_ratio = (max(after) / min(after)) if after and min(after) > 0 else float("nan")
    all_lat = [x for v in stats.lat.values() for x in v]
    n = len(all_lat)
    fig = {
        "seconds": round(elapsed, 1), "clients": a.clients, "requests": n,
        "rate_per_s": round(n / elapsed, 1), "bytes_received": stats.bytes,
        "status_counts": {str(k): v for k, v in sorted(stats.status.items())},
        "5xx": stats.s5xx, "unexpected": stats.unexpected[:10],
        "transport_errors": len(stats.transport), "transport_samples": stats.transport[:5],
        "latency_ms": {k: {"n": len(v), "p50": round(pct(v, 50) * 1e3, 2),
                           "p90": round(pct(v, 90) * 1e3, 2), "p99": round(pct(v, 99) * 1e3, 2),
                           "max": round(max(v) * 1e3, 2) if v else None}
                       for k, v in list(stats.lat.items()) + [("all", all_lat)]},
        "rss_kb_samples": samples, "warmup_s": warm,
        "rss_after_warmup_min_kb": min(after) if after else None,
        "rss_after_warmup_max_kb": max(after) if after else None,
        "rss_max_over_min": round(rss_ratio, 4), "vmhwm_kb": hwm,
        "daemon_alive_at_end": alive, "daemon_exit_code": rc,
    }
    problems = []
    if not alive:
        problems.append("the daemon died")
    if stats.s5xx:
        problems.append("%d responses >= 500" % stats.s5xx)
    if stats.unexpected:
        problems.append("%d unexpected statuses, e.g. %s" % (len(stats.unexpected),
                                                            stats.unexpected[:3]))
    if stats.transport:
        problems.append("%d transport errors, e.g. %s" % (len(stats.transport),
                                                         stats.transport[:3]))
    if not after or len(after) < 2:
        problems.append("too few RSS samples after warm-up (run longer than warm-up + 20 s)")
    elif rss_ratio > 1.10:
        problems.append("RSS after warm-up varies by %.1f %% (> 10 %%)" % ((rss_ratio - 1) * 100))
    if rc not in (0, None) and alive:
        problems.append("daemon exit code %s after SIGTERM" % rc)
    fig["pass"] = not problems
    fig["problems"] = problems
    if a.json:
        with open(a.json, "w") as f:
            json.dump(fig, f, indent=1)
    L = fig["latency_ms"]
    print("soak: %.0f s, %d clients, %d requests (%.0f/s), statuses %s, 5xx %d, transport "
          "errors %d" % (elapsed, a.clients, n, fig["rate_per_s"], fig["status_counts"],
                         stats.s5xx, len(stats.transport)))
    for k in ("small", "large", "invalid", "too_large", "all"):
        print("  latency %-9s n=%-7d p50 %8.2f ms  p90 %8.2f ms  p99 %8.2f ms  max %8.2f ms"
              % (k, L[k]["n"], L[k]["p50"], L[k]["p90"], L[k]["p99"], L[k]["max"] or 0))
    print("  RSS kB every 10 s: %s" % " ".join(str(r) for _, r in samples))
    print("  RSS after %.0f s warm-up: min %s max %s (max/min %.3f), VmHWM %s kB"
          % (warm, fig["rss_after_warmup_min_kb"], fig["rss_after_warmup_max_kb"], rss_ratio,
             hwm))
    print("soak: %s%s" % ("PASS" if not problems else "FAIL: ", "; ".join(problems)))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
