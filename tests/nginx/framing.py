#!/usr/bin/env python3
"""tests/nginx/framing.py -- the HTTP framing cases libmicrohttpd 0.9.75 decides before posencd
sees the request, through a real nginx running docker/nginx.conf's rules (`make nginx-check`;
docs/operations.md, "HTTP framing").

usage: python3 tests/nginx/framing.py [--bin build/posencd] [--conf docker/nginx.conf]
                                      [--nginx /usr/sbin/nginx]

A posencd on an ephemeral 127.0.0.1 port (with a data directory), and nginx with a copy of the
shipped configuration in a temporary prefix: the same server block and rules, only the upstream
addresses, the listen port (a free ephemeral one), the pid file, the temporary paths and the logs
moved into the prefix (every such edit is checked to have matched). nginx runs in the foreground
(-g 'daemon off;') and is stopped at the end; no root needed. Cases (PASS/FAIL line each):
  nul          `PUT /tables/zz<NUL>/../../evil`: nginx answers 400 itself; no table "zz" exists
               afterwards. Straight to posencd the request is taken with its path cut at the NUL
               (printed, not asserted: it is why nginx is needed)
  bare_lf      a chunked body whose chunk-size lines end in a bare LF, then a pipelined request:
               through nginx either 400, or the body is decoded by nginx and sent to posencd framed
               by nginx (Content-Length; for PUT /tables/{name}, with proxy_request_buffering off,
               nginx's own chunks), so both count the same requests (nginx's access log = posencd's)
               and the answer equals the one to the same JSON sent with Content-Length
  args         64 query arguments pass to posencd (200); 65 and 1,000 get nginx's 400
               problem+json at once (5,000: 400, or 414 for its length), none reaches posencd (straight to posencd, 1,000: no answer within 2 s, printed;
               libmicrohttpd stalls from about connection_memory / 70 arguments)
  framing      the cases posencd refuses itself (Content-Length with Transfer-Encoding, two
               Content-Lengths, `Transfer-Encoding : chunked`, gzip, chunked, HTTP/1.1 without
               Host) are refused through nginx as well (400; 501 for the unknown coding) and a
               request sent after each on the connection never reaches posencd
Exit status 1 if any case failed. Standard library only; 127.0.0.1 only.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "hostile"))
from common import Daemon, read_response, request  # noqa: E402

HOST = "127.0.0.1"


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def sub1(pattern, repl, text):
    """re.sub that must match at least once."""
    out, n = re.subn(pattern, repl, text)
    if n == 0:
        raise RuntimeError("docker/nginx.conf changed: no match for %r" % pattern)
    return out


def local_conf(conf_text, prefix, listen_port, upstream_port):
    """The shipped configuration with only its addresses, pid, temp paths and logs moved."""
    t = conf_text
    t = sub1(r"(?m)^pid [^;]*;", "pid %s/nginx.pid;" % prefix, t)
    t = sub1(r"(?m)^error_log [^;]*;", "error_log %s/error.log notice;" % prefix, t)
    t = sub1(r"access_log /dev/stdout", "access_log %s/access.log" % prefix, t)
    t = sub1(r"/tmp/nginx-", "%s/tmp-" % prefix, t)
    t = sub1(r"worker_processes [^;]*;", "worker_processes 1;", t)
    t = sub1(r"worker_connections [^;]*;", "worker_connections 256;", t)
    t = sub1(r"server 127\.0\.0\.1:1808[123]", "server %s:%d" % (HOST, upstream_port), t)
    t = sub1(r"listen 127\.0\.0\.1:18080;", "listen %s:%d;" % (HOST, listen_port), t)
    return t


class Nginx:
    def __init__(self, binary, conf_path, upstream_port):
        self.prefix = tempfile.mkdtemp(prefix="posenc-nginx-")
        os.chmod(self.prefix, 0o755)  # workers run as nobody when the master is root
        self.port = free_port()
        with open(conf_path) as f:
            text = local_conf(f.read(), self.prefix, self.port, upstream_port)
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(text)
        cmd = [binary, "-p", self.prefix, "-c", self.conf]
        t = subprocess.run(cmd + ["-t"], capture_output=True, text=True)
        if t.returncode != 0:
            raise RuntimeError("nginx -t: " + t.stderr)
        self.proc = subprocess.Popen(cmd + ["-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection((HOST, self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("nginx did not start: " + self.error_log())

    def error_log(self):
        try:
            with open(os.path.join(self.prefix, "error.log")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful; workers exit with the master
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.prefix, ignore_errors=True)


def raw(port, data, timeout=5.0):
    """Sends data on a new connection; (status or None, headers, body, everything received)."""
    s = socket.create_connection((HOST, port), timeout=timeout)
    try:
        try:
            s.sendall(data)
        except OSError:
            pass
        s.settimeout(timeout)
        got = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    finally:
        s.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", got)
    return (int(m.group(1)) if m else None), got


def statuses(got):
    return [int(x) for x in re.findall(rb"HTTP/1\.[01] (\d{3}) ", got)]


def log_lines(daemon, marker):
    return [ln for ln in daemon.log_text().splitlines() if marker in ln]


# ---- cases -----------------------------------------------------------------------------------

def c_nul(d, ng):
    st, got = raw(ng.port, b"PUT /tables/zz\x00/../../evil HTTP/1.1\r\nHost: localhost\r\n"
                  b"Content-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"data\":[[1]]}")
    check(st == 400, "through nginx: %r" % got[:200])
    check(request(d.port, "GET", "/tables/zz")[0] == 404, "table zz exists after the request")
    st2, got2 = raw(d.port, b"PUT /tables/yy\x00/../../evil HTTP/1.1\r\nHost: localhost\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"data\":[[1]]}",
                    timeout=3)
    cut = request(d.port, "GET", "/tables/yy")[0]
    if cut == 200:
        request(d.port, "DELETE", "/tables/yy")
    return ("nginx: 400 (no table zz); straight to posencd: %s, table yy %s"
            % (st2, "stored (the path cut at the NUL)" if cut == 200 else "not stored"))


BODY = b'{"d_model": 8, "seq_len": 3}'


def chunked_lf(body, hidden):
    """body in two chunks whose size lines end in a bare LF, then a zero chunk, then `hidden`
    (a second request), all on one connection."""
    a, b = body[:10], body[10:]
    return (b"%x\n" % len(a) + a + b"\r\n" + b"%x\n" % len(b) + b + b"\r\n" + b"0\n\r\n" + hidden)


def nginx_forwarded(ng):
    """Requests nginx has logged as forwarded to a replica (its access log)."""
    try:
        with open(os.path.join(ng.prefix, "access.log")) as f:
            return [ln for ln in f if 'upstream="127.0.0.1:' in ln]
    except OSError:
        return []


def c_bare_lf(d, ng):
    hidden = b"GET /version HTTP/1.1\r\nHost: localhost\r\n\r\n"
    want = request(d.port, "POST", "/sinusoidal", BODY, {"Content-Type": "application/json"})
    check(want[0] == 200, "the plain request: %d" % want[0])
    out = []
    for method, path, ct, body, ok in (
            ("POST", "/sinusoidal", "application/json", BODY, (200,)),
            ("PUT", "/tables/lfchunks", "application/json", b'{"data": [[0.5, 0.25]]}',
             (200, 201))):
        before = len(log_lines(d, path.split("?")[0] + " "))
        seen0 = len(d.log_text().splitlines())
        fwd0 = len(nginx_forwarded(ng))
        st, got = raw(ng.port, ("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\n"
                                "Transfer-Encoding: chunked\r\n\r\n" % (method, path, ct)).encode()
                      + chunked_lf(body, hidden), timeout=3)
        check(st is not None, "%s %s: no answer through nginx" % (method, path))
        reached = len(log_lines(d, path.split("?")[0] + " ")) - before
        check(st == 400 or st in ok, "%s %s through nginx: %r" % (method, path, got[:300]))
        if st != 400:
            check(reached == 1, "%s %s: %d requests reached posencd" % (method, path, reached))
            if method == "POST":
                body_got = got.split(b"\r\n\r\n", 1)[1]
                check(body_got.endswith(want[2]) or want[2] in body_got,
                      "the answer differs from the Content-Length request's")
        time.sleep(0.3)  # nginx writes its log line when the request ends
        seen = len(d.log_text().splitlines()) - seen0
        fwd = len(nginx_forwarded(ng)) - fwd0
        check(seen == fwd, "%s %s: nginx forwarded %d requests, posencd saw %d"
              % (method, path, fwd, seen))
        out.append("%s %s + a pipelined GET -> %s (nginx forwarded %d, posencd saw %d)"
                   % (method, path, statuses(got), fwd, seen))
    return "; ".join(out)


def args_path(n):
    return "/healthz?" + "&".join("a%d=1" % i for i in range(n))


def c_args(d, ng):
    st, _, _, secs = request(ng.port, "GET", args_path(64), timeout=10)
    check(st == 200, "64 arguments through nginx: %d" % st)
    out = ["64 -> %d (posencd, %.0f ms)" % (st, secs * 1e3)]
    for n in (65, 1000, 5000):
        before = len(log_lines(d, " /healthz "))
        st, h, b, secs = request(ng.port, "GET", args_path(n), timeout=10)
        check(len(log_lines(d, " /healthz ")) == before, "%d arguments reached posencd" % n)
        check(secs < 1.0, "%d arguments: %.2f s" % (n, secs))
        if n == 5000 and st == 414:  # a URI past large_client_header_buffers (8k)
            out.append("%d -> 414 from nginx (URI too long) in %.1f ms" % (n, secs * 1e3))
            continue
        check(st == 400, "%d arguments through nginx: %d" % (n, st))
        check(h.get("content-type") == "application/problem+json", "type %s" % h)
        check(json.loads(b)["type"] == "urn:posenc:problem:bad-request", "body %r" % b[:200])
        out.append("%d -> %d from nginx in %.1f ms" % (n, st, secs * 1e3))
    st, got = raw(d.port, ("GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % args_path(1000)).encode(),
                  timeout=2)
    out.append("1000 straight to posencd: %s" % ("no answer within 2 s" if st is None else st))
    return "; ".join(out)


FRAMING = [
    ("CL + TE", b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
     b"\r\nContent-Length: 28\r\nTransfer-Encoding: chunked\r\n\r\n" + BODY),
    ("two CLs", b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
     b"\r\nContent-Length: 28\r\nContent-Length: 5\r\n\r\n" + BODY),
    ("TE space colon", b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
     b"application/json\r\nTransfer-Encoding : chunked\r\n\r\n1c\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("gzip, chunked", b"POST /sinusoidal HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
     b"application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1c\r\n" + BODY +
     b"\r\n0\r\n\r\n"),
    ("no Host", b"GET /healthz HTTP/1.1\r\n\r\n"),
]


def c_framing(d, ng):
    out = []
    hidden = b"GET /version HTTP/1.1\r\nHost: localhost\r\n\r\n"
    for name, data in FRAMING:
        before = len(log_lines(d, " /version "))
        st, got = raw(ng.port, data + hidden, timeout=3)
        sts = statuses(got)
        # 400 from nginx or from posencd; nginx answers an unknown transfer coding with 501
        check(st in (400, 501) and len(sts) == 1, "%s through nginx: %r" % (name, got[:300]))
        check(len(log_lines(d, " /version ")) == before,
              "%s: the request after it reached posencd" % name)
        out.append("%s -> %s" % (name, sts))
    return "; ".join(out) + "; the request sent after each never reached posencd"


CASES = {"nul": c_nul, "bare_lf": c_bare_lf, "args": c_args, "framing": c_framing}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                  "build", "posencd"))
    ap.add_argument("--conf", default=os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                   "docker", "nginx.conf"))
    ap.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    ap.add_argument("cases", nargs="*", default=list(CASES))
    a = ap.parse_args()
    data = tempfile.mkdtemp(prefix="posenc-nginx-data-")
    d = Daemon(a.bin, ["--data-dir", data, "--connection-timeout", "5"])
    ng = None
    failed = 0
    try:
        ng = Nginx(a.nginx, a.conf, d.port)
        ver = subprocess.run([a.nginx, "-v"], capture_output=True, text=True).stderr.strip()
        print("%s on 127.0.0.1:%d -> posencd on 127.0.0.1:%d" % (ver, ng.port, d.port))
        for name in a.cases:
            try:
                msg, ok = CASES[name](d, ng), True
            except Exception as e:  # noqa: BLE001
                msg, ok = "%s: %s" % (type(e).__name__, e), False
            failed += not ok
            print("%s %-8s %s" % ("PASS" if ok else "FAIL", name, msg), flush=True)
    finally:
        if ng:
            ng.stop()
        d.cleanup()
        shutil.rmtree(data, ignore_errors=True)
    print("nginx-check: %d/%d passed" % (len(a.cases) - failed, len(a.cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
