#!/usr/bin/env python3
"""tests/hostile/hostile.py -- hostile-client tests against a live posencd (issue 9).

usage: python3 tests/hostile/hostile.py [--bin build/posencd] [test ...]
Tests (each starts its own daemon on 127.0.0.1:<ephemeral> and has its own deadline):
  slowloris     200 connections sending headers / bodies a byte every 2 s do not stop a normal
                client from being answered within 1 s
  flood         connections past --connection-limit are closed at once without a reply while the
                clients already connected keep being served; afterwards new clients are served
  header431     a request header larger than --connection-memory -> 431
  cl413         a declared Content-Length over max_body_bytes -> 413 at once, no body sent
                (compute POST and PUT /tables/{name})
  short_body    a Content-Length larger than the body sent -> closed at --connection-timeout
  nested        100,000 nested brackets -> 400 malformed-json within 1 s
  big_body      a 64 MB body with Content-Length -> 413 before the body is read, VmHWM small;
                a 64 MB chunked body -> 413, VmHWM growth bounded by max_body_bytes
  body_budget   32 connections declaring nearly max_body_bytes bodies: max_inflight_bytes admits
                as many as fit (they hold their bodies open), the others get 503 overloaded before
                sending any body; VmRSS grows by the budget at most; the gauge is 0 afterwards
  framing       (framing.py) ambiguous HTTP framing -> 400 bad-request from the headers, closed
  no_body       (framing.py) bodies sent to routes that take none: refused at the headers, no
                100 Continue, closed
  fifo          (files.py) FIFOs in the data directory and web/, symlinks under web/: start-up and
                requests never block, only regular files are served
  logs          (logs.py) quotes, controls, %0a and invalid UTF-8 in the method and path: every
                JSON log line parses, the text log has one printable line per request
  writes        (writes.py) PUT/DELETE /tables need the bearer token when one is configured;
                CORS * never grants the write methods
  queue         (compute_queue.py) past --max-queue-depth a computation gets 503 overloaded at once;
                /healthz fails while a computation runs past --stuck-seconds
  store_scale, store_quota, store_memory
                (table_store.py) 10,000 tables: start-up, RSS per table, paginated listing; the
                quota shared by two daemons (507); a store larger than the memory limit
  upload_hol    (uploads.py) four 12 MB JSON table uploads at once with 2 HTTP threads: /healthz
                keeps answering within 250 ms (parse and store run on the compute pool)
  spool_reuse   (spool.py) binary /rope answers over kept spool files equal fresh ones after large
                requests answered, aborted mid-upload, cut off mid-answer or refused, one running
                alongside; every .npz CRC-32 checked
  mem_ceiling, amplify
                (memory.py) a daemon driven at every limit stays below the memory ceiling of GET
                /limits (docs/operations.md); 16 MiB amplification bodies and 8 concurrent 16 MiB
                table uploads: VmHWM within the ceiling, /healthz p99 < 50 ms (the ratio to
                the idle p99 printed; held to 5x by `make bench-healthz`)
Prints one PASS/FAIL line per test with its figures; exit status 1 if any failed.
Standard library only; all traffic to 127.0.0.1.
"""
import argparse
import json
import os
import re
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
sys.modules.setdefault("hostile", sys.modules[__name__])
from common import Daemon, connect, post_json, read_response, request, wait_closed  # noqa: E402

SMALL = b'{"d_model": 8, "seq_len": 4}'


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def probe_loop(port, stop, lat, errors, period=0.25):
    """A normal client: a small valid request on a new connection every `period` s."""
    while not stop.is_set():
        try:
            st, _, _, secs = post_json(port, "/sinusoidal", SMALL, timeout=3.0)
            lat.append(secs)
            if st != 200:
                errors.append("status %d" % st)
        except Exception as e:  # noqa: BLE001 - any failure of the normal client counts
            errors.append(repr(e))
        stop.wait(period)


# ---- slowloris ---------------------------------------------------------------------------------

def t_slowloris(binary):
    """100 slow-header + 100 slow-body connections, a byte each every 2 s for 14 s."""
    d = Daemon(binary, ["--connection-timeout", "30"])
    try:
        head = (b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
                b"\r\nContent-Length: 1000\r\nX-Pad: " + b"a" * 200 + b"\r\n\r\n")
        socks = []
        for i in range(200):
            s = connect(d.port)
            if i >= 100:  # slow body: whole headers now, then the body a byte at a time
                s.sendall(head)
            socks.append([s, 0])
        stop = threading.Event()
        lat, errors = [], []
        th = threading.Thread(target=probe_loop, args=(d.port, stop, lat, errors))
        th.start()
        t_end = time.monotonic() + 14
        dead = 0
        while time.monotonic() < t_end:
            for i, ent in enumerate(socks):
                s, k = ent
                if s is None:
                    continue
                try:
                    # slow headers: the next header byte; slow bodies: one more body byte
                    s.send(head[k:k + 1] if i < 100 and k < len(head) else b"{")
                    ent[1] = k + 1
                except OSError:
                    ent[0] = None
                    dead += 1
            time.sleep(2.0)
        stop.set()
        th.join(10)
        still_open = sum(1 for s, _ in socks if s is not None)
        for s, _ in socks:
            if s:
                s.close()
        check(not errors, "normal client errors: %s" % errors[:5])
        check(lat, "no normal requests were made")
        worst = max(lat)
        check(worst < 1.0, "normal client waited %.3f s (limit 1 s)" % worst)
        check(d.alive(), "daemon died")
        return ("200 slow connections (%d still open after 14 s); normal client: %d requests, "
                "max %.1f ms, median %.1f ms" % (still_open, len(lat), worst * 1e3,
                                                 sorted(lat)[len(lat) // 2] * 1e3))
    finally:
        d.cleanup()


# ---- connection flood --------------------------------------------------------------------------

def t_flood(binary):
    """--connection-limit 16: 4 keep-alive clients, then 300 more connections each sending a
    request. Every flood connection must be answered (while slots are free) or closed at once
    (EOF/RST within 1.5 s, no reply); none may be left hanging. The 4 clients keep being served
    within 1 s, and a new client is served once the flood is gone."""
    import selectors
    limit = 16
    d = Daemon(binary, ["--connection-limit", str(limit), "--threads", "2"])
    try:
        clients = []
        for _ in range(4):
            s = connect(d.port)
            st, _, _, _ = post_json(d.port, "/sinusoidal", SMALL, sock=s)
            check(st == 200, "existing client got %d" % st)
            clients.append(s)
        req = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
        flood, refused_connect = [], 0
        t0 = time.monotonic()
        for _ in range(300):
            try:
                s = connect(d.port, timeout=2)
                s.setblocking(False)
                try:
                    s.send(req)
                except OSError:
                    pass
                flood.append(s)
            except OSError:
                refused_connect += 1
        sel = selectors.DefaultSelector()
        for s in flood:
            sel.register(s, selectors.EVENT_READ)
        answered = refused = 0
        first_close = None
        deadline = time.monotonic() + 1.5
        pending = set(flood)
        while pending and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
                s = key.fileobj
                try:
                    data = s.recv(4096)
                except (ConnectionResetError, BrokenPipeError):
                    data = b""
                except BlockingIOError:
                    continue
                sel.unregister(s)
                pending.discard(s)
                if data:
                    answered += 1
                else:
                    refused += 1
                    if first_close is None:
                        first_close = time.monotonic() - t0
        held = len(pending)
        # the existing clients keep being served, quickly
        worst = 0.0
        for s in clients:
            st, _, _, secs = post_json(d.port, "/sinusoidal", SMALL, sock=s, timeout=3)
            check(st == 200, "existing client got %d during the flood" % st)
            worst = max(worst, secs)
        # what happens to held connections once slots free up
        served_later = None
        if held:
            for s in clients:
                s.close()
            clients = []
            t1 = time.monotonic()
            evs = sel.select(timeout=5)
            if evs:
                served_later = time.monotonic() - t1
        for s in flood:
            s.close()
        for s in clients:
            s.close()
        sel.close()
        time.sleep(0.3)
        st, _, _, secs = post_json(d.port, "/sinusoidal", SMALL, timeout=3)
        check(d.alive(), "daemon died")
        summary = ("limit %d, 4 keep-alive clients + 300 flood connections: %d answered, %d "
                   "closed without a reply (%d refused at connect), %d left hanging after 1.5 s; "
                   "existing clients served, max %.1f ms; new client afterwards: %d"
                   % (limit, answered, refused, refused_connect, held, worst * 1e3, st))
        if served_later is not None:
            summary += ("; a hanging connection was served %.0f ms after the keep-alive clients "
                        "closed (it waited in the listen backlog)" % (served_later * 1e3))
        check(worst < 1.0, "existing client waited %.3f s during the flood" % worst)
        check(st == 200, "new client after the flood got %d" % st)
        check(held == 0, "%d connections past the limit were neither refused nor answered: %s"
              % (held, summary))
        check(answered <= limit, "%d flood connections answered with limit %d" % (answered, limit))
        return summary
    finally:
        d.cleanup()


# ---- 431 ---------------------------------------------------------------------------------------

def t_header431(binary):
    d = Daemon(binary, ["--connection-memory", "65536"])
    try:
        out = []
        for size in (70000, 100000, 1 << 20):
            s = connect(d.port)
            raw = (b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"b" * size +
                   b"\r\n\r\n")
            t0 = time.monotonic()
            try:
                s.sendall(raw)
            except OSError:
                pass  # the server may answer and close before we finish sending
            st, h, body = read_response(s, timeout=5)
            secs = time.monotonic() - t0
            s.close()
            check(st == 431, "a %d-byte header got %d" % (size, st))
            out.append("%d B -> %d in %.0f ms (%s)" % (size, st, secs * 1e3,
                                                       h.get("content-type", "no type")))
        # many headers of ordinary size that add up past the limit
        s = connect(d.port)
        raw = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + b"".join(
            b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(1000)) + b"\r\n"
        try:
            s.sendall(raw)
        except OSError:
            pass
        st, h, _ = read_response(s, timeout=5)
        s.close()
        check(st == 431, "1000 headers of 100 B got %d" % st)
        out.append("1000 x 100 B headers -> %d" % st)
        st, _, _, _ = request(d.port, "GET", "/healthz")
        check(st == 200, "healthz after 431s: %d" % st)
        return "; ".join(out)
    finally:
        d.cleanup()


# ---- 413 on the declared length -----------------------------------------------------------------

def t_cl413(binary):
    d = Daemon(binary, [])
    try:
        lim = json.loads(request(d.port, "GET", "/limits")[2])
        cap = lim["max_body_bytes"]
        out = []
        cases = [("POST", "/sinusoidal", "application/json"),
                 ("POST", "/rope", "application/json"),
                 ("PUT", "/tables/hostile413", "application/json"),
                 ("PUT", "/tables/hostile413", "application/x-npy")]
        for method, path, ct in cases:
            for declared in (cap + 1, 1 << 40):
                s = connect(d.port)
                s.sendall(("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\n"
                           "Content-Length: %d\r\n\r\n" % (method, path, ct, declared)).encode())
                t0 = time.monotonic()
                st, h, body = read_response(s, timeout=2)
                secs = time.monotonic() - t0
                s.close()
                check(st == 413, "%s %s declared %d got %d" % (method, path, declared, st))
                check(secs < 1.0, "413 took %.3f s" % secs)
                check(h.get("content-type") == "application/problem+json",
                      "413 content type %s" % h.get("content-type"))
                out.append("%s %s CL=%d -> %d in %.1f ms" % (method, path, declared, st,
                                                            secs * 1e3))
        # with Expect: 100-continue the client must not be invited to send
        s = connect(d.port)
        s.sendall(("POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                   "application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n"
                   % (cap + 1)).encode())
        st, _, _ = read_response(s, timeout=2)
        s.close()
        check(st == 413, "Expect: 100-continue got %d first" % st)
        out.append("Expect: 100-continue -> %d (no 100)" % st)
        return "max_body_bytes %d; " % cap + "; ".join(out[:2] + out[-3:])
    finally:
        d.cleanup()


# ---- body shorter than its Content-Length ------------------------------------------------------

def t_short_body(binary):
    d = Daemon(binary, ["--connection-timeout", "2"])
    try:
        res = []
        for path, ct in (("/sinusoidal", "application/json"),
                         ("/tables/hostileshort", "application/json")):
            method = "PUT" if path.startswith("/tables") else "POST"
            s = connect(d.port)
            s.sendall(("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\n"
                       "Content-Length: 100\r\n\r\n" % (method, path, ct)).encode() +
                      b'{"d_model": 8,')
            secs, got = wait_closed(s, 8.0)
            s.close()
            check(secs is not None, "%s: still open after 8 s (timeout 2 s)" % path)
            check(1.5 <= secs <= 4.0, "%s: closed after %.2f s (timeout 2 s)" % (path, secs))
            res.append("%s %s closed after %.2f s%s" % (method, path, secs,
                                                       " with %r" % got[:12] if got else
                                                       " without a reply"))
        # an idle connection that never sends a request line
        s = connect(d.port)
        secs, _ = wait_closed(s, 8.0)
        s.close()
        check(secs is not None and 1.5 <= secs <= 4.0, "idle connection closed after %s" % secs)
        res.append("idle connection closed after %.2f s" % secs)
        check(d.alive(), "daemon died")
        return "; ".join(res)
    finally:
        d.cleanup()


# ---- deep nesting --------------------------------------------------------------------------------

def t_nested(binary):
    d = Daemon(binary, [])
    try:
        out = []
        bodies = {"[x100000": b"[" * 100000, "{\"a\":x50000": b'{"a":' * 50000,
                  "[x100000 closed": b"[" * 100000 + b"]" * 100000,
                  "obj+[x100000": b'{"positions":' + b"[" * 100000 + b"]" * 100000 + b"}"}
        for name, body in bodies.items():
            for path in ("/rope", "/attention", "/sinusoidal"):
                st, h, b, secs = post_json(d.port, path, body, timeout=5)
                check(st == 400, "%s to %s got %d: %r" % (name, path, st, b[:200]))
                check(secs < 1.0, "%s to %s took %.3f s" % (name, path, secs))
                js = json.loads(b)
                check(js.get("type") == "urn:posenc:problem:malformed-json", "type %s" % js)
            out.append("%s -> 400 in %.1f ms" % (name, secs * 1e3))
        # a table upload body too
        st, _, b, secs = request(d.port, "PUT", "/tables/hostilenest", b"[" * 100000,
                                 {"Content-Type": "application/json"})
        check(st == 400, "PUT nested got %d %r" % (st, b[:200]))
        out.append("PUT /tables [x100000 -> %d in %.1f ms" % (st, secs * 1e3))
        return "; ".join(out)
    finally:
        d.cleanup()


# ---- 64 MB bodies -----------------------------------------------------------------------------

def send_until_closed(s, total, chunked=False, deadline=30.0):
    """Sends up to total bytes of body (b'0'...) until the peer stops reading or closes."""
    piece = b"[" + b"0," * 32767 + b"0"  # 64 KiB of JSON-ish bytes
    piece = piece[:65536]
    sent = 0
    t0 = time.monotonic()
    s.settimeout(2.0)
    try:
        while sent < total and time.monotonic() - t0 < deadline:
            n = min(len(piece), total - sent)
            if chunked:
                s.sendall(b"%x\r\n" % n + piece[:n] + b"\r\n")
            else:
                s.sendall(piece[:n])
            sent += n
        if chunked and sent >= total:
            s.sendall(b"0\r\n\r\n")
    except (socket.timeout, OSError):
        pass
    return sent


def t_big_body(binary):
    d = Daemon(binary, [])
    try:
        out = []
        total = 64 << 20
        request(d.port, "GET", "/healthz")
        base = d.status("VmHWM")
        # (a) declared length: 413 before the body is read
        s = connect(d.port)
        s.sendall(("POST /rope HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                   "Content-Length: %d\r\n\r\n" % total).encode())
        t0 = time.monotonic()
        result = {}

        def reader():
            try:
                result["resp"] = read_response(s, timeout=5)
                result["t"] = time.monotonic() - t0
            except Exception as e:  # noqa: BLE001
                result["err"] = repr(e)
        th = threading.Thread(target=reader)
        th.start()
        sent = send_until_closed(s, total)
        th.join(10)
        s.close()
        hwm_a = d.status("VmHWM")
        check("resp" in result, "no response to a 64 MB declared body: %s" % result.get("err"))
        st = result["resp"][0]
        check(st == 413, "64 MB declared body got %d" % st)
        check(result["t"] < 1.0, "413 took %.3f s" % result["t"])
        check(hwm_a - base < 8 * 1024, "VmHWM grew %d kB" % (hwm_a - base))
        out.append("Content-Length 64 MB -> %d in %.1f ms, client got to send %.1f MB before the "
                   "close, VmHWM %d -> %d kB" % (st, result["t"] * 1e3, sent / 2**20, base, hwm_a))
        # (b) chunked, no declared length: read and discarded past the cap, then 413
        lim = json.loads(request(d.port, "GET", "/limits")[2])["max_body_bytes"]
        s = connect(d.port)
        s.sendall(b"POST /rope HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        result.clear()
        t0 = time.monotonic()
        th = threading.Thread(target=reader)
        th.start()
        sent = send_until_closed(s, total, chunked=True)
        th.join(15)
        s.close()
        hwm_b = d.status("VmHWM")
        check("resp" in result, "no response to a 64 MB chunked body: %s" % result.get("err"))
        st = result["resp"][0]
        check(st == 413, "64 MB chunked body got %d" % st)
        grow = hwm_b - hwm_a
        check(grow < (2 * lim) // 1024 + 8 * 1024,
              "VmHWM grew %d kB for a chunked body (max_body_bytes %d)" % (grow, lim))
        out.append("chunked 64 MB -> %d after %.2f s (%.1f MB sent), VmHWM +%d kB (max_body_bytes "
                   "%d kB)" % (st, result["t"], sent / 2**20, grow, lim // 1024))
        check(d.alive(), "daemon died")
        return "; ".join(out)
    finally:
        d.cleanup()


# ---- aggregate body memory: max_inflight_bytes -------------------------------------------------

def gauge(port):
    """posenc_inflight_body_bytes from GET /metrics."""
    body = request(port, "GET", "/metrics")[2]
    m = re.search(rb"^posenc_inflight_body_bytes (\d+)$", body, re.M)
    return int(m.group(1)) if m else None


def close_and_drain(port, socks, seconds=10):
    """Closes socks; the budget gauge once it is back to 0 or after seconds."""
    for s in socks:
        s.close()
    t0 = time.monotonic()
    while gauge(port) != 0 and time.monotonic() - t0 < seconds:
        time.sleep(0.05)
    return gauge(port)


def t_body_budget(binary):
    """32 connections each declare a max_body_bytes - 1 body with Expect: 100-continue; those
    invited (100 Continue) send all of it but its last byte and hold it (the next one declares
    once the daemon holds it: bodies are reserved as they arrive). max_inflight_bytes admits
    budget // size of them; the others get 503 overloaded at once, without sending any body.
    VmRSS grows by less than the budget + 48 MiB (without the budget: 32 x 16 MiB); /healthz is
    served meanwhile; once the holders close, the gauge is 0 and bodies are served again."""
    d = Daemon(binary, [])
    socks = []
    try:
        lim = json.loads(request(d.port, "GET", "/limits")[2])
        cap, budget = lim["max_body_bytes"], lim["max_inflight_bytes"]
        base = d.status("VmRSS")
        n = cap - 1
        fill = b" " * min(n - 1, 1 << 20)
        refused = 0
        for _ in range(32):
            s = connect(d.port, timeout=30)
            s.sendall(("POST /rope HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
                       "\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n" % n).encode())
            st, h, body = read_response(s, timeout=5)
            if st == 503:
                js = json.loads(body)
                check(js.get("type") == "urn:posenc:problem:overloaded", "503 type %s" % js)
                check(h.get("retry-after") == "1", "503 without Retry-After: 1: %s" % h)
                refused += 1
                s.close()
                continue
            check(st == 100, "got %d instead of 100 Continue or 503" % st)
            left = n - 1
            while left > 0:
                k = min(left, len(fill))
                s.sendall(fill[:k])
                left -= k
            socks.append(s)
            # a body is reserved as it arrives: wait until this one is, before the next declares
            t0 = time.monotonic()
            while gauge(d.port) != len(socks) * n and time.monotonic() - t0 < 10:
                time.sleep(0.02)
        time.sleep(1.0)
        grow = d.status("VmRSS") - base
        admitted = len(socks)
        check(admitted == budget // n, "%d bodies of %d bytes admitted; max_inflight_bytes %d "
              "admits %d" % (admitted, n, budget, budget // n))
        check(gauge(d.port) == admitted * n, "gauge %s, want %d" % (gauge(d.port), admitted * n))
        # the budget plus 48 MiB of slack for everything else the daemon touches meanwhile (the
        # connections' buffers, per-thread malloc arenas of the HTTP and compute threads): runs
        # after issue 19 measured +295.5 MB with 256 MiB held; without the budget it is 512 MiB
        check(grow < budget // 1024 + 48 * 1024,
              "VmRSS +%d kB with max_inflight_bytes %d" % (grow, budget))
        st = request(d.port, "GET", "/healthz")[0]
        check(st == 200, "/healthz while the budget is full: %d" % st)
        st = post_json(d.port, "/sinusoidal", SMALL)[0]
        check(st == 503, "a small body while only %d bytes are free: %d" % (budget - admitted * n, st))
        left = close_and_drain(d.port, socks)
        socks = []
        check(left == 0, "gauge %s after the holders closed" % left)
        st = post_json(d.port, "/sinusoidal", SMALL)[0]
        check(st == 200, "a small body after the holders closed: %d" % st)
        return ("32 connections declaring %d-byte bodies: %d admitted and held, %d refused with 503 "
                "overloaded (max_inflight_bytes %d); VmRSS +%d MiB; gauge back to 0"
                % (n, admitted, refused, budget, grow // 1024))
    finally:
        for s in socks:
            s.close()
        d.cleanup()


TESTS = {"slowloris": t_slowloris, "flood": t_flood, "header431": t_header431,
         "cl413": t_cl413, "short_body": t_short_body, "nested": t_nested,
         "big_body": t_big_body, "body_budget": t_body_budget}
DEADLINE = {"body_budget": 60, "slowloris": 60, "flood": 60, "header431": 30, "cl413": 30, "short_body": 40,
            "nested": 30, "big_body": 90}
# issue 19's findings, one module per concern (each has TESTS and DEADLINE)
for _mod in ("framing", "files", "logs", "writes", "compute_queue", "table_store", "uploads",
             "memory", "spool"):
    _m = __import__(_mod)
    TESTS.update(_m.TESTS)
    DEADLINE.update(_m.DEADLINE)


def run(name, binary):
    """Runs one test in a thread with its deadline."""
    box = {}

    def body():
        try:
            box["msg"] = TESTS[name](binary)
        except Exception as e:  # noqa: BLE001
            box["err"] = "%s: %s" % (type(e).__name__, e)
    th = threading.Thread(target=body, daemon=True)
    t0 = time.monotonic()
    th.start()
    th.join(DEADLINE[name])
    secs = time.monotonic() - t0
    if th.is_alive():
        return False, "deadline of %d s exceeded" % DEADLINE[name], secs
    if "err" in box:
        return False, box["err"], secs
    return True, box["msg"], secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=common.default_bin())
    ap.add_argument("tests", nargs="*", default=list(TESTS),
                    help="default: all of %s" % " ".join(TESTS))
    a = ap.parse_args()
    failed = 0
    for name in a.tests:
        ok, msg, secs = run(name, a.bin)
        print("%s %-10s (%.1f s) %s" % ("PASS" if ok else "FAIL", name, secs, msg), flush=True)
        failed += not ok
    print("hostile: %d/%d passed" % (len(a.tests) - failed, len(a.tests)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
