"""tests/hostile/table_store.py -- a table store that scales and has a quota (issue 19), run by
hostile.py.

  store_scale   10,000 tables dropped into the data directory (plain .npy files): start-up
                < 1 s, <= 1 KiB of RSS per stored table, GET /tables first page < 50 ms, and the
                pages (limit / after / next) walk every name once, in order
  store_quota   --max-tables 3 on a directory two daemons share: the 4th table is refused with
                507 insufficient-storage through either daemon, a replacement is not; after a
                DELETE there is room again; --max-store-bytes likewise
  store_memory  a 192 MiB store, the daemon under a 160 MiB address-space limit (prlimit) with
                --table-cache-bytes 32 MiB: it starts and serves every table (87b0423 loaded all
                tables at start-up and could not)
"""
import json
import os
import shutil
import struct
import tempfile
import time

from common import request

JSON = {"Content-Type": "application/json"}


def _npy(rows, cols, value=0.5):
    hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    hdr += " " * (127 - 10 - len(hdr)) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() +
            struct.pack("<d", value) * (rows * cols))


def _rss_after_start(binary, data, Daemon):
    t0 = time.monotonic()
    d = Daemon(binary, ["--data-dir", data, "--threads", "2", "--compute-threads", "1"])
    return d, time.monotonic() - t0


def t_store_scale(binary):
    from hostile import Daemon, check
    root = tempfile.mkdtemp(prefix="posenc-scale-")
    try:
        empty, full = os.path.join(root, "empty"), os.path.join(root, "full")
        os.makedirs(empty)
        os.makedirs(full)
        small = _npy(4, 2)
        n = 10000
        for i in range(n):
            with open(os.path.join(full, "t%05d.npy" % i), "wb") as f:
                f.write(small)
        d0, _ = _rss_after_start(binary, empty, Daemon)
        request(d0.port, "GET", "/tables")
        rss0 = d0.status("VmRSS")
        d0.cleanup()
        d, start = _rss_after_start(binary, full, Daemon)
        try:
            st, _, body, first = request(d.port, "GET", "/tables")
            check(st == 200, "first page: %d %r" % (st, body[:200]))
            page = json.loads(body)
            check(len(page["tables"]) == 100 and page.get("next") == page["tables"][-1]["name"],
                  "first page (default 100): %d tables, next %r" % (len(page["tables"]), page.get("next")))
            names, after, pages, slowest = [], "", 0, 0.0
            while True:
                st, _, body, secs = request(d.port, "GET", "/tables?limit=1000&after=" + after,
                                            timeout=10)
                check(st == 200, "page after %r: %d" % (after, st))
                page = json.loads(body)
                names += [t["name"] for t in page["tables"]]
                pages += 1
                slowest = max(slowest, secs)
                if "next" not in page:
                    break
                after = page["next"]
            rss = d.status("VmRSS")
        finally:
            d.cleanup()
        per = (rss - rss0) * 1024.0 / n
        check(names == sorted(names) and len(names) == len(set(names)) == n + 1,
              "the pages gave %d names (%d distinct), want %d" % (len(names), len(set(names)), n + 1))
        check(start < 1.0, "start-up with %d tables took %.2f s" % (n, start))
        check(first < 0.05, "GET /tables (first page) took %.1f ms" % (first * 1e3))
        check(per <= 1024, "%.0f bytes of RSS per stored table" % per)
        return ("%d tables: start-up %.0f ms, RSS %d -> %d kB (%.0f B per table after listing "
                "them all), GET /tables (first page, 100) %.1f ms, %d pages of 1000, slowest %.1f ms"
                % (n, start * 1e3, rss0, rss, per, first * 1e3, pages, slowest * 1e3))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _put(port, name, rows=2):
    body = json.dumps({"data": [[0.25, -0.5]] * rows}).encode()
    return request(port, "PUT", "/tables/" + name, body, JSON)


def t_store_quota(binary):
    from hostile import Daemon, check
    root = tempfile.mkdtemp(prefix="posenc-quota-")
    a = b = c = None
    try:
        a = Daemon(binary, ["--data-dir", root, "--max-tables", "3"])
        b = Daemon(binary, ["--data-dir", root, "--max-tables", "3"])
        lim = json.loads(request(a.port, "GET", "/limits")[2])
        check(lim.get("max_tables") == 3 and "max_store_bytes" in lim, "/limits: %s" % lim)
        check([_put(a.port, "q1")[0], _put(b.port, "q2")[0], _put(a.port, "q3")[0]] ==
              [201, 201, 201], "the first three tables")
        for d in (a, b):
            st, h, body, _ = _put(d.port, "q4")
            check(st == 507, "the 4th table: %d %r" % (st, body[:200]))
            js = json.loads(body)
            check(js["type"] == "urn:posenc:problem:insufficient-storage" and
                  "max_tables (3)" in js["detail"], js)
        m = request(a.port, "GET", "/metrics")[2].decode()
        for want in ("posenc_store_tables 3\n", "posenc_store_quota_refusals_total 1\n"):
            check(want in m, "/metrics lacks %r" % want)
        check(_put(b.port, "q1", rows=3)[0] == 200, "replacing a table at the quota")
        check(request(b.port, "DELETE", "/tables/q2")[0] == 204, "DELETE")
        check(_put(a.port, "q4")[0] == 201, "after a DELETE through the other daemon")
        c = Daemon(binary, ["--data-dir", root, "--max-store-bytes", "2048"])
        st, _, body, _ = _put(c.port, "q5", rows=64)
        check(st == 507 and b"max_store_bytes (2048)" in body, "max_store_bytes: %d %r"
              % (st, body[:200]))
        return ("--max-tables 3 on a shared directory: the 4th table 507 through both daemons, "
                "replacement 200, room again after a DELETE; /metrics posenc_store_tables 3 and "
                "one quota refusal; --max-store-bytes 2048: 507")
    finally:
        for d in (a, b, c):
            if d:
                d.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def t_store_memory(binary):
    from hostile import Daemon, check
    root = tempfile.mkdtemp(prefix="posenc-mem-")
    d = None
    try:
        big = _npy(2048, 1024)  # 16 MiB
        for i in range(12):
            with open(os.path.join(root, "t%02d.npy" % i), "wb") as f:
                f.write(big)
        args = ["--data-dir", root, "--threads", "2", "--compute-threads", "1",
                "--table-cache-bytes", str(32 << 20)]
        d = Daemon(binary, args, prefix=["prlimit", "--as=%d" % (160 << 20), "--"],
                   start_timeout=20)
        sts = [request(d.port, "GET", "/tables/t%02d" % i, headers={"Accept": "application/x-npy"},
                       timeout=30)[0] for i in range(12)]
        check(sts == [200] * 12, "GET of each table: %s" % sts)
        st, _, body, _ = request(d.port, "POST", "/learned",
                                 b'{"table":"t00","positions":[0,2047]}', JSON)
        check(st == 200, "POST /learned of an evicted table: %d %r" % (st, body[:200]))
        return ("12 x 16 MiB tables (192 MiB) under a 160 MiB address-space limit: started, "
                "every table served, VmHWM %d MiB" % (d.status("VmHWM") // 1024))
    finally:
        if d:
            d.cleanup()
        shutil.rmtree(root, ignore_errors=True)


TESTS = {"store_scale": t_store_scale, "store_quota": t_store_quota,
         "store_memory": t_store_memory}
DEADLINE = {"store_scale": 120, "store_quota": 30, "store_memory": 60}
