"""Fixtures: a live posencd on an ephemeral loopback port, a client for it, and a fake server.

POSENC_BIN names the daemon (default: build/posencd of this repository). The daemon gets a fresh
data directory and is stopped with SIGTERM (it drains and exits 0) when the session ends.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))  # the package itself, without installing it

import posenc  # noqa: E402

LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")


@pytest.fixture(scope="session")
def daemon_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Starts POSENC_BIN on 127.0.0.1, port 0 (the kernel picks a free one), and yields its URL."""
    binary = Path(os.environ.get("POSENC_BIN") or REPO / "build" / "posencd")
    if not binary.is_absolute():
        binary = (Path.cwd() / binary).resolve()
    if not binary.exists():
        pytest.exit(f"no daemon at {binary}: build it (make build/posencd) or set POSENC_BIN", returncode=2)
    data = tmp_path_factory.mktemp("posenc-data")
    cmd = [str(binary), "--bind", "127.0.0.1", "--port", "0", "--data-dir", str(data), "--web-dir", "",
           "--spec", str(REPO / "openapi.yaml"), "--threads", "2", "--compute-threads", "2", "--drain-seconds", "5"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    url: Optional[str] = None
    deadline = time.monotonic() + 20
    seen: List[str] = []
    while url is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        m = LISTENING.search(line)
        if m:
            url = m.group(1)
    if url is None:
        proc.kill()
        pytest.exit("posencd did not start: " + "".join(seen), returncode=2)
    # Keep reading its log so that a full pipe never blocks it.
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    yield url
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(timeout=15) == 0, "posencd did not exit 0 after SIGTERM"
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


@pytest.fixture()
def client(daemon_url: str) -> Iterator[posenc.Client]:
    c = posenc.Client(daemon_url)
    yield c
    c.close()


# ---- a fake HTTP server for what a healthy daemon never does on demand (503, odd answers) ----

Reply = Tuple[int, Dict[str, str], bytes]


class FakeServer:
    """A loopback HTTP/1.1 server on an ephemeral port answering from a list of replies in turn
    (the last one repeats); records every request's method, path, headers and body. A reply's
    Content-Length, when it has one, is sent as it is (the connection closed after the payload
    when they disagree); else the payload's length."""

    def __init__(self, replies: List[Reply]) -> None:
        self.replies = replies
        self.requests: List[Dict[str, Any]] = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                fake.requests.append({"method": self.command, "path": self.path,
                                      "headers": dict(self.headers), "body": body})
                status, headers, payload = fake.replies[min(len(fake.requests), len(fake.replies)) - 1]
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                if "Content-Length" not in headers:
                    self.send_header("Content-Length", str(len(payload)))
                elif int(headers["Content-Length"]) != len(payload):
                    self.close_connection = True  # a body cut short: the connection then closes
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def problem(status: int, code: str, title: str, detail: str, **more: Any) -> bytes:
    return json.dumps({"type": "urn:posenc:problem:" + code, "title": title, "status": status,
                       "detail": detail, **more}).encode()


@pytest.fixture()
def fake_server() -> Iterator[Callable[[List[Reply]], FakeServer]]:
    made: List[FakeServer] = []

    def make(replies: List[Reply]) -> FakeServer:
        s = FakeServer(replies)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()
