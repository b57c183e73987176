#!/usr/bin/env python3
"""Real tensors end to end (issue 16): q and k rotated by posencd over loopback vs numpy in-process
vs the loopback floor, one interleaved run.

    /usr/bin/python3 bench/binary_rope.py [B H T D] [--bin build/posencd] [--rounds 5]

For float32 q and k of shape [B, H, T, D] (default [1, 32, 4096, 128], Hugging Face's attention
layout, seed 16), each round times, in this order:

- posenc: ``posenc.Client.rope(q, k, tensor_layout="bhtd", dtype="float32")`` against a fresh
  posencd started here (numpy arrays in, numpy arrays out: the multipart request with .npy parts,
  the .npz answer read in place);
- numpy: bench/hf_rope_numpy.py's ``apply_rotary_pos_emb`` on the same arrays in this process
  (cos/sin computed in the call);
- floor: the same request body sent to a trivial sink (a second process that reads the body and
  answers a prebuilt body of the .npz's size), the answer read by the client's own reader
  (posenc._http.read_body): the bytes moved up and down by the same client stack, nothing
  computed.

Prints the best of the rounds for each, the ratios (numpy / posenc: > 1 means posenc is faster;
floor / posenc: the share of the transport floor), the daemon's VmHWM (/proc/PID/status) and its
spool peak (GET /metrics, posenc_spool_peak_bytes). posenc's answer is checked against numpy's
(float32: max |difference| <= 1e-5 * max |q|) before anything is timed.
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))

import requests  # noqa: E402

import posenc  # noqa: E402
from hf_rope_numpy import apply_rotary_pos_emb  # noqa: E402
from posenc._binary import MultipartBody  # noqa: E402
from posenc._http import read_body  # noqa: E402


def sink(port_file: str, answer_bytes: int) -> None:
    """The floor's server: HTTP/1.1 keep-alive, reads each body (Content-Length), answers
    answer_bytes of zeros. Runs in its own process (python3 binary_rope.py --sink FILE N)."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(4)
    with open(port_file, "w") as f:
        f.write(str(ls.getsockname()[1]))
    body = bytes(answer_bytes)
    head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/x-npz\r\nContent-Length: {answer_bytes}\r\n\r\n").encode()
    buf = bytearray(1 << 20)
    while True:
        c, _ = ls.accept()
        pending = b""
        while True:
            while b"\r\n\r\n" not in pending:
                chunk = c.recv(65536)
                if not chunk:
                    break
                pending += chunk
            if b"\r\n\r\n" not in pending:
                break
            hdr, _, rest = pending.partition(b"\r\n\r\n")
            n = 0
            for line in hdr.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    n = int(line.split(b":")[1])
            got = len(rest)
            view = memoryview(buf)
            while got < n:
                k = c.recv_into(view, min(len(buf), n - got))
                if k == 0:
                    break
                got += k
            pending = b""
            c.sendall(head)
            c.sendall(body)
        c.close()


def start_daemon(binary: str, data_dir: str) -> tuple[subprocess.Popen, int]:
    p = subprocess.Popen([binary, "--bind", "127.0.0.1", "--port", "0", "--web-dir", "", "--data-dir", data_dir,
                          "--spool-dir", data_dir], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.stdout is not None
    for line in p.stdout:
        if "listening on" in line:
            return p, int(line.rsplit(":", 1)[1])
    raise RuntimeError("posencd did not start")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (/proc/PID/stat), seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def vm_hwm_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("shape", nargs="*", type=int, default=[1, 32, 4096, 128])
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "posencd"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sink", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.sink:
        sink(a.sink[0], int(a.sink[1]))
        return
    b, h, t, d = a.shape
    rng = np.random.default_rng(16)
    q = rng.standard_normal((b, h, t, d), dtype=np.float32)
    k = rng.standard_normal((b, h, t, d), dtype=np.float32)
    pos = np.arange(t, dtype=np.int64)
    tmp = tempfile.mkdtemp(prefix="posenc-bench-")
    daemon, port = start_daemon(a.bin, tmp)
    sinkp = None
    try:
        client = posenc.Client(f"http://127.0.0.1:{port}", timeout=600)
        r = client.rope(q, k, tensor_layout="bhtd", dtype="float32")
        # posenc's float32 answer is the float64 rotation rounded once: check two heads against a
        # float64 numpy rotate_half (cos/sin of numpy may differ from glibc's by an ulp)
        inv = 1.0 / (10000.0 ** (np.arange(0, d, 2) / d))
        emb = np.concatenate([np.outer(pos, inv)] * 2, axis=-1)
        x = q[:, :2].astype(np.float64)
        ref = x * np.cos(emb) + np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1) * np.sin(emb)
        err = float(np.max(np.abs(r.q[:, :2] - ref)))
        assert r.q.dtype == np.float32 and err <= 1e-6 * float(np.max(np.abs(x))), f"posenc is off by {err}"
        qe, _ = apply_rotary_pos_emb(q[:, :2], q[:, :2], pos, 10000.0)
        numpy_err = float(np.max(np.abs(qe - ref)))  # numpy's own float32 error (angles in float32)
        del r, qe, ref, x, emb
        answer = 2 * (q.nbytes + 128 + 30 + 13 + 16 + 46 + 13) + 22  # the .npz of q_rotated and k_rotated
        port_file = os.path.join(tmp, "sink.port")
        sinkp = subprocess.Popen([sys.executable, __file__, "--sink", port_file, str(answer)])
        while not os.path.exists(port_file) or not open(port_file).read():
            time.sleep(0.05)
        sink_url = f"http://127.0.0.1:{open(port_file).read()}/rope"
        session = requests.Session()
        best = {"posenc": float("inf"), "numpy": float("inf"), "floor": float("inf")}
        cpu = {"posenc": float("inf"), "numpy": float("inf"), "client": 0.0, "daemon": 0.0}
        for _ in range(a.rounds):
            t0, c0, d0 = time.perf_counter(), time.process_time(), cpu_seconds(daemon.pid)
            r = client.rope(q, k, tensor_layout="bhtd", dtype="float32")
            best["posenc"] = min(best["posenc"], time.perf_counter() - t0)
            cc, dc = time.process_time() - c0, cpu_seconds(daemon.pid) - d0
            if cc + dc < cpu["posenc"]:
                cpu.update(posenc=cc + dc, client=cc, daemon=dc)
            del r
            t0, c0 = time.perf_counter(), time.process_time()
            qe, ke = apply_rotary_pos_emb(q, k, pos, 10000.0)
            best["numpy"] = min(best["numpy"], time.perf_counter() - t0)
            cpu["numpy"] = min(cpu["numpy"], time.process_time() - c0)
            del qe, ke
            t0 = time.perf_counter()
            body = MultipartBody({"tensor_layout": "bhtd", "head_dim": d}, {"q": q, "k": k})
            resp = session.post(sink_url, data=body, headers={"Content-Type": body.content_type}, stream=True)
            buf = read_body(resp)  # the client's own reader of an answer (posenc/_http.py)
            resp.close()
            best["floor"] = min(best["floor"], time.perf_counter() - t0)
            assert len(buf) == answer
            del buf
        metrics = requests.get(f"http://127.0.0.1:{port}/metrics").text
        peak = next(int(line.split()[1]) for line in metrics.splitlines()
                    if line.startswith("posenc_spool_peak_bytes "))
        hwm = vm_hwm_kib(daemon.pid)
        mib = (q.nbytes + k.nbytes) / 2**20
        print(f"binary_rope [{b}, {h}, {t}, {d}] float32 q and k ({mib:.0f} MiB up, {mib:.0f} MiB down), "
              f"best of {a.rounds} interleaved rounds:")
        for key in ("posenc", "numpy", "floor"):
            print(f"  {key:7s} {best[key] * 1e3:8.1f} ms")
        print(f"  numpy / posenc = {best['numpy'] / best['posenc']:.2f} (> 1: posenc faster end to end)")
        print(f"  CPU seconds (best round): posenc {cpu['posenc']:.2f} (client {cpu['client']:.2f} + daemon "
              f"{cpu['daemon']:.2f}), numpy "
              f"{cpu['numpy']:.2f}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"  floor / posenc = {best['floor'] / best['posenc']:.2f} (share of the loopback floor)")
        print(f"  posencd VmHWM {hwm / 1024:.1f} MiB, spool peak {peak / 2**20:.0f} MiB")
        print(f"  max |error| against float64 (2 heads): posenc {err:.2g}, numpy float32 {numpy_err:.2g}")
    finally:
        if sinkp is not None:
            sinkp.kill()
        daemon.terminate()
        daemon.wait()


if __name__ == "__main__":
    main()
