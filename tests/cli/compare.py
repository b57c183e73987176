#!/usr/bin/env python3
"""tests/cli/compare.py -- build/posenc (in process) against build/posencd (over HTTP), byte for byte.

usage: compare.py POSENC POSENCD [--vectors DIR]

Starts two daemons on ephemeral loopback ports: one with the default limits and a data directory
holding one stored table, one with small limits (to check that the CLI's --max-* flags mean the
same as the daemon's). Every case sends the same request bytes to both and requires:
  * the same class: CLI exit 0 <-> 2xx, 1 <-> 4xx, 3 <-> 5xx;
  * the same bytes: stdout (2xx) or stderr minus the newline the CLI adds (problems) equals the
    daemon's body. Both sides use the request id "cli-check" (X-Request-Id / --request-id), so a
    problem's "instance" matches too.
Cases: every request of tests/vectors/**/*.json (route from the case's "endpoint" or its folder),
as JSON, as .npy and as .npz (Accept: application/x-npy / --npy, application/x-npz / --npz);
the choice of arrays (?array= / --array, chosen and refused); every request with a "config" again with
the config moved to a --config file; a few learned-table requests (built-in demo-512x64 and a
table stored in --data-dir); malformed and oversized bodies; the small-limits daemon.
Prints one line per failure and ends with "cli: N passed, N failed"; exit 1 on any failure.
"""
import argparse
import glob
import http.client
import json
import os
import subprocess
import sys
import tempfile

ENDPOINTS = {"rope": "/rope", "alibi": "/alibi", "sinusoidal": "/sinusoidal", "t5": "/t5/buckets",
             "attention": "/attention", "learned": "/learned", "errors": None}
RID = "cli-check"
SMALL = ["--max-body-bytes", "4096", "--max-output-elements", "64", "--max-positions", "16",
         "--max-dim", "32", "--max-heads", "4", "--max-work", "100000"]


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import common  # noqa: E402  (tests/hostile/common.py: posencd on an ephemeral loopback port)


class Daemon(common.Daemon):
    """posencd on 127.0.0.1:0 (common.Daemon) with one keep-alive HTTP connection."""

    def __init__(self, binary, extra):
        super().__init__(binary, ["--cors-origins", ""] + extra)
        self.conn = http.client.HTTPConnection(common.HOST, self.port, timeout=60)

    def request(self, method, path, body, headers):
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                r = self.conn.getresponse()
                self.warnings = r.getheader("X-Posenc-Warnings")
                return r.status, r.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(common.HOST, self.port, timeout=60)
                if attempt:
                    raise
        return None

    def post(self, path, body, npy):
        h = {"Content-Type": "application/json", "X-Request-Id": RID}
        if npy:
            h["Accept"] = "application/x-npz" if npy == "npz" else "application/x-npy"
        return self.request("POST", path, body, h)

    def close(self):
        self.conn.close()
        self.stop()
        self.cleanup()


def cli_class(rc):
    return {0: "2xx", 1: "4xx", 3: "5xx"}.get(rc, f"exit {rc}")


def http_class(status):
    return f"{status // 100}xx"


class Runner:
    def __init__(self, cli, tmp):
        self.cli, self.tmp = cli, tmp
        self.passed = self.failed = 0

    def run_cli(self, route, body, args):
        p = subprocess.run([self.cli, route.lstrip("/"), "-", "--request-id", RID] + args,
                           input=body, capture_output=True, timeout=120)
        return p.returncode, p.stdout, p.stderr

    def compare(self, name, daemon, route, body, npy, cli_args=(), cli_body=None, array=None):
        """npy: False (JSON), True (.npy) or "npz"; array: the daemon's ?array= / --array."""
        status, dbody = daemon.post(route + (f"?array={array}" if array is not None else ""),
                                    body, npy)
        args = list(cli_args) + ({"npz": ["--npz"], True: ["--npy"]}.get(npy, []))
        if array is not None:
            args += ["--array", array]
        # a binary answer's warnings: the daemon's X-Posenc-Warnings header, the CLI's stderr line
        hdr = daemon.warnings if npy else None
        want_err = f"posenc: warnings: {hdr}\n".encode() if hdr else b""
        rc, out, err = self.run_cli(route, body if cli_body is None else cli_body, args)
        got = out if rc == 0 else (err[:-1] if err.endswith(b"\n") else err)
        why = None
        if cli_class(rc) != http_class(status):
            why = f"daemon {status}, CLI {cli_class(rc)} ({err[:200]!r})"
        elif got != dbody:
            i = next((k for k in range(min(len(got), len(dbody))) if got[k] != dbody[k]),
                     min(len(got), len(dbody)))
            why = (f"bodies differ at byte {i} ({len(got)} vs {len(dbody)} bytes): "
                   f"CLI {got[max(0, i - 40):i + 40]!r} daemon {dbody[max(0, i - 40):i + 40]!r}")
        elif rc == 0 and err != want_err:
            why = f"exit 0, stderr {err[:200]!r}, want {want_err[:200]!r}"
        if why:
            self.failed += 1
            flag = {"npz": " --npz", True: " --npy"}.get(npy, "")
            print(f"FAIL {name}{flag}{'' if array is None else ' --array ' + array}: {why}")
        else:
            self.passed += 1

    def both(self, name, daemon, route, body, cli_args=(), cli_body=None):
        for npy in (False, True, "npz"):
            self.compare(name, daemon, route, body, npy, cli_args, cli_body)


def usage_cases(r, daemon, tmp):
    """Exit statuses and files of the command itself; returns the number of cases."""
    cfg = os.path.join(tmp, "llama.json")
    with open(cfg, "w") as f:
        json.dump({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 8,
                   "rope_theta": 10000.0, "max_position_embeddings": 2048}, f)
    bad_cfg = os.path.join(tmp, "bad.json")
    with open(bad_cfg, "w") as f:
        f.write("{\"hidden_size\": 256,")
    arr_cfg = os.path.join(tmp, "array.json")
    with open(arr_cfg, "w") as f:
        f.write("[1]")
    out = os.path.join(tmp, "out.json")
    ok_req = b'{"head_dim": 8, "seq_len": 2}'
    cases = [  # (name, argv after the binary, stdin, exit status, check of (stdout, stderr))
        ("no route", [], b"", 2, None),
        ("unknown route", ["nope"], ok_req, 2, lambda o, e: b"t5/buckets" in e),
        ("unknown option", ["rope", "--bogus"], ok_req, 2, None),
        ("missing file", ["rope", os.path.join(tmp, "missing.json")], b"", 2, None),
        ("limit below its bound", ["rope", "--max-dim", "1"], ok_req, 2, None),
        ("missing --data-dir", ["learned", "--data-dir", os.path.join(tmp, "nodir")],
         b'{"table": "demo-512x64", "positions": [0]}', 2, None),
        ("--version", ["--version"], b"", 0, lambda o, e: o.startswith(b"posenc 0.")),
        ("--help", ["--help"], b"", 0, lambda o, e: b"examples:" in o and b"Precedence" in o),
        ("--config not JSON", ["rope", "--config", bad_cfg], b"", 1,
         lambda o, e: json.loads(e)["status"] == 400 and bad_cfg.encode() in e),
        ("--config not an object", ["rope", "--config", arr_cfg], b"", 1,
         lambda o, e: json.loads(e)["errors"][0]["pointer"] == "/config"),
        ("-o on success", ["rope", "-o", out], ok_req, 0,
         lambda o, e: o == b"" and os.path.getsize(out) > 0),
        ("-o untouched on error", ["rope", "-o", out + ".err"], b'{"head_dim": 7}', 1,
         lambda o, e: not os.path.exists(out + ".err")),
    ]
    for name, argv, stdin, want_rc, check in cases:
        p = subprocess.run([r.cli] + argv, input=stdin, capture_output=True, timeout=60)
        good = p.returncode == want_rc and (check is None or check(p.stdout, p.stderr))
        r.passed += good
        r.failed += not good
        if not good:
            print(f"FAIL usage/{name}: exit {p.returncode} (want {want_rc}), stdout "
                  f"{p.stdout[:120]!r}, stderr {p.stderr[:200]!r}")
    # precedence: the request's "config" members override the file's; top-level fields stay
    with open(cfg) as f:
        merged = {"seq_len": 4, "config": dict(json.load(f), rope_theta=500000.0)}
    r.both("usage/--config precedence", daemon, "/rope", json.dumps(merged).encode(),
           ["--config", cfg], b'{"seq_len": 4, "config": {"rope_theta": 500000.0}}')
    return len(cases) + 1


def vector_cases(vdir):
    for f in sorted(glob.glob(os.path.join(vdir, "**", "*.json"), recursive=True)):
        family = os.path.basename(os.path.dirname(f))
        cases = json.load(open(f))
        if not isinstance(cases, list):  # tests/vectors/configs: config.json files, not cases
            continue
        for c in cases:
            if not isinstance(c, dict):
                continue
            ep = c.get("endpoint") or ENDPOINTS.get(family)
            if ep and isinstance(c.get("request"), (dict, list, str, int, float)):
                yield f"{family}/{c['id']}", ep, c["request"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("daemon")
    ap.add_argument("--vectors", default=os.path.join(os.path.dirname(__file__), "..", "vectors"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="posenc-cli-")
    data = os.path.join(tmp, "data")
    os.mkdir(data)
    full = Daemon(a.daemon, ["--data-dir", data])
    small = Daemon(a.daemon, ["--data-dir", ""] + SMALL)
    r = Runner(a.cli, tmp)
    try:
        n_vec = 0
        cfg_file = os.path.join(tmp, "config.json")
        for name, ep, req in vector_cases(a.vectors):
            body = json.dumps(req).encode()
            r.both(name, full, ep, body)
            n_vec += 1
            if isinstance(req, dict) and isinstance(req.get("config"), dict):
                # the same answer with the config in a file and the rest on stdin
                with open(cfg_file, "w") as f:
                    json.dump(req["config"], f)
                rest = {k: v for k, v in req.items() if k != "config"}
                r.both(name + " (--config)", full, ep, body, ["--config", cfg_file],
                       json.dumps(rest).encode())
        # learned tables: the built-in one, and one stored through the daemon in its data dir
        st, _ = full.request("PUT", "/tables/cli-small",
                             json.dumps({"data": [[0.5, -0.5], [0.25, 0.75], [1, 1]]}).encode(),
                             {"Content-Type": "application/json"})
        if st != 201:
            r.failed += 1
            print(f"FAIL PUT /tables/cli-small: {st}")
        learned = [
            {"table": "demo-512x64", "positions": [0, 1, 511]},
            {"table": "demo-512x64", "seq_len": 4, "offset": 100},
            {"table": "demo-512x64", "positions": [512]},
            {"table": "demo-512x64", "positions": [600], "extend": "copy"},
            {"table": "cli-small", "positions": [0, 2]},
            {"table": "cli-small", "seq_len": 5, "extend": "interpolate", "target_length": 5},
            {"table": "no-such-table", "positions": [0]},
        ]
        for i, req in enumerate(learned):
            r.both(f"learned/{i}", full, "/learned", json.dumps(req).encode(),
                   ["--data-dir", data])
        # bodies the handler never sees as an object
        odd = [b"{\"head_dim\": 8,", b"[1, 2]", b"", b"{\"a\":1,\"a\":2}", b"\xff\xfe"]
        for i, body in enumerate(odd):
            r.compare(f"odd/{i}", full, "/rope", body, False)
        # the small-limits daemon against the CLI with the same --max-* flags
        limited = [("/rope", {"head_dim": 8, "seq_len": 4, "include": ["cos_sin"]}),
                   ("/rope", {"head_dim": 8, "seq_len": 40, "include": ["cos_sin"]}),
                   ("/rope", {"head_dim": 64, "seq_len": 2}),
                   ("/sinusoidal", {"d_model": 16, "seq_len": 4}),
                   ("/sinusoidal", {"d_model": 16, "seq_len": 5}),
                   ("/alibi", {"num_heads": 8, "seq_len": 2}),
                   ("/rope", {"head_dim": 8, "seq_len": 2, "pad": "x" * 5000})]
        for i, (ep, req) in enumerate(limited):
            r.both(f"limits/{i}", small, ep, json.dumps(req).encode(), SMALL)
        # the choice of arrays (?array= / --array), chosen and refused
        qk = json.dumps({"head_dim": 8, "positions": [0, 3], "include": ["cos_sin_hf"],
                         "q": [[1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 0, 0, 0, 0, 0, 0]],
                         "k": [[8, 7, 6, 5, 4, 3, 2, 1], [1, 1, 1, 1, 1, 1, 1, 1]]}).encode()
        arrays = [(True, "sin"), (True, "sin_hf"), ("npz", "q_rotated,k_rotated"),
                  ("npz", "scores"), (True, "nope"), (True, "sin,cos"), ("npz", ""),
                  (False, "sin")]
        for i, (npy, array) in enumerate(arrays):
            r.compare(f"array/{i}", full, "/rope", qk, npy, array=array)
        n_usage = usage_cases(r, full, tmp)
        print(f"cli: {n_vec} vector requests (x JSON, .npy and .npz), {len(learned)} learned, "
              f"{len(arrays)} choices of arrays, "
              f"{len(odd)} malformed, {len(limited)} with small limits, {n_usage} usage cases")
    finally:
        full.close()
        small.close()
        subprocess.run(["rm", "-rf", tmp])
    print(f"cli: {r.passed} passed, {r.failed} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
