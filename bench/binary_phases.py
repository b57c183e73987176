#!/usr/bin/env python3
"""Where a binary /rope request's time goes (issue 16): upload and download apart, and the CPU of
each side, for several daemons interleaved request by request.

    /usr/bin/python3 bench/binary_phases.py [--shape B H T D] [-n 10] DAEMON [DAEMON ...]

DAEMON is a posencd binary, optionally followed by its extra arguments after '|', e.g.
"build/posencd|--sendfile-min-bytes|1". Each daemon is started on an ephemeral loopback port with
its own spool directory; then, n times, each daemon in turn answers the same multipart POST /rope
(float32 q and k of the shape, [B, H, T, D], seed 16) with the client's own reader
(posenc._http.read_body, the answer into one numpy buffer). Printed per daemon: CPU per request
(this client's process time; the daemon's utime + stime from /proc), and min / median of the
total, of the upload (until the answer's headers arrive: the body sent, rotated and spooled, the
answer laid out) and of the download (the answer's bytes read).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))

from binary_rope import cpu_seconds  # noqa: E402
from posenc._binary import MultipartBody  # noqa: E402
from posenc._http import read_body, session_for  # noqa: E402


def start(spec: str) -> tuple[subprocess.Popen, int]:
    binary, *extra = spec.split("|")
    tmp = tempfile.mkdtemp(prefix="posenc-phases-")
    p = subprocess.Popen([binary, "--bind", "127.0.0.1", "--port", "0", "--web-dir", "", "--data-dir", tmp,
                          "--spool-dir", tmp] + extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.stdout is not None
    for line in p.stdout:
        if "listening on" in line:
            return p, int(line.rsplit(":", 1)[1])
    raise RuntimeError(f"{binary} did not start")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("daemons", nargs="+")
    ap.add_argument("--shape", nargs=4, type=int, default=[1, 32, 4096, 128])
    ap.add_argument("-n", type=int, default=10)
    a = ap.parse_args()
    rng = np.random.default_rng(16)
    q = rng.standard_normal(tuple(a.shape), dtype=np.float32)
    k = rng.standard_normal(tuple(a.shape), dtype=np.float32)
    runs = []
    for spec in a.daemons:
        d, port = start(spec)
        runs.append((spec, d, port, session_for(f"http://127.0.0.1:{port}"), []))
    try:
        for _ in range(a.n):
            for spec, d, port, s, res in runs:
                body = MultipartBody({"tensor_layout": "bhtd", "head_dim": a.shape[3]}, {"q": q, "k": k})
                c0, d0 = time.process_time(), cpu_seconds(d.pid)
                t0 = time.perf_counter()
                r = s.post(f"http://127.0.0.1:{port}/rope", data=body, stream=True,
                           headers={"Content-Type": body.content_type, "Accept": "application/x-npz"})
                t1 = time.perf_counter()
                buf = read_body(r)
                r.close()
                t2 = time.perf_counter()
                assert r.status_code == 200 and len(buf) > q.nbytes + k.nbytes
                del buf
                res.append((t2 - t0, t1 - t0, t2 - t1, time.process_time() - c0, cpu_seconds(d.pid) - d0))
        print(f"binary_phases {a.shape} float32 q and k, {a.n} interleaved requests each; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        for spec, _, _, _, res in runs:
            cols = list(zip(*res))
            ms = [sorted(c) for c in cols[:3]]
            print(f"  {spec}\n    CPU per request: client {statistics.mean(cols[3]) * 1e3:.0f} ms, daemon "
                  f"{statistics.mean(cols[4]) * 1e3:.0f} ms\n    " +
                  " | ".join(f"{name} min {c[0] * 1e3:.0f} med {statistics.median(c) * 1e3:.0f} ms"
                             for name, c in zip(("total", "upload", "download"), ms)))
    finally:
        for _, d, _, _, _ in runs:
            d.terminate()
            d.wait()


if __name__ == "__main__":
    main()
