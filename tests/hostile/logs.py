"""tests/hostile/logs.py -- every access-log field escaped (issue 19), run by hostile.py.

Requests with a '"', a backslash and control characters in the method, "%0a" / "%22" / "%00" and
invalid UTF-8 (raw and percent-encoded) in the path: with --log-format json every line the daemon
writes for them is valid JSON (json.loads) with one line per request; with the text format each
request is one line and none starts as a forged one.
"""
import json
import re
import socket

from common import connect, read_response

NASTY = [
    (b'GE"T', b"/healthz"),
    (b"G\\T", b"/healthz"),
    (b"GET", b"/x%0a2026-01-01T00:00:00Z%20GET%20/forged%20200%200%201.000ms%20id=forged"),
    (b"GET", b"/q%22%5c%00%01%1b%7f"),
    (b"GET", b"/\xff\xfe\xc3\x28\xed\xa0\x80"),
    (b"GET", b"/%ff%c3%28%c0%af"),
    (b"GET", b"/caf%c3%a9"),
]


def _send_all(port):
    for method, path in NASTY:
        s = connect(port, 3.0)
        try:
            s.sendall(method + b" " + path + b" HTTP/1.1\r\nHost: l\r\nConnection: close\r\n"
                      b"X-Request-Id: a\"b\r\n\r\n")
            try:
                read_response(s, 3.0)
            except (ConnectionError, socket.timeout):
                pass
        finally:
            s.close()


def t_logs(binary):
    from hostile import Daemon, check
    out = []
    d = Daemon(binary, ["--log-format", "json"])
    try:
        _send_all(d.port)
        d.stop()
        lines = [ln for ln in d.log_text().splitlines() if ln.startswith("{")]
        bad = []
        for ln in lines:
            try:
                json.loads(ln)
            except ValueError:
                bad.append(ln)
        check(not bad, "invalid JSON log lines: %r" % bad[:3])
        check(len(lines) == len(NASTY), "%d JSON lines for %d requests" % (len(lines), len(NASTY)))
        out.append("json: %d lines, all valid JSON" % len(lines))
    finally:
        d.cleanup()
    d = Daemon(binary, ["--log-format", "text"])
    try:
        _send_all(d.port)
        d.stop()
        lines = [ln for ln in d.log_text().splitlines() if re.match(r"\d{4}-\d\d-\d\dT", ln)]
        check(len(lines) == len(NASTY), "%d text lines for %d requests: %r"
              % (len(lines), len(NASTY), lines))
        check(all(re.fullmatch(r"[!-~]+( [!-~]+)*", ln) for ln in lines),
              "a text line with a control or non-ASCII byte: %r" % lines)
        out.append("text: one line per request, printable ASCII only")
    finally:
        d.cleanup()
    return "; ".join(out)


TESTS = {"logs": t_logs}
DEADLINE = {"logs": 30}
