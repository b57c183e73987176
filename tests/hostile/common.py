"""tests/hostile/common.py -- shared helpers for the hostile-client tests, the soak and the
durability script: start posencd on an ephemeral 127.0.0.1 port, raw-socket HTTP, /proc figures.
Python 3 standard library only; every network call has a timeout and talks to 127.0.0.1 only.
"""
import os
import re
import signal
import socket
import subprocess
import tempfile
import time

HOST = "127.0.0.1"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def default_bin():
    return os.environ.get("POSENC_BIN", os.path.join(ROOT, "build", "posencd"))


class Daemon:
    """posencd --bind 127.0.0.1 --port 0 plus args; stdout/stderr go to a temp file (the access
    log is never read through a pipe, so it can never block the daemon)."""

    def __init__(self, binary=None, args=(), env=None, start_timeout=10.0, prefix=()):
        """prefix: a wrapper command, e.g. ["valgrind", "--error-exitcode=99"]."""
        self.binary = binary or default_bin()
        self.log = tempfile.NamedTemporaryFile(prefix="posenc-hostile-", suffix=".log",
                                               delete=False)
        cmd = list(prefix) + [self.binary, "--bind", HOST, "--port", "0", "--web-dir", "",
               "--spec", os.path.join(ROOT, "openapi.yaml")] + list(args)
        e = dict(os.environ)
        if env:
            e.update(env)
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=e)
        self.port = None
        deadline = time.time() + start_timeout
        while time.time() < deadline:
            with open(self.log.name, "rb") as f:
                m = re.search(rb"listening on http://[0-9.]+:(\d+)", f.read())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        if self.port is None:
            out = self.log_text()
            self.kill()
            raise RuntimeError("posencd did not start: " + out[-2000:])

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def log_text(self):
        with open(self.log.name, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def status(self, key):
        """A /proc/<pid>/status figure in kB (VmRSS, VmHWM, Threads ...)."""
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        return -1

    def open_fds(self):
        return len(os.listdir("/proc/%d/fd" % self.pid))

    def stop(self, timeout=15.0):
        """SIGTERM, wait; returns the exit code (None if it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                return None
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def cleanup(self):
        self.kill()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass


def connect(port, timeout=5.0):
    s = socket.create_connection((HOST, port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_response(sock, timeout=5.0, max_body=64 << 20, head=False):
    """Reads one HTTP/1.1 response: (status, headers dict lower-case, body bytes). head: the
    request was HEAD (no body). Raises socket.timeout, or ConnectionError when the peer closes
    before a full response."""
    sock.settimeout(timeout)
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the response headers (got %r)" % buf[:200])
        buf += chunk
    top, _, rest = buf.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers[k.strip().lower()] = v.strip()
    if head or status in (204, 304) or 100 <= status < 200:
        body = b""
    elif "content-length" in headers:
        n = int(headers["content-length"])
        parts, have = [rest], len(rest)
        while have < n:
            chunk = sock.recv(min(1 << 20, n - have))
            if not chunk:
                raise ConnectionError("closed inside the body")
            parts.append(chunk)
            have += len(chunk)
        body = b"".join(parts)[:n]
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        buf = bytearray(rest)
        pos = 0
        out = bytearray()

        def more():
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed inside a chunked body")
            buf.extend(chunk)
        while True:
            while buf.find(b"\r\n", pos) < 0:
                more()
            eol = buf.find(b"\r\n", pos)
            size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
            pos = eol + 2
            while len(buf) < pos + size + 2:
                more()
            out += buf[pos:pos + size]
            pos += size + 2
            if size == 0:
                break
            if len(out) > max_body:
                raise ConnectionError("body too large")
        body = bytes(out)
    else:
        parts = [rest]
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            parts.append(chunk)
        body = b"".join(parts)
    return status, headers, body


def request(port, method, path, body=b"", headers=None, timeout=5.0, sock=None):
    """One request on a new connection (or on sock, kept alive). Returns (status, headers, body,
    seconds)."""
    hdrs = {"Host": "localhost"}
    if body or method in ("POST", "PUT"):
        hdrs["Content-Length"] = str(len(body))
    if headers:
        hdrs.update(headers)
    if sock is None:
        hdrs.setdefault("Connection", "close")
    raw = ("%s %s HTTP/1.1\r\n" % (method, path)).encode() + b"".join(
        ("%s: %s\r\n" % (k, v)).encode("latin-1") for k, v in hdrs.items()) + b"\r\n" + body
    t0 = time.monotonic()
    own = sock is None
    s = sock or connect(port, timeout)
    try:
        s.settimeout(timeout)
        s.sendall(raw)
        st, h, b = read_response(s, timeout)
        return st, h, b, time.monotonic() - t0
    finally:
        if own:
            s.close()


def post_json(port, path, body, timeout=5.0, sock=None):
    if isinstance(body, str):
        body = body.encode()
    return request(port, "POST", path, body, {"Content-Type": "application/json"}, timeout, sock)


def wait_closed(sock, timeout):
    """Seconds until the peer closes sock (EOF or reset), reading and discarding anything it
    sends; None if still open after timeout. Returns (seconds, bytes received)."""
    t0 = time.monotonic()
    got = b""
    while True:
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            return None, got
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return None, got
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - t0, got
        if not chunk:
            return time.monotonic() - t0, got
        got += chunk
