"""tests/hostile/writes.py -- writes need a key (issue 19), run by hostile.py.

With a token (POSENC_TOKEN or --write-token-file), PUT and DELETE /tables without it or with a
wrong one get 401 problem+json with WWW-Authenticate: Bearer (a PUT before its body is read), and
with it succeed; reads need nothing. CORS with "*" never grants PUT or DELETE in a preflight; a
configured origin gets them (and Authorization). (Refusing writes on a non-loopback bind without a
token is tested in tests/server/check_auth.c: tests listen on loopback only.)
"""
import json
import os
import tempfile

from common import connect, read_response, request

TABLE = json.dumps({"data": [[0.5, -0.25], [1.0, 2.0]]}).encode()
JSON = {"Content-Type": "application/json"}


def _put(port, name, auth=None):
    h = dict(JSON)
    if auth:
        h["Authorization"] = auth
    return request(port, "PUT", "/tables/" + name, TABLE, h)


def t_writes(binary):
    from hostile import Daemon, check
    out = []
    root = tempfile.mkdtemp(prefix="posenc-auth-")
    d = Daemon(binary, ["--data-dir", root], env={"POSENC_TOKEN": "s3cret-token"})
    try:
        for auth in (None, "Bearer wrong", "Basic czNjcmV0LXRva2Vu", "Bearer s3cret-token0"):
            st, h, b, _ = _put(d.port, "authz", auth)
            check(st == 401, "PUT with %s: %d %r" % (auth, st, b[:120]))
            check(h.get("www-authenticate", "").startswith("Bearer"),
                  "401 without WWW-Authenticate: Bearer: %s" % h)
            check(json.loads(b)["type"] == "urn:posenc:problem:unauthorized", b[:200])
        # refused at the headers: no 100 Continue, nothing of a large body read
        s = connect(d.port)
        s.sendall(b"PUT /tables/big HTTP/1.1\r\nHost: l\r\nContent-Type: application/json\r\n"
                  b"Expect: 100-continue\r\nContent-Length: 1000000\r\n\r\n")
        st = read_response(s, 3)[0]
        s.close()
        check(st == 401, "PUT with Expect and no token: %d first" % st)
        st = request(d.port, "GET", "/tables/authz")[0]
        check(st == 404, "a refused PUT stored the table: GET %d" % st)
        st = _put(d.port, "authz", "Bearer s3cret-token")[0]
        check(st == 201, "PUT with the token: %d" % st)
        st = request(d.port, "GET", "/tables/authz")[0]
        check(st == 200, "GET without a token: %d" % st)
        st, h, _, _ = request(d.port, "DELETE", "/tables/authz")
        check(st == 401 and "www-authenticate" in h, "DELETE without a token: %d" % st)
        st = request(d.port, "DELETE", "/tables/authz", headers={"Authorization": "bearer s3cret-token"})[0]
        check(st == 204, "DELETE with the token: %d" % st)
        out.append("POSENC_TOKEN: PUT/DELETE without or with a wrong token -> 401 Bearer, with it "
                   "201/204; GET open")
        # CORS "*" (the default): a preflight never offers the write methods
        st, h, _, _ = request(d.port, "OPTIONS", "/tables/x", headers={
            "Origin": "https://evil.example", "Access-Control-Request-Method": "PUT"})
        methods = h.get("access-control-allow-methods", "")
        check(st == 204 and "PUT" not in methods and "DELETE" not in methods,
              "CORS * preflight offers %r" % methods)
        check("PUT" in h.get("allow", ""), "Allow lost PUT: %s" % h.get("allow"))
        out.append("CORS *: preflight methods %r" % methods)
    finally:
        d.cleanup()
    tok = os.path.join(root, "token")
    with open(tok, "w") as f:
        f.write("file-token\n")
    d = Daemon(binary, ["--data-dir", root, "--write-token-file", tok, "--cors-origins",
                        "https://app.example"])
    try:
        check(_put(d.port, "authf")[0] == 401, "--write-token-file: PUT without it")
        check(_put(d.port, "authf", "Bearer file-token")[0] == 201, "--write-token-file: PUT")
        st, h, _, _ = request(d.port, "OPTIONS", "/tables/x", headers={
            "Origin": "https://app.example", "Access-Control-Request-Method": "PUT"})
        methods = h.get("access-control-allow-methods", "")
        check("PUT" in methods and "DELETE" in methods, "configured origin: %r" % methods)
        check("authorization" in h.get("access-control-allow-headers", "").lower(),
              "configured origin: Authorization not allowed")
        out.append("--write-token-file: 401 / 201; a configured origin gets %r" % methods)
    finally:
        d.cleanup()
        for n in os.listdir(root):
            os.unlink(os.path.join(root, n))
        os.rmdir(root)
    return "; ".join(out)


TESTS = {"writes": t_writes}
DEADLINE = {"writes": 30}
