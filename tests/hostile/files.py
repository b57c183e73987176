"""tests/hostile/files.py -- regular files only, in web/ and the data directory (issue 19), run by
hostile.py.

A FIFO planted as a table file or a demo file must never block a thread (at start-up or on a
request), and a symbolic link under web/ must never be followed (out of web/ or not).
"""
import json
import os
import shutil
import tempfile
import time

from common import request


def t_fifo(binary):
    from hostile import Daemon, check
    root = tempfile.mkdtemp(prefix="posenc-fifo-")
    d = None
    try:
        data, web = os.path.join(root, "data"), os.path.join(root, "web")
        os.makedirs(data)
        os.makedirs(os.path.join(web, "sub"))
        with open(os.path.join(web, "index.html"), "w") as f:
            f.write("<p>ok</p>")
        secret = os.path.join(root, "secret.txt")
        with open(secret, "w") as f:
            f.write("outside web/")
        os.mkfifo(os.path.join(data, "pipe.npy"))
        os.mkfifo(os.path.join(data, ".tmp-pipe"))
        os.mkfifo(os.path.join(web, "pipe.html"))
        os.symlink(secret, os.path.join(web, "out.txt"))
        os.symlink(root, os.path.join(web, "up"))
        os.symlink(os.path.join(web, "index.html"), os.path.join(web, "sub", "in.html"))
        t0 = time.monotonic()
        d = Daemon(binary, ["--data-dir", data, "--web-dir", web], start_timeout=5.0)
        start = time.monotonic() - t0
        out = ["started in %.0f ms with FIFOs in the data directory" % (start * 1e3)]
        cases = [("GET", "/tables/pipe", 404), ("GET", "/pipe.html", 404),
                 ("GET", "/out.txt", 404), ("GET", "/up/secret.txt", 404),
                 ("GET", "/sub/in.html", 404), ("GET", "/", 200)]
        for method, path, want in cases:
            st, _, body, secs = request(d.port, method, path, timeout=3.0)
            check(st == want, "%s %s: %d (want %d) %r" % (method, path, st, want, body[:80]))
            check(b"outside web/" not in body, "%s %s served a file outside web/" % (method, path))
            check(secs < 1.0, "%s %s took %.2f s" % (method, path, secs))
        out.append("FIFO table, FIFO demo file and symlinks (out of web/ and inside it) -> 404 "
                   "at once")
        st, _, body, _ = request(d.port, "GET", "/tables", timeout=3.0)
        names = [t["name"] for t in json.loads(body)["tables"]]
        check(st == 200 and "pipe" not in names, "GET /tables: %d %s" % (st, names))
        st, _, _, _ = request(d.port, "POST", "/learned", b'{"table":"pipe","positions":[0]}',
                              {"Content-Type": "application/json"}, timeout=3.0)
        check(st in (404, 422), "POST /learned of the FIFO: %d" % st)
        rc = d.stop(timeout=10)
        check(rc == 0, "SIGTERM: exit %s" % rc)
        out.append("listing, /learned and SIGTERM unaffected")
        return "; ".join(out)
    finally:
        if d:
            d.cleanup()
        shutil.rmtree(root, ignore_errors=True)


TESTS = {"fifo": t_fifo}
DEADLINE = {"fifo": 30}
