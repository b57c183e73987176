"""tests/hostile/uploads.py -- table uploads off the HTTP threads (issue 19), run by hostile.py.

upload_hol: --threads 2 --compute-threads 2; four ~12 MB JSON table uploads at once (jansson's
tree and the fsync used to run on the HTTP threads: /healthz timed out behind them) while a probe
asks /healthz every 50 ms on new connections: every probe is answered, the slowest within 250 ms;
all four tables are stored (201).
"""
import shutil
import tempfile
import threading
import time

from common import request


def t_upload_hol(binary):
    from hostile import Daemon, check
    root = tempfile.mkdtemp(prefix="posenc-hol-")
    d = Daemon(binary, ["--threads", "2", "--compute-threads", "2", "--data-dir", root])
    try:
        row = "[" + ",".join(["0.123456789"] * 1000) + "]"
        body = ('{"data":[' + ",".join([row] * 1000) + "]}").encode()  # 1,000,000 numbers, 12 MB
        res = [None] * 4

        def up(i):
            res[i] = request(d.port, "PUT", "/tables/hol%d" % i, body,
                             {"Content-Type": "application/json"}, timeout=120)[0]
        ths = [threading.Thread(target=up, args=(i,)) for i in range(4)]
        for th in ths:
            th.start()
        lat, errors, t0 = [], [], time.monotonic()
        while any(th.is_alive() for th in ths) and time.monotonic() - t0 < 100:
            try:
                st, _, _, secs = request(d.port, "GET", "/healthz", timeout=5)
                lat.append(secs)
                if st != 200:
                    errors.append(st)
            except Exception as e:  # noqa: BLE001 - a probe that gets no answer counts
                errors.append(repr(e))
            time.sleep(0.05)
        for th in ths:
            th.join(30)
        check(res == [201] * 4, "uploads: %s" % res)
        check(not errors and lat, "/healthz probes failed: %s" % errors[:5])
        lat.sort()
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
        check(lat[-1] < 0.25, "/healthz slowest %.0f ms (p99 %.0f ms)" % (lat[-1] * 1e3, p99 * 1e3))
        return ("4 x %.1f MB JSON uploads with 2 HTTP threads: all 201 after %.1f s; /healthz %d "
                "probes, median %.1f ms, p99 %.1f ms, slowest %.1f ms"
                % (len(body) / 1e6, time.monotonic() - t0, len(lat), lat[len(lat) // 2] * 1e3,
                   p99 * 1e3, lat[-1] * 1e3))
    finally:
        d.cleanup()
        shutil.rmtree(root, ignore_errors=True)


TESTS = {"upload_hol": t_upload_hol}
DEADLINE = {"upload_hol": 150}
