"""tests/hostile/memory.py -- the memory ceiling (docs/operations.md, "Memory ceiling"; issue 19),
run by hostile.py.

  mem_ceiling  a daemon with small limits (2 + 2 threads, 4 MiB bodies and tables, a 16 MiB
               budget, 16 MiB trees, 64 connections) driven at every limit at once: 60 connections
               with 60 KiB of unfinished headers, slow uploads holding the body budget, JSON bodies
               whose trees pass max_parse_bytes ({} entries, nested arrays, small numbers), 40
               clients that ask for a 4 MiB /rope answer and do not read it, .npy table uploads,
               slow readers of those tables, /learned over them, /rope over many configurations (the
               frequency cache). GET /limits' memory_ceiling equals the formula recomputed here from
               the settings it lists, and the daemon's VmHWM stays below it; afterwards it is alive,
               /healthz 200 and the budget gauge back to 0.
  amplify      the default limits: 3 clients sending 16 MiB JSON bodies of {} entries, nested
               arrays and small numbers (twice each) while 8 clients upload 16 MiB JSON tables at
               once (from a child process at nice 10: the clients stand for other machines);
               /healthz probed every 20 ms on new connections: p99 < 50 ms (measured once more
               with a new daemon when it misses: a shared host's load moves the probe's tail);
               the ratio to the p99 measured idle just before, in the same run, is printed, and
               held to <= POSENC_HEALTHZ_RATIO when that is set (`make bench-healthz`: 5, on a
               quiet machine); VmHWM within the ceiling; the daemon's own time per /healthz
               (access log) is printed. POSENC_AMPLIFY_LOAD sets the load generator's priority:
               nice10 (the default), nice19 or idle (SCHED_IDLE), for measuring
               (docs/performance.md, "/healthz under amplify"); the figures name it when it is
               not the default. POSENC_AMPLIFY_PIECE=N sends each body in send() calls of N
               bytes (default 0: one sendall), as a remote client's packets arrive.
"""
import json
import multiprocessing
import os
import re
import shutil
import socket
import struct
import tempfile
import threading
import time

from common import connect, read_response, request

MiB = 1 << 20
KiB = 1 << 10
JSON = {"Content-Type": "application/json"}


def ceiling(lim):
    """The formula of docs/operations.md, from GET /limits' settings (bytes)."""
    t = max(2, lim["threads"])
    k = max(1, lim["compute_threads"])
    terms = {
        "base": 16 * MiB,
        "connections": lim["connection_limit"] * (lim["connection_memory"] + 72 * KiB),
        "inflight": lim["max_inflight_bytes"] + t * (lim["max_body_bytes"] // 2),
        "parse": k * lim["max_parse_bytes"],
        "work": k * (lim["max_parse_bytes"] // 4 + 24 * lim["max_output_elements"] +
                     lim["max_body_bytes"]),
        "tables": lim["table_cache_bytes"] + (t + k) * (lim["max_table_bytes"] // 2 * 3),
        "freq_cache": (1 + k) * lim["cache_bytes"],
    }
    terms["total"] = sum(terms.values())
    return terms


def _limits(port):
    return json.loads(request(port, "GET", "/limits")[2])


def amp_bodies(n):
    """JSON bodies of n bytes whose parsed trees are many times larger: {} entries, nested arrays,
    small numbers (all under "positions", so they reach /rope's parser)."""
    pre, post = b'{"positions":[', b"]}"
    room = n - len(pre) - len(post)
    unit = b"[[[[[[[[0]]]]]]]],"
    return [pre + b"{}," * (room // 3 - 1) + b"{}" + post,
            pre + unit * (room // len(unit)) + b"0" + post,
            pre + b"0," * (room // 2 - 1) + b"0" + post]


def _npy(rows, cols, value=0.25):
    hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    hdr += " " * (127 - 10 - len(hdr)) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() +
            struct.pack("<d", value) * (rows * cols))


def _post(port, path, body, timeout=60):
    """POST body; the status, also when the daemon answers early (413, 503 at the headers) and
    closes while the body is still being sent; a string naming the error otherwise."""
    s = connect(port, timeout=timeout)
    try:
        try:
            s.sendall(("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                       "Content-Length: %d\r\nConnection: close\r\n\r\n" % (path, len(body))
                       ).encode() + body)
        except OSError:
            pass  # refused early: its answer is already here
        return read_response(s, timeout=timeout)[0]
    except Exception as e:  # noqa: BLE001
        return type(e).__name__
    finally:
        s.close()


def _unread(port, raw, box):
    """Sends raw on a connection with a small receive buffer and keeps it open unread."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(raw)
        box.append(s)
    except OSError:
        s.close()


def t_mem_ceiling(binary):
    from hostile import Daemon, check, close_and_drain, gauge
    root = tempfile.mkdtemp(prefix="posenc-mem-")
    args = ["--threads", "2", "--compute-threads", "2", "--max-body-bytes", str(4 * MiB),
            "--max-table-bytes", str(4 * MiB), "--max-inflight-bytes", str(16 * MiB),
            "--max-parse-bytes", str(16 * MiB), "--max-output-elements", str(512 * KiB),
            "--table-cache-bytes", str(8 * MiB), "--cache-bytes", str(4 * MiB),
            "--connection-limit", "64", "--max-queue-depth", "64", "--data-dir", root,
            "--connection-timeout", "60"]
    d = Daemon(binary, args)
    held = []
    try:
        lim = _limits(d.port)
        want = ceiling(lim)
        check(lim.get("memory_ceiling") == want,
              "GET /limits memory_ceiling %s, the formula gives %s" % (lim.get("memory_ceiling"),
                                                                      want))
        statuses = {}
        lock = threading.Lock()

        def note(kind, st):
            with lock:
                statuses.setdefault(kind, {}).setdefault(st, 0)
                statuses[kind][st] += 1

        # tables first: 3 x 4 MiB (.npy), more than the 8 MiB table cache
        for i in range(3):
            st = request(d.port, "PUT", "/tables/m%d" % i, _npy(512, 1024 - 8),
                         {"Content-Type": "application/x-npy"}, timeout=30)[0]
            check(st == 201, "PUT /tables/m%d: %d" % (i, st))
        amps = amp_bodies(4 * MiB - 64)
        big_rope = json.dumps({"head_dim": 128, "seq_len": 4000, "include": ["cos_sin"]}).encode()

        def amp(i):  # trees at max_parse_bytes on both compute threads
            for r in range(6):
                note("amp", _post(d.port, "/rope", amps[(i + r) % 3]))

        def holders():
            # connections holding 58 KiB of unfinished headers (MHD's per-connection memory)
            part = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + b"".join(
                b"X-P%d: %s\r\n" % (i, b"p" * 1000) for i in range(58))
            for _ in range(8):
                _unread(d.port, part, held)
            # an upload sending all of its body but the last byte (the body budget)
            n = 4 * MiB - 64
            _unread(d.port, ("POST /rope HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                             "application/json\r\nContent-Length: %d\r\n\r\n" % n).encode() +
                    b" " * (n - 1), held)
            # 4 MiB answers nobody reads (responses held in the budget), .npy tables likewise
            raw = (b"POST /rope HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
                   b"\r\nContent-Length: %d\r\n\r\n" % len(big_rope)) + big_rope
            for r in range(40):
                _unread(d.port, raw, held)
                if r % 8 == 0:
                    _unread(d.port, b"GET /tables/m%d HTTP/1.1\r\nHost: localhost\r\nAccept: "
                            b"application/x-npy\r\n\r\n" % (r % 3), held)

        def learned():  # stored tables read and used by computations (the table cache)
            for r in range(12):
                body = json.dumps({"table": "m%d" % (r % 3), "seq_len": 256}).encode()
                note("learned", _post(d.port, "/learned", body))

        def freq():  # 40 configurations of 2 MiB each through a 4 MiB frequency cache
            for r in range(40):
                body = json.dumps({"head_dim": 256, "base": 10000 + r, "seq_len": 1024,
                                   "include": ["cos_sin"]}).encode()
                note("freq", _post(d.port, "/rope", body))

        # first the computations (2 clients of amplification bodies: both compute threads at
        # max_parse_bytes), then the clients that hold memory without reading
        ths = ([threading.Thread(target=amp, args=(i,)) for i in range(2)] +
               [threading.Thread(target=f) for f in (learned, freq)])
        for th in ths:
            th.start()
        for th in ths:
            th.join(120)
        holders()
        time.sleep(1.0)
        hwm_kb = d.status("VmHWM")
        peak_gauge, n_held = gauge(d.port), len(held)
        check(d.alive(), "daemon died")
        st = request(d.port, "GET", "/healthz")[0]
        check(st == 200, "/healthz at the limits: %d" % st)
        amp_ok = all(k in (413, 503) for k in statuses.get("amp", {}))
        check(amp_ok, "amplification bodies: %s (413 or 503 expected)" % statuses.get("amp"))
        left = close_and_drain(d.port, held, 15)
        held = []
        check(left == 0, "budget gauge %d after the clients closed" % left)
        check(hwm_kb * KiB <= want["total"],
              "VmHWM %.1f MiB > the ceiling %.1f MiB (%s)" % (hwm_kb / KiB, want["total"] / MiB,
                                                             statuses))
        return ("ceiling %.1f MiB (%s); VmHWM %.1f MiB; %d connections held, the budget "
                "holding %.1f MiB of bodies and answers; answers %s"
                % (want["total"] / MiB,
                   ", ".join("%s %.1f" % (k, v / MiB) for k, v in want.items() if k != "total"),
                   hwm_kb / KiB, n_held, peak_gauge / MiB, statuses))
    finally:
        for s in held:
            s.close()
        d.cleanup()
        shutil.rmtree(root, ignore_errors=True)


# ---- amplification bodies + 8 table uploads, /healthz probed meanwhile ---------------------------

LOAD_PRIORITIES = ("nice10", "nice19", "idle")


def _load_priority():
    """The load generator's priority, from POSENC_AMPLIFY_LOAD (default nice10)."""
    prio = os.environ.get("POSENC_AMPLIFY_LOAD", "nice10")
    if prio not in LOAD_PRIORITIES:
        raise ValueError("POSENC_AMPLIFY_LOAD=%s: one of %s" % (prio, ", ".join(LOAD_PRIORITIES)))
    return prio


def _load(port, amps, table, conn, prio="nice10"):
    """Child process at nice +10 (the clients stand for remote machines: on this 2-CPU host they
    must not take the CPU from the probe or the daemon), or at nice 19 or SCHED_IDLE (prio; see
    POSENC_AMPLIFY_LOAD in the module's docstring): 3 clients post the amplification bodies twice
    each, 8 clients upload the table at once. Sends back {client: status(es)}."""
    if prio == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # every thread it starts too
    else:
        os.setpriority(os.PRIO_PROCESS, 0, 19 if prio == "nice19" else 10)
    res = {}
    piece = int(os.environ.get("POSENC_AMPLIFY_PIECE", "0"))

    def send(method, path, body, timeout):
        """request(), or with POSENC_AMPLIFY_PIECE=N the body in send() calls of N bytes: on
        loopback the receiving TCP path runs inside the sender's send(), which this kernel does
        not preempt; a remote client's bytes arrive in packets instead."""
        if piece <= 0:
            return request(port, method, path, body, JSON, timeout=timeout)[0]
        s = connect(port, timeout)
        try:
            s.sendall(("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                       "Content-Length: %d\r\nConnection: close\r\n\r\n"
                       % (method, path, len(body))).encode())
            view = memoryview(body)
            try:
                for off in range(0, len(body), piece):
                    s.sendall(view[off:off + piece])
            except OSError:
                pass  # refused early: its answer is already here
            return read_response(s, timeout)[0]
        finally:
            s.close()

    def amp(i):
        for _ in range(2):
            try:
                st = send("POST", "/rope", amps[i], 120)
            except Exception as e:  # noqa: BLE001
                st = type(e).__name__
            res.setdefault("amp%d" % i, []).append(st)

    def up(i):
        try:
            st = send("PUT", "/tables/a%d" % i, table, 300)
        except Exception as e:  # noqa: BLE001
            st = type(e).__name__
        res["up%d" % i] = st
    ths = ([threading.Thread(target=amp, args=(i,)) for i in range(3)] +
           [threading.Thread(target=up, args=(i,)) for i in range(8)])
    for th in ths:
        th.start()
    for th in ths:
        th.join(300)
    conn.send(res)
    conn.close()


def _probe(port, until, period=0.02):
    """GET /healthz on a new connection every period s while until() is true: (latencies, bad)."""
    lat, bad = [], []
    while until():
        try:
            st, _, _, secs = request(port, "GET", "/healthz", timeout=5)
            lat.append(secs)
            if st != 200:
                bad.append(st)
        except Exception as e:  # noqa: BLE001
            bad.append(repr(e))
        time.sleep(period)
    return lat, bad


def _p(lat, q):
    s = sorted(lat)
    return s[min(len(s) - 1, int(q * len(s)))]


class Slow(Exception):
    """The latency criteria missed (the only failure amplify measures again)."""


def t_amplify(binary):
    """Runs the measurement; once more (a new daemon) when only the /healthz latency criteria
    missed: on a shared 2-CPU host the probe's tail follows the other processes' load (the
    daemon's own time per /healthz stays under a millisecond). Both runs' figures are shown."""
    from hostile import Fail
    try:
        return _amplify_once(binary)
    except Slow as e:
        first = str(e)
    try:
        return _amplify_once(binary) + " (second run; the first missed: %s)" % first
    except Slow as e:
        raise Fail("%s; first run: %s" % (e, first))


def _amplify_once(binary):
    from hostile import Daemon, check
    root = tempfile.mkdtemp(prefix="posenc-amp-")
    d = Daemon(binary, ["--data-dir", root])
    try:
        lim = _limits(d.port)
        want = ceiling(lim)
        amps = amp_bodies(lim["max_body_bytes"] - 16)
        row = "[" + ",".join(["0.123456789"] * 1000) + "]"
        rows = (lim["max_body_bytes"] - 64) // (len(row) + 1)
        table = ('{"data":[' + ",".join([row] * rows) + "]}").encode()
        # the probe stands for a kubelet on a machine of its own: on this shared 2-CPU host it
        # runs ahead of other processes when it may (root), so that what it measures is the
        # daemon's latency rather than its own wait for a CPU
        try:
            os.setpriority(os.PRIO_PROCESS, 0, -5)
        except OSError:
            pass
        t_idle = time.monotonic() + 5.0
        idle, idle_bad = _probe(d.port, lambda: time.monotonic() < t_idle)
        ctx = multiprocessing.get_context("fork")
        rx, tx = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_load, args=(d.port, amps, table, tx, _load_priority()))
        t0 = time.monotonic()
        child.start()
        busy, busy_bad = _probe(d.port, lambda: not rx.poll() and time.monotonic() - t0 < 300)
        secs = time.monotonic() - t0
        res = rx.recv() if rx.poll(5) else {}
        child.join(10)
        hwm = d.status("VmHWM") * KiB
        # the daemon's own time per /healthz (its access log: headers received -> answer done),
        # which tells its latency from the host's scheduling on a shared machine
        own = [float(m) for m in re.findall(r"GET /healthz 200 \d+ ([0-9.]+)ms", d.log_text())]
        check(not idle_bad and not busy_bad, "/healthz failures: %s %s" % (idle_bad[:3],
                                                                          busy_bad[:3]))
        check(len(busy) >= 20, "only %d probes during the load" % len(busy))
        amp_st = [x for k in ("amp0", "amp1", "amp2") for x in res.get(k, [])]
        check(len(amp_st) == 6 and all(x in (413, 503) for x in amp_st),
              "amplification bodies: %s" % res)
        check(all(res.get("up%d" % i) in (201, 200, 503) for i in range(8)), "uploads: %s" % res)
        stored = sum(1 for i in range(8) if res.get("up%d" % i) in (200, 201))
        ip99, bp99 = _p(idle, 0.99), _p(busy, 0.99)
        figures = ("%d amplification bodies of %.1f MiB -> %s, 8 table uploads of %.1f MiB -> %d "
                   "stored, in %.1f s; /healthz idle p50 %.2f / p99 %.2f ms (%d probes), under "
                   "load p50 %.2f / p99 %.2f / max %.2f ms (%d probes; in the daemon p99 %.2f / "
                   "max %.2f ms); VmHWM %.1f MiB, ceiling %.1f MiB; load average %.1f"
                   % (len(amp_st), len(amps[0]) / MiB, sorted(set(amp_st)), len(table) / MiB,
                      stored, secs, _p(idle, 0.5) * 1e3, ip99 * 1e3, len(idle),
                      _p(busy, 0.5) * 1e3, bp99 * 1e3, max(busy) * 1e3, len(busy),
                      _p(own, 0.99) if own else -1, max(own) if own else -1, hwm / MiB,
                      want["total"] / MiB, os.getloadavg()[0]))
        check(hwm <= want["total"], "VmHWM over the ceiling: " + figures)
        figures += "; p99 under load / idle p99 %.1f" % (bp99 / ip99)
        if _load_priority() != "nice10":
            figures += " (load generator at %s)" % _load_priority()
        if bp99 >= 0.050:
            raise Slow("/healthz p99 >= 50 ms under load: " + figures)
        # The ratio of two sub-millisecond tails is a figure of the host as much as of the daemon
        # (a shared CI runner missed 5x with the daemon's own p99 at 0.14 ms): `make bench-healthz`
        # holds it to 5x on a quiet machine; `make hostile` holds the liveness bound above.
        ratio = float(os.environ.get("POSENC_HEALTHZ_RATIO", "0"))
        if ratio and bp99 > ratio * ip99:
            raise Slow("/healthz p99 under load > %g x idle p99: %s" % (ratio, figures))
        return figures
    finally:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, 0)
        except OSError:
            pass
        d.cleanup()
        shutil.rmtree(root, ignore_errors=True)


TESTS = {"mem_ceiling": t_mem_ceiling, "amplify": t_amplify}
DEADLINE = {"mem_ceiling": 240, "amplify": 600}
