#!/usr/bin/env python3
"""loadcheck.py -- the HTTP side of docker/docker-check.sh (standard library only).

usage:
  loadcheck.py wait URL [--timeout S] [--since EPOCH]
      Polls GET URL until it answers 200; prints the milliseconds since EPOCH (default: now).
      Exit 1 on timeout.
  loadcheck.py load HOST:PORT [--path /rope] [--case FILE ID] [--body JSON] [--threads N]
                   [--duration S] [--request-timeout S]
      N threads, each with its own keep-alive http.client connection, POST the body in a loop
      for S seconds. Prints one JSON line of counts:
        ok          complete 2xx responses
        s503        complete 503 responses (shutting-down while draining)
        other       complete responses with any other status (by status in `statuses`)
        refused     new connections refused (ECONNREFUSED): the server is gone; not a failure
        incomplete  requests sent that got no complete response (reset, cut body, closed
                    before the status line, timeout); `incomplete_detail` names each kind and
                    whether the connection was fresh or reused. Must be 0 for a clean drain.
        conn_close  responses that carried `Connection: close`
"""
import argparse
import http.client
import json
import socket
import sys
import threading
import time
import urllib.error
import urllib.request


def cmd_wait(a):
    t0 = a.since if a.since is not None else time.time()
    deadline = time.time() + a.timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(a.url, timeout=1) as r:
                if r.status == 200:
                    print(int(round((time.time() - t0) * 1000)))
                    return 0
        except (urllib.error.URLError, OSError, http.client.HTTPException):
            pass
        time.sleep(0.01)
    print(f"loadcheck: {a.url} not 200 within {a.timeout} s", file=sys.stderr)
    return 1


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.c = {"ok": 0, "s503": 0, "other": 0, "refused": 0, "incomplete": 0,
                  "conn_close": 0, "connections": 0}
        self.statuses = {}
        self.detail = {}

    def add(self, key, n=1):
        with self.lock:
            self.c[key] += n

    def status(self, st):
        with self.lock:
            self.statuses[str(st)] = self.statuses.get(str(st), 0) + 1

    def incomplete(self, kind):
        with self.lock:
            self.c["incomplete"] += 1
            self.detail[kind] = self.detail.get(kind, 0) + 1


def worker(host, port, path, body, stop_at, timeout, counts):
    headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
    conn = None
    used = 0  # requests already answered on conn
    while time.time() < stop_at:
        if conn is None:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
            try:
                conn.connect()
            except ConnectionRefusedError:
                counts.add("refused")
                conn = None
                time.sleep(0.05)
                continue
            except OSError as e:  # connect timeout etc.: no request was sent
                counts.incomplete("connect-" + type(e).__name__)
                conn = None
                time.sleep(0.05)
                continue
            counts.add("connections")
            used = 0
        where = "reused" if used else "fresh"
        try:
            conn.request("POST", path, body=body, headers=headers)
            resp = conn.getresponse()
            resp.read()  # raises IncompleteRead when the body is cut
        except http.client.IncompleteRead:
            counts.incomplete(f"{where}-cut-body")
            conn.close()
            conn = None
            continue
        except http.client.RemoteDisconnected:
            counts.incomplete(f"{where}-closed-before-status")
            conn.close()
            conn = None
            continue
        except (ConnectionResetError, BrokenPipeError) as e:
            counts.incomplete(f"{where}-{type(e).__name__}")
            conn.close()
            conn = None
            continue
        except (socket.timeout, TimeoutError):
            counts.incomplete(f"{where}-timeout")
            conn.close()
            conn = None
            continue
        except (OSError, http.client.HTTPException) as e:
            counts.incomplete(f"{where}-{type(e).__name__}")
            conn.close()
            conn = None
            continue
        used += 1
        st = resp.status
        counts.status(st)
        if 200 <= st < 300:
            counts.add("ok")
        elif st == 503:
            counts.add("s503")
        else:
            counts.add("other")
        if (resp.getheader("Connection") or "").lower() == "close":
            counts.add("conn_close")
        if resp.will_close:
            conn.close()
            conn = None
    if conn is not None:
        conn.close()


def cmd_load(a):
    host, _, port = a.target.rpartition(":")
    if a.case:
        cases = json.load(open(a.case[0], encoding="utf-8"))
        found = [c for c in cases if c.get("id") == a.case[1]]
        if not found:
            print(f"loadcheck: no case {a.case[1]} in {a.case[0]}", file=sys.stderr)
            return 2
        body = json.dumps(found[0]["request"]).encode()
    else:
        body = a.body.encode()
    counts = Counts()
    t0 = time.time()
    stop_at = t0 + a.duration
    threads = [threading.Thread(target=worker, daemon=True,
                                args=(host, int(port), a.path, body, stop_at, a.request_timeout,
                                      counts))
               for _ in range(a.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(a.duration + a.request_timeout + 5)
    out = dict(counts.c)
    out["statuses"] = counts.statuses
    out["incomplete_detail"] = counts.detail
    out["seconds"] = round(time.time() - t0, 2)
    out["threads"] = a.threads
    print(json.dumps(out, sort_keys=True))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("wait")
    w.add_argument("url")
    w.add_argument("--timeout", type=float, default=30.0)
    w.add_argument("--since", type=float, default=None)
    ld = sub.add_parser("load")
    ld.add_argument("target", help="HOST:PORT")
    ld.add_argument("--path", default="/rope")
    ld.add_argument("--case", nargs=2, metavar=("FILE", "ID"))
    ld.add_argument("--body", default='{"head_dim": 64, "base": 10000}')
    ld.add_argument("--threads", type=int, default=8)
    ld.add_argument("--duration", type=float, default=5.0)
    ld.add_argument("--request-timeout", type=float, default=15.0)
    a = p.parse_args()
    return cmd_wait(a) if a.cmd == "wait" else cmd_load(a)


if __name__ == "__main__":
    sys.exit(main())
