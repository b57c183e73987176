"""tests/hostile/compute_queue.py -- the bounded compute queue and a truthful /healthz (issue 19), run by
hostile.py.

--compute-threads 1 --max-queue-depth 1 --stuck-seconds 1: three /attention requests of several
seconds of computation each (1536 x 1536 x 1024), each sent once the daemon holds the previous one: the first runs, the second waits in the queue,
the third is refused at once with 503 overloaded and Retry-After: 1. While one computation has run
longer than a second, /healthz answers 503 (fast); once all are done it answers 200 again.
/metrics shows the queue's depth, bound and refusals.
With --inline-work 16384 (issue 16): a tiny /rope sent while the two are held is not answered on
the HTTP thread (others compute) but goes to the full queue: 503 overloaded; once they are done it
is answered (200). Made to fail once: the daemon before the rule (every tiny request inline)
answered the first one 200.
"""
import json
import re
import threading
import time

from common import request

ARGS = ["--compute-threads", "1", "--max-queue-depth", "1", "--stuck-seconds", "1", "--inline-work", "16384",
        "--max-work", "100000000000", "--max-output-elements", "100000000",
        "--max-parse-bytes", "1073741824"]


def _metric(port, name):
    m = request(port, "GET", "/metrics")[2].decode()
    v = re.search(r"^%s (\d+)$" % name, m, re.M)
    return int(v.group(1)) if v else -1


def _body(n=1536, d=1024):
    row = "[" + ",".join(["1"] * d) + "]"
    m = "[" + ",".join([row] * n) + "]"
    return ('{"q":%s,"k":%s,"method":"none","causal":true}' % (m, m)).encode()


# A tiny /rope (head_dim 8, 2 positions, q: 80 work units), inline-sized for --inline-work 16384.
TINY = b'{"head_dim": 8, "positions": [0, 1], "q": [1, 0, 0, 0, 0, 0, 0, 0]}'
JSON = {"Content-Type": "application/json"}


def t_queue(binary):
    from hostile import Daemon, check
    d = Daemon(binary, ARGS)
    try:
        body = _body()
        res = [None] * 3

        def go(i):
            res[i] = request(d.port, "POST", "/attention", body,
                             {"Content-Type": "application/json", "Accept": "application/x-npy"},
                             timeout=120)
        ths = [threading.Thread(target=go, args=(i,)) for i in range(3)]
        health, t0 = [], time.monotonic()
        # each next request once the daemon holds the previous one (running, then queued), so the
        # order does not depend on how fast this machine parses and computes
        for i, th in enumerate(ths):
            th.start()
            want = ("posenc_compute_busy_threads", 1) if i == 0 else ("posenc_compute_queue_depth", 1)
            while i < 2 and _metric(d.port, want[0]) < want[1] and time.monotonic() - t0 < 30:
                time.sleep(0.02)
        # both held (one running, one queued): a tiny request is not answered inline
        tiny_busy = request(d.port, "POST", "/rope", TINY, JSON, timeout=30)
        while any(th.is_alive() for th in ths) and time.monotonic() - t0 < 100:
            st, _, b, secs = request(d.port, "GET", "/healthz")
            health.append((st, secs))
            time.sleep(0.1)
        for th in ths:
            th.join(10)
        statuses = [r[0] for r in res]
        check(tiny_busy[0] == 503 and b"overloaded" in tiny_busy[2],
              "a tiny /rope while the queue was full: %d %s" % (tiny_busy[0], tiny_busy[2][:120]))
        tiny_idle = request(d.port, "POST", "/rope", TINY, JSON, timeout=30)
        check(tiny_idle[0] == 200, "a tiny /rope once idle: %d %s" % (tiny_idle[0], tiny_idle[2][:120]))
        check(sorted(statuses) == [200, 200, 503], "statuses %s" % statuses)
        r503 = res[statuses.index(503)]
        check(r503[1].get("retry-after") == "1", "503 without Retry-After: 1: %s" % r503[1])
        check(json.loads(r503[2])["type"] == "urn:posenc:problem:overloaded", r503[2][:200])
        check(r503[3] < 1.0, "the refusal took %.2f s" % r503[3])
        check(any(st == 503 for st, _ in health), "/healthz never failed: %s" % health[:10])
        worst = max(s for _, s in health)
        check(worst < 0.5, "/healthz took %.3f s" % worst)
        st = request(d.port, "GET", "/healthz")[0]
        check(st == 200, "/healthz after the computations: %d" % st)
        m = request(d.port, "GET", "/metrics")[2].decode()
        full = re.search(r"^posenc_compute_queue_full_total (\d+)$", m, re.M)
        depth = re.search(r"^posenc_compute_queue_depth (\d+)$", m, re.M)
        check(full and full.group(1) == "2" and depth and depth.group(1) == "0",
              "metrics: full %s depth %s" % (full and full.group(1), depth and depth.group(1)))
        return ("3 computations with 1 thread and a queue of 1: statuses %s (refusal in %.0f ms); "
                "/healthz %d x 503 then 200, slowest %.1f ms; tiny /rope %d while held, %d after"
                % (statuses, r503[3] * 1e3, sum(1 for st, _ in health if st == 503),
                   worst * 1e3, tiny_busy[0], tiny_idle[0]))
    finally:
        d.cleanup()


TESTS = {"queue": t_queue}
DEADLINE = {"queue": 120}
