#!/usr/bin/env python3
"""docker/nginx-check.py -- the body limits of docker/nginx.conf, tested through the compose stack
(called by docker/docker-check.sh; standard library only, 127.0.0.1 only).

usage: nginx-check.py NGINX_CONF LB_PORT REPLICA_PORT...

Prints one "PASS text" or "FAIL text" line per check:
  limits       nginx.conf's client_max_body_size values equal the replicas' GET /limits:
               max_body_bytes for "/", max_table_bytes for "/tables/" (with proxy_request_buffering
               off there);
  413-json     a POST whose declared length is over max_body_bytes gets nginx's own 413 as
               application/problem+json (type too-large), before any body byte is sent;
  413-tables   the same for a PUT /tables/{name} over max_table_bytes;
  big-upload   a 200 MB .safetensors file (a 200 MB tensor we do not want and wpe.weight, 1024 x 8
               float32) PUT through nginx with ?tensor=wpe.weight: 201 with shape [1024, 8], read
               back through another replica, then deleted. The body is generated as it is sent.
"""
import http.client
import json
import re
import socket
import struct
import sys

HOST = "127.0.0.1"


def size_bytes(text):
    m = re.fullmatch(r"(\d+)([kKmMgG]?)", text)
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]
    return int(m.group(1)) * mult


def conf_limits(path):
    """client_max_body_size at http level and in location /tables/, and that location's
    proxy_request_buffering."""
    text = re.sub(r"#[^\n]*", "", open(path).read())
    top = re.search(r"http\s*{.*?client_max_body_size\s+(\S+);", text, re.S).group(1)
    loc = re.search(r"location\s+/tables/\s*{([^}]*)}", text, re.S).group(1)
    tables = re.search(r"client_max_body_size\s+(\S+);", loc).group(1)
    buffering = re.search(r"proxy_request_buffering\s+(\S+);", loc)
    return size_bytes(top), size_bytes(tables), buffering and buffering.group(1)


def request(port, method, path, body=None, headers=None, timeout=60):
    c = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, r.getheader("Content-Type", ""), r.read()
    finally:
        c.close()


def declared_only(port, method, path, length):
    """Sends headers declaring `length` bytes and no body; returns (status, content type, body)."""
    s = socket.create_connection((HOST, port), timeout=10)
    try:
        s.sendall((f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {length}\r\nConnection: close\r\n\r\n").encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    ctype = next((ln.split(":", 1)[1].strip() for ln in lines[1:]
                  if ln.lower().startswith("content-type:")), "")
    return int(lines[0].split()[1]), ctype, body


def check_413(name, port, method, path, length):
    st, ctype, body = declared_only(port, method, path, length)
    try:
        pb = json.loads(body)
    except ValueError:
        pb = {}
    ok = st == 413 and ctype.startswith("application/problem+json") and \
        pb.get("type") == "urn:posenc:problem:too-large" and pb.get("status") == 413
    print(f"{'PASS' if ok else 'FAIL'} {name}: {method} {path} declaring {length} bytes -> {st} "
          f"{ctype} {body[:160]!r}")


def safetensors_chunks(big_bytes, wpe):
    """A .safetensors file: 'big' (F32, big_bytes of zeros) then 'wpe.weight' (F32 1024 x 8)."""
    n_big = big_bytes // 4
    wpe_bytes = struct.pack(f"<{len(wpe)}f", *wpe)
    header = {"big": {"dtype": "F32", "shape": [n_big], "data_offsets": [0, n_big * 4]},
              "wpe.weight": {"dtype": "F32", "shape": [1024, 8],
                             "data_offsets": [n_big * 4, n_big * 4 + len(wpe_bytes)]}}
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    total = 8 + len(h) + n_big * 4 + len(wpe_bytes)

    def gen():
        yield struct.pack("<Q", len(h)) + h
        zeros = bytes(1 << 20)
        left = n_big * 4
        while left:
            k = min(left, len(zeros))
            yield zeros[:k]
            left -= k
        yield wpe_bytes
    return total, gen()


def big_upload(lb, replicas):
    wpe = [((i * 8 + j) % 97) / 64.0 for i in range(1024) for j in range(8)]  # exact in float32
    total, body = safetensors_chunks(200 * 1000 * 1000, wpe)
    name = "dc-big-upload"
    st, _, out = request(lb, "PUT", f"/tables/{name}?tensor=wpe.weight", body,
                         {"Content-Type": "application/octet-stream",
                          "Content-Length": str(total)}, timeout=300)
    info = json.loads(out) if st in (200, 201) else {}
    st2, _, back = request(replicas[-1], "POST", "/learned",
                           json.dumps({"table": name, "positions": [0, 1023]}).encode(),
                           {"Content-Type": "application/json"})
    rows = json.loads(back).get("matrix") if st2 == 200 else None
    request(lb, "DELETE", f"/tables/{name}")
    want = [wpe[0:8], wpe[1023 * 8:1024 * 8]]
    ok = st in (200, 201) and info.get("shape") == [1024, 8] and rows == want
    print(f"{'PASS' if ok else 'FAIL'} big-upload: PUT {total} bytes of .safetensors through nginx "
          f"-> {st} {out[:140]!r}; POST /learned on replica port {replicas[-1]} -> {st2} "
          f"{'rows equal' if rows == want else back[:120]!r}")


def main():
    conf, lb, replicas = sys.argv[1], int(sys.argv[2]), [int(p) for p in sys.argv[3:]]
    body_max, table_max, buffering = conf_limits(conf)
    st, _, out = request(replicas[0], "GET", "/limits")
    lim = json.loads(out) if st == 200 else {}
    ok = lim.get("max_body_bytes") == body_max and lim.get("max_table_bytes") == table_max \
        and buffering == "off"
    print(f"{'PASS' if ok else 'FAIL'} limits: nginx client_max_body_size {body_max} / "
          f"{table_max} (/tables/, proxy_request_buffering {buffering}) vs GET /limits "
          f"max_body_bytes {lim.get('max_body_bytes')} / max_table_bytes "
          f"{lim.get('max_table_bytes')}")
    check_413("413-json", lb, "POST", "/rope", body_max + 1)
    check_413("413-tables", lb, "PUT", "/tables/dc-too-big", table_max + 1)
    big_upload(lb, replicas)


if __name__ == "__main__":
    main()
