#!/usr/bin/env python3
"""tests/hostile/durability.py -- SIGKILL posencd at random points during table uploads (issue 9).

usage: python3 tests/hostile/durability.py [--bin build/posencd] [--uploads 100]
                                           [--replacements 20] [--seed N]
For each of --uploads uploads of new tables plus --replacements uploads that replace one of them
with new contents (PUT /tables/{name}; .npy, JSON and streamed .safetensors bodies in turn,
4 KB ... 1 MB of float64; the replacements are spread among the others),
the daemon is SIGKILLed at a random moment between the first byte of the request and 1.5 x the
median time to the response of a 1 MB upload of that format (calibrated first), so kills land while
the body arrives, while it is parsed, while the file is written and fsynced, and after the
answer. The daemon is then restarted on the same --data-dir and every table uploaded so far is
checked: GET /tables/{name} (Accept: application/x-npy) must give either 404 or exactly the
float64 bytes of one version that was uploaded under that name (SHA-256 of the data), and a
version the client saw acknowledged (200/201) must be there, or a later one. A final pass
checks all tables once more, with POST /learned rows as a second reader.
Prints the count of tables that are complete or absent (must be N/N) and exits 1 otherwise.
Standard library only; all traffic to 127.0.0.1.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import Daemon, connect, read_response, request  # noqa: E402


def values(rows, cols, seed):
    rnd = random.Random(seed)
    return [rnd.uniform(-1, 1) for _ in range(rows * cols)]


def f64(vals):
    return struct.pack("<%dd" % len(vals), *vals)


def body_for(fmt, rows, cols, vals):
    """(content type, query, body bytes)."""
    if fmt == "npy":
        d = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
        text = d.encode() + b" " * ((64 - (10 + len(d) + 1) % 64) % 64) + b"\n"
        return ("application/x-npy", "",
                b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + f64(vals))
    if fmt == "json":
        rowsl = [vals[r * cols:(r + 1) * cols] for r in range(rows)]
        return "application/json", "", json.dumps({"data": rowsl}).encode()
    data = f64(vals)
    hdr = json.dumps({"__metadata__": {"format": "pt"},
                      "wte.weight": {"dtype": "F64", "shape": [rows, cols],
                                     "data_offsets": [0, len(data)]}}).encode()
    return ("application/x-safetensors", "?tensor=wte.weight",
            struct.pack("<Q", len(hdr)) + hdr + data)


def upload(port, name, ctype, query, body, result):
    """Sends the PUT in 64 KiB pieces; result gets 'status' or 'error'."""
    try:
        s = connect(port, timeout=20)
        s.sendall(("PUT /tables/%s%s HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\n"
                   "Content-Length: %d\r\nConnection: close\r\n\r\n"
                   % (name, query, ctype, len(body))).encode())
        for i in range(0, len(body), 65536):
            s.sendall(body[i:i + 65536])
        st, _, b = read_response(s, timeout=20)
        result["status"] = st
        result["body"] = b[:300]
        s.close()
    except (OSError, ConnectionError) as e:
        result["error"] = repr(e)
    result["t"] = time.monotonic()


def fetch(port, name):
    """(status, sha256 of the float64 data or None, rows, cols)."""
    st, h, b, _ = request(port, "GET", "/tables/" + name, headers={"Accept": "application/x-npy"},
                          timeout=20)
    if st != 200:
        return st, None, 0, 0
    if b[:6] != b"\x93NUMPY":
        return -1, None, 0, 0
    major = b[6]
    if major == 1:
        hl = struct.unpack("<H", b[8:10])[0]
        start = 10 + hl
    else:
        hl = struct.unpack("<I", b[8:12])[0]
        start = 12 + hl
    header = b[start - hl:start].decode("latin-1")
    shape = header.split("'shape':")[1].split(")")[0].strip(" (")
    rows, cols = [int(x) for x in shape.split(",") if x.strip()]
    data = b[start:start + rows * cols * 8]
    if len(data) != rows * cols * 8:
        return -2, None, rows, cols
    return st, hashlib.sha256(data).hexdigest(), rows, cols


def learned_sha(port, name, rows, cols):
    """SHA-256 of the float64 rows as POST /learned returns them (a second reader)."""
    st, _, b, _ = request(port, "POST", "/learned",
                          json.dumps({"table": name, "seq_len": rows}).encode(),
                          {"Content-Type": "application/json"}, timeout=30)
    if st != 200:
        return st, None
    m = json.loads(b)["matrix"]
    flat = [x for row in m for x in row]
    return st, hashlib.sha256(f64(flat)).hexdigest()


class Run:
    def __init__(self, binary, data_dir):
        self.binary = binary
        self.data_dir = data_dir
        self.d = None

    def start(self):
        self.d = Daemon(self.binary, ["--data-dir", self.data_dir, "--threads", "2"],
                        start_timeout=30)
        return self.d

    def kill(self):
        if self.d is not None:
            self.d.proc.send_signal(signal.SIGKILL)
            self.d.proc.wait(10)
            log = self.d.log_text()
            self.d.cleanup()
            self.d = None
            return log
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=common.default_bin())
    ap.add_argument("--uploads", type=int, default=100, help="new tables")
    ap.add_argument("--replacements", type=int, default=20,
                    help="further uploads replacing an earlier table")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep", action="store_true", help="keep the data directory")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    data_dir = tempfile.mkdtemp(prefix="posenc-durability-")
    run = Run(a.bin, data_dir)
    fmts = ["npy", "json", "safetensors"]
    versions = {}   # name -> {sha: index of upload}
    acked = {}      # name -> sha of the newest acknowledged version
    problems, skipped_logs = [], []
    phases = {"before": 0, "during": 0, "after": 0}
    # calibration: time to the answer for a 1 MB upload of each format
    d = run.start()
    cal = {}
    for i, fmt in enumerate(fmts * 5):
        vals = values(256, 512, 10_000 + i)
        ct, q, body = body_for(fmt, 256, 512, vals)
        res = {}
        t0 = time.monotonic()
        upload(d.port, "calib%d" % i, ct, q, body, res)
        cal.setdefault(fmt, []).append(res["t"] - t0)
        request(d.port, "DELETE", "/tables/calib%d" % i)
    window = {f: 1.5 * sorted(v)[len(v) // 2] for f, v in cal.items()}
    run.kill()
    print("durability: seed %d, data dir %s, kill windows (1.5 x the median of 5 uploads of "
          "1 MB): %s" % (a.seed, data_dir, ", ".join("%s 0..%.1f ms" % (f, window[f] * 1e3)
                                                    for f in fmts)), flush=True)
    names = []
    total = a.uploads + a.replacements
    replace_at = set(rnd.sample(range(5, total), a.replacements)) if a.replacements else set()
    upload_ok = 0
    for i in range(total):
        if i in replace_at:
            name = rnd.choice(names)  # replace an earlier table
        else:
            name = "dur%03d" % len(names)
            names.append(name)
        rows, cols = rnd.choice([(8, 64), (64, 64), (128, 256), (256, 512), (512, 256)])
        vals = values(rows, cols, a.seed * 1000 + i)
        sha = hashlib.sha256(f64(vals)).hexdigest()
        versions.setdefault(name, {})[sha] = i
        fmt = fmts[i % 3]
        ct, q, body = body_for(fmt, rows, cols, vals)
        d = run.start()
        res = {}
        th = threading.Thread(target=upload, args=(d.port, name, ct, q, body, res))
        delay = rnd.uniform(0, window[fmt])
        t0 = time.monotonic()
        th.start()
        time.sleep(delay)
        log = run.kill()
        t_kill = time.monotonic()
        th.join(30)
        if "status" in res and res["status"] in (200, 201):
            acked[name] = sha
            phases["after" if res["t"] <= t_kill else "during"] += 1
        elif "status" in res:
            problems.append("upload %d (%s, %s) answered %d: %r" % (i, name, fmt, res["status"],
                                                                   res.get("body")))
        else:
            phases["during" if delay > 0.0005 else "before"] += 1
        if "tables:" in log:
            skipped_logs.append(log)
        # restart and check everything uploaded so far
        d = run.start()
        st, got, _, _ = fetch(d.port, name)
        if (st == 404 and name not in acked) or (st == 200 and got in versions[name]):
            upload_ok += 1
        for n in names:
            st, got, _, _ = fetch(d.port, n)
            if st == 404:
                if n in acked:
                    problems.append("after upload %d: %s was acknowledged but is absent" % (i, n))
            elif st == 200:
                if got not in versions[n]:
                    problems.append("after upload %d: %s has contents that were never uploaded"
                                    % (i, n))
                elif n in acked and versions[n][got] < versions[n][acked[n]]:
                    problems.append("after upload %d: %s went back to an older version than the "
                                    "acknowledged one" % (i, n))
            else:
                problems.append("after upload %d: GET %s -> %d" % (i, n, st))
        startup = d.log_text()
        if "tables:" in startup:
            skipped_logs.append(startup)
        run.kill()
        t_total = time.monotonic() - t0
        if (i + 1) % 20 == 0:
            print("  %3d uploads, kill at %.1f ms, %.2f s per round, problems so far %d"
                  % (i + 1, delay * 1e3, t_total, len(problems)), flush=True)
    # final pass, two readers
    d = run.start()
    complete = absent = bad = 0
    for n in names:
        st, got, rows, cols = fetch(d.port, n)
        if st == 404:
            absent += 1
            continue
        ok = st == 200 and got in versions[n]
        if ok:
            st2, got2 = learned_sha(d.port, n, rows, cols)
            ok = st2 == 200 and got2 == got
        if ok:
            complete += 1
        else:
            bad += 1
            problems.append("final: %s -> %d, complete %s" % (n, st, got in versions[n]))
    tmp_left = [f for f in os.listdir(data_dir) if f.startswith(".tmp-")]
    run.kill()
    time.sleep(2.5)  # temp files older than 2 s are removed at start-up
    d = run.start()
    tmp_after = [f for f in os.listdir(data_dir) if f.startswith(".tmp-")]
    run.kill()
    if tmp_after:
        problems.append("temp files left after a restart: %s" % tmp_after)
    print("durability: %d uploads (%d new tables, %d replacements), one SIGKILL each: %d before "
          "the request was sent, %d during it, %d after the answer; %d tables acknowledged"
          % (total, len(names), total - len(names), phases["before"], phases["during"],
             phases["after"], len(acked)))
    print("durability: %d/%d uploads left their table complete (a version that was uploaded) or "
          "absent (never acknowledged) after the kill" % (upload_ok, total))
    if upload_ok != total:
        problems.append("%d uploads left their table in a bad state" % (total - upload_ok))
    print("durability: %d/%d tables complete or absent (%d complete, %d absent, %d corrupt); "
          "temp files before restart %d, after %d; start-up log lines about tables: %d"
          % (complete + absent, len(names), complete, absent, bad, len(tmp_left),
             len(tmp_after), len(skipped_logs)))
    if skipped_logs:
        print("  e.g. " + [ln for ln in skipped_logs[0].splitlines() if "tables:" in ln][0])
    if not a.keep:
        shutil.rmtree(data_dir, ignore_errors=True)
    if problems:
        print("durability: FAIL\n  " + "\n  ".join(problems[:20]))
        return 1
    print("durability: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
