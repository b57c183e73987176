"""tests/hostile/framing.py -- strict HTTP/1.1 framing (issue 19), run by hostile.py.

Every ambiguous framing is a 400 problem+json decided from the headers, and the connection is
closed after it (so bytes after the headers can never be taken as the next request). Bodies sent to
routes that take none are refused at the headers: no `100 Continue`, nothing of the body read.
"""
import json
import socket
import time

from common import connect, read_response, request, wait_closed

SMALL = b'{"d_model": 8, "seq_len": 4}'
# a request smuggled after the body a daemon trusting Content-Length would see as empty
SMUGGLED = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"


def _raw(port, raw, timeout=3.0):
    """Sends raw bytes; returns (status, headers, body, closed_after, extra bytes after the
    response). closed_after: seconds until EOF after the response, or None if it stayed open."""
    s = connect(port, timeout)
    try:
        try:
            s.sendall(raw)
        except OSError:
            pass
        try:
            st, h, b = read_response(s, timeout)
        except (ConnectionError, socket.timeout) as e:
            return None, {}, repr(e).encode(), None, b""
        secs, extra = wait_closed(s, 1.5)
        return st, h, b, secs, extra
    finally:
        s.close()


# (name, raw request): each must get 400 problem+json and a closed connection, nothing more
BAD_FRAMING = [
    ("Content-Length with chunked",
     b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
     b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
    ("two different Content-Lengths",
     b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
     b"Content-Length: %d\r\nContent-Length: 0\r\n\r\n" % len(SMALL) + SMALL + SMUGGLED),
    ("space before the colon",
     b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding : chunked\r\n\r\n%x\r\n" % len(SMALL) + SMALL + b"\r\n0\r\n\r\n"),
    ("gzip, chunked",
     b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: gzip, chunked\r\n\r\n%x\r\n" % len(SMALL) + SMALL + b"\r\n0\r\n\r\n"),
    ("HTTP/1.1 without Host",
     b"GET /healthz HTTP/1.1\r\n\r\n"),
    ("two Host headers",
     b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
]


def t_framing(binary):
    from hostile import Daemon, check
    d = Daemon(binary, [])
    try:
        out = []
        for name, raw in BAD_FRAMING:
            st, h, b, closed, extra = _raw(d.port, raw)
            check(st == 400, "%s: got %s %r" % (name, st, b[:120]))
            check(h.get("content-type") == "application/problem+json",
                  "%s: content type %s" % (name, h.get("content-type")))
            check(json.loads(b).get("type") == "urn:posenc:problem:bad-request",
                  "%s: %r" % (name, b[:200]))
            check(closed is not None, "%s: the connection stayed open" % name)
            check(b"HTTP/1.1" not in extra, "%s: a second response followed: %r" % (name, extra[:80]))
            out.append("%s -> 400, closed" % name)
        # HTTP/1.0 needs no Host; a well-formed chunked body still works
        st = _raw(d.port, b"GET /healthz HTTP/1.0\r\n\r\n")[0]
        check(st == 200, "HTTP/1.0 without Host: %s" % st)
        st = _raw(d.port, b"POST /sinusoidal HTTP/1.1\r\nHost: l\r\nContent-Type: application/json"
                  b"\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n%x\r\n" % len(SMALL)
                  + SMALL + b"\r\n0\r\n\r\n")[0]
        check(st == 200, "a well-formed chunked body: %s" % st)
        st = _raw(d.port, b"POST /sinusoidal HTTP/1.1\r\nHost: l\r\nContent-Type: application/json"
                  b"\r\nContent-Length: %d\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                  % (len(SMALL), len(SMALL)) + SMALL)[0]
        check(st == 200, "two equal Content-Lengths: %s" % st)
        check(d.alive(), "daemon died")
        return "; ".join(out)
    finally:
        d.cleanup()


# routes that take no body: (method, path, expected status)
NO_BODY = [("GET", "/healthz", 400), ("DELETE", "/tables/none-such", 400),
           ("POST", "/healthz", 405), ("POST", "/no/such/route", 404),
           ("GET", "/tables", 400), ("OPTIONS", "/rope", 400)]


def t_no_body(binary):
    """10 GiB declared (with Expect: 100-continue, and chunked) to routes that take no body: the
    answer comes from the headers, within 1 s, without 100 Continue, and the connection closes."""
    from hostile import Daemon, check
    d = Daemon(binary, [])
    try:
        out = []
        for method, path, want in NO_BODY:
            for framing in ("Content-Length: %d\r\nExpect: 100-continue" % (10 << 30),
                            "Transfer-Encoding: chunked"):
                raw = ("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                       "%s\r\n\r\n" % (method, path, framing)).encode()
                t0 = time.monotonic()
                st, h, b, closed, _ = _raw(d.port, raw)
                secs = time.monotonic() - t0 - (closed or 0)
                check(st == want, "%s %s with %s: got %s (want %d, no 100 Continue) %r"
                      % (method, path, framing.split(":")[0], st, want, b[:100]))
                check(secs < 1.0, "%s %s: answered after %.2f s" % (method, path, secs))
                check(closed is not None, "%s %s: the connection stayed open" % (method, path))
            out.append("%s %s + body -> %d at the headers" % (method, path, want))
        # Content-Length: 0 on a GET is fine, and a compute POST still gets its 100 Continue
        st = request(d.port, "GET", "/healthz", headers={"Content-Length": "0"})[0]
        check(st == 200, "GET with Content-Length: 0: %d" % st)
        s = connect(d.port)
        s.sendall(b"POST /sinusoidal HTTP/1.1\r\nHost: l\r\nContent-Type: application/json\r\n"
                  b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(SMALL))
        st = read_response(s, 3)[0]
        s.sendall(SMALL)
        st2 = read_response(s, 3)[0]
        s.close()
        check((st, st2) == (100, 200), "a compute POST with Expect: %s then %s" % (st, st2))
        check(d.alive(), "daemon died")
        return "; ".join(out)
    finally:
        d.cleanup()


TESTS = {"framing": t_framing, "no_body": t_no_body}
DEADLINE = {"framing": 30, "no_body": 60}
