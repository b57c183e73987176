"""tests/replay/catalog.py -- the request list of the replay (replay.py), built deterministically
from this repository's files: the route x Accept matrix, tests/vectors, openapi.yaml's examples,
fuzz/corpus and a grid of generated valid bodies. README.md says what each source holds.
Python 3 standard library plus python3-yaml.
"""
import glob
import json
import os
import re
import struct

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ACCEPTS = [  # Accept variants for every route that answers a body or a table
    None,
    "application/json",
    "application/x-npy",
    "application/json, application/x-npy;q=0",
    "application/x-npy;q=0.5, application/json",
    "application/json;q=0.5, application/x-npy",
    "application/x-npy, application/json",
    "*/*",
    "text/html",
]
NPY = "application/x-npy"
JSON_CT = "application/json"

COMPUTE_ROUTES = ["/sinusoidal", "/rope", "/alibi", "/attention", "/t5/buckets", "/learned"]
GET_ROUTES = ["/healthz", "/readyz", "/limits", "/version", "/openapi.yaml"]  # /metrics: at the end

# Small valid bodies per compute route (the route x Accept matrix); each is answered 200.
BASE_BODIES = {
    "/sinusoidal": [{"d_model": 8, "seq_len": 3},
                    {"d_model": 6, "positions": [0, 7, 100], "convention": "tensor2tensor"}],
    "/rope": [{"head_dim": 8, "positions": [0, 1, 5]},
              {"head_dim": 4, "q": [[1, 2, 3, 4], [0, 1, 0, 1]], "k": [[1, 0, 0, 1], [2, 2, 1, 1]],
               "q_positions": [0, 3], "k_positions": [1, 2]},
              {"head_dim": 4, "base": 100, "axes": {"type": "axial"},
               "positions": [[0, 0], [1, 2]]}],
    "/alibi": [{"num_heads": 4, "seq_len": 3},
               {"num_heads": 2, "query_positions": [2], "key_positions": [0, 1, 2],
                "scores": [[1, 2, 3]]}],
    "/attention": [{"q": [[1, 0], [0, 1]], "k": [[1, 1], [0, 2]], "v": [[1, 0], [0, 1]],
                    "method": "none", "causal": True},
                   {"q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [0, 1], [1, 1]],
                    "method": "alibi", "alibi": {"num_heads": 2}}],
    "/t5/buckets": [{"relative_positions": [-40, -3, 0, 1, 200]},
                    {"query_positions": [0, 3], "key_positions": [0, 1, 2, 3]}],
    "/learned": [{"table": "demo-512x64", "positions": [0, 1, 511]},
                 {"table": "t", "seq_len": 3}],
}

# fuzz/corpus/<dir> -> how its files are sent (fuzz/make_seeds.py and fuzz/README.md say what
# each harness takes): ("POST", route) or ("PUT", Content-Type) for table uploads.
FUZZ_DIRS = {
    "sinusoidal": ("POST", "/sinusoidal"),
    "rope": ("POST", "/rope"),
    "rope_config": ("POST", "/rope"),  # {"config": ...} bodies, or a bare config (then a 422)
    "alibi": ("POST", "/alibi"),
    "attention": ("POST", "/attention"),
    "t5_buckets": ("POST", "/t5/buckets"),
    "learned": ("POST", "/learned"),
    "table_json": ("PUT", "application/json"),
    "npy": ("PUT", "application/x-npy"),
    "safetensors": ("PUT", "application/x-safetensors"),
}
VECTOR_FOLDER_EP = {"rope": "/rope", "rope2d": "/rope", "alibi": "/alibi",
                    "sinusoidal": "/sinusoidal", "t5": "/t5/buckets", "attention": "/attention",
                    "relative": "/attention", "learned": "/learned"}


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# ---- generated tables ------------------------------------------------------------------------

def table_values(rows, cols, k):
    """Deterministic, exactly representable values: (i*cols + j + k) / 16 - rows/2."""
    return [[(i * cols + j + k) / 16.0 - rows / 2.0 for j in range(cols)] for i in range(rows)]


def npy_bytes(rows, cols, k, descr="<f8"):
    fmt = {"<f8": "<d", "<f4": "<f", "<f2": "<e"}[descr]
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, rows, cols)
    pad = 64 - (10 + len(hdr) + 1) % 64
    hdr = hdr + " " * (pad % 64) + "\n"
    data = b"".join(struct.pack(fmt, v) for row in table_values(rows, cols, k) for v in row)
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode("latin-1") + data


def safetensors_bytes(tensors):
    """tensors: [(name, rows, cols, k)] as F32."""
    header, data = {}, b""
    for name, rows, cols, k in tensors:
        raw = b"".join(struct.pack("<f", v) for row in table_values(rows, cols, k) for v in row)
        header[name] = {"dtype": "F32", "shape": [rows, cols],
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


# ---- the request list ------------------------------------------------------------------------

class Req:
    __slots__ = ("id", "source", "method", "path", "headers", "body", "accept")

    def __init__(self, rid, source, method, path, headers=None, body=None, accept=None):
        self.id, self.source, self.method, self.path = rid, source, method, path
        self.headers = list(headers or [])
        self.accept = accept
        if accept is not None:
            self.headers.append(("Accept", accept))
        self.body = body


def post(rid, source, path, body, accept=None, ct=JSON_CT, extra=None):
    h = [("Content-Type", ct)] if ct else []
    return Req(rid, source, "POST", path, h + list(extra or []), body, accept)


def acc_tag(a):
    return "none" if a is None else re.sub(r"[^a-z0-9.=]+", "_", a.lower()).strip("_")


def put_table(rid, source, name, body, ct, query=""):
    """A table upload followed by reading it back (JSON and .npy) and deleting it."""
    path = "/tables/" + name
    return [Req(rid + "/put", source, "PUT", path + query, [("Content-Type", ct)], body),
            Req(rid + "/get-json", source, "GET", path),
            Req(rid + "/get-npy", source, "GET", path, accept=NPY),
            Req(rid + "/delete", source, "DELETE", path)]


def seed_requests():
    """Tables both daemons hold for the rest of the replay: the learned fuzz harness's fakes
    (t 5x8, gpt2 64x16, one 1x1; fuzz/README.md) and one table per upload format."""
    out = []
    for name, rows, cols, k in (("t", 5, 8, 0), ("gpt2", 64, 16, 1), ("one", 1, 1, 2)):
        out.append(Req("seed/" + name, "seed", "PUT", "/tables/" + name,
                       [("Content-Type", JSON_CT)], compact({"data": table_values(rows, cols, k)})))
    out.append(Req("seed/t-replace", "seed", "PUT", "/tables/t", [("Content-Type", JSON_CT)],
                   compact({"data": table_values(5, 8, 0)})))  # 200 replaced
    out.append(Req("seed/npy-f4", "seed", "PUT", "/tables/npy-f4",
                   [("Content-Type", NPY)], npy_bytes(7, 3, 3, "<f4")))
    out.append(Req("seed/npy-f2", "seed", "PUT", "/tables/npy-f2",
                   [("Content-Type", NPY)], npy_bytes(2, 4, 4, "<f2")))
    st = safetensors_bytes([("bias", 1, 4, 5), ("model.embed_positions.weight", 6, 4, 6)])
    out.append(Req("seed/st-named", "seed", "PUT",
                   "/tables/st-named?tensor=model.embed_positions.weight",
                   [("Content-Type", "application/x-safetensors")], st))
    out.append(Req("seed/st-octet", "seed", "PUT", "/tables/st-octet",
                   [("Content-Type", "application/octet-stream")],
                   safetensors_bytes([("w", 3, 2, 7)])))
    out.append(Req("seed/st-ambiguous", "seed", "PUT", "/tables/st-ambiguous",
                   [("Content-Type", "application/x-safetensors")], st))  # two 2-D: 422
    return out


def route_requests():
    out = []
    for route in COMPUTE_ROUTES:
        r = route.strip("/").replace("/", "_")
        for bi, body in enumerate(BASE_BODIES[route]):
            raw = compact(body)
            for a in ACCEPTS:
                out.append(post(f"routes/{r}/{bi}/accept-{acc_tag(a)}", "routes", route, raw, a))
            if route != "/t5/buckets":
                b32 = dict(body, dtype="float32")
                out.append(post(f"routes/{r}/{bi}/f32-npy", "routes", route, compact(b32), NPY))
                out.append(post(f"routes/{r}/{bi}/f32-json", "routes", route, compact(b32)))
            out.append(post(f"routes/{r}/{bi}/charset", "routes", route, raw,
                            ct="application/json; charset=utf-8"))
        raw = compact(BASE_BODIES[route][0])
        out.append(post(f"routes/{r}/malformed", "routes", route, b'{"a":', None))
        out.append(post(f"routes/{r}/malformed-npy", "routes", route, b'{"a":', NPY))
        out.append(post(f"routes/{r}/not-object", "routes", route, b"[1,2]", None))
        out.append(post(f"routes/{r}/empty", "routes", route, b"", None))
        out.append(post(f"routes/{r}/unknown-field", "routes", route,
                        compact(dict(BASE_BODIES[route][0], no_such_field=1)), None))
        out.append(post(f"routes/{r}/wrong-ct", "routes", route, raw, None, ct="text/plain"))
        out.append(post(f"routes/{r}/no-ct", "routes", route, raw, None, ct=None))
        for m in ("GET", "HEAD", "PUT", "DELETE", "OPTIONS"):
            out.append(Req(f"routes/{r}/{m.lower()}", "routes", m, route))
        out.append(Req(f"routes/{r}/trailing-slash", "routes", "POST", route + "/",
                       [("Content-Type", JSON_CT)], raw))
        out.append(Req(f"routes/{r}/query", "routes", "POST", route + "?x=1",
                       [("Content-Type", JSON_CT)], raw))
    for path in GET_ROUTES:
        r = path.strip("/")
        for m in ("GET", "HEAD", "OPTIONS", "POST", "DELETE"):
            out.append(Req(f"routes/{r}/{m.lower()}", "routes", m, path))
        out.append(Req(f"routes/{r}/get-npy", "routes", "GET", path, accept=NPY))
    out.append(Req("routes/request-id", "routes", "GET", "/healthz",
                   [("X-Request-Id", "replay-1")]))
    out.append(Req("routes/request-id-bad", "routes", "GET", "/healthz",
                   [("X-Request-Id", "bad id!")]))
    out.append(Req("routes/problem-request-id", "routes", "POST", "/rope",
                   [("Content-Type", JSON_CT), ("X-Request-Id", "client-42")], b"{"))
    # /tables and /tables/NAME
    for m in ("GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE"):
        out.append(Req(f"routes/tables/{m.lower()}", "routes", m, "/tables"))
    out.append(Req("routes/tables/get-npy", "routes", "GET", "/tables", accept=NPY))
    for name in ("demo-512x64", "t", "gpt2", "one", "npy-f4", "npy-f2", "st-named", "st-octet"):
        for a in ACCEPTS:
            out.append(Req(f"routes/table/{name}/get-{acc_tag(a)}", "routes", "GET",
                           "/tables/" + name, accept=a))
        out.append(Req(f"routes/table/{name}/head", "routes", "HEAD", "/tables/" + name))
        out.append(Req(f"routes/table/{name}/head-npy", "routes", "HEAD", "/tables/" + name,
                       accept=NPY))
    out.append(Req("routes/table/options", "routes", "OPTIONS", "/tables/t"))
    out.append(Req("routes/table/post", "routes", "POST", "/tables/t",
                   [("Content-Type", JSON_CT)], b"{}"))
    for name in ("missing", "bad%20name", "a%00b", "..", "-x", "x" * 65):
        out.append(Req(f"routes/table/{name[:12]}/get", "routes", "GET", "/tables/" + name))
        out.append(Req(f"routes/table/{name[:12]}/delete", "routes", "DELETE", "/tables/" + name))
        out.append(Req(f"routes/table/{name[:12]}/put", "routes", "PUT", "/tables/" + name,
                       [("Content-Type", JSON_CT)], b'{"data":[[1]]}'))
    out.append(Req("routes/table/builtin-delete", "routes", "DELETE", "/tables/demo-512x64"))
    out.append(Req("routes/table/builtin-put", "routes", "PUT", "/tables/demo-512x64",
                   [("Content-Type", JSON_CT)], b'{"data":[[1]]}'))
    out.append(Req("routes/table/put-wrong-ct", "routes", "PUT", "/tables/x",
                   [("Content-Type", "text/csv")], b"1,2"))
    out.append(Req("routes/table/put-no-ct", "routes", "PUT", "/tables/x", [], b"1,2"))
    out.append(Req("routes/table/put-bad-json", "routes", "PUT", "/tables/x",
                   [("Content-Type", JSON_CT)], b'{"data":[[1,2],[3]]}'))
    out += put_table("routes/table/json-roundtrip", "routes", "rt-json",
                     compact({"data": [[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]}), JSON_CT)
    out += put_table("routes/table/npy-roundtrip", "routes", "rt-npy", npy_bytes(4, 5, 8), NPY)
    out += put_table("routes/table/st-roundtrip", "routes", "rt-st",
                     safetensors_bytes([("pos", 3, 3, 9)]), "application/x-safetensors")
    out.append(Req("routes/table/delete-again", "routes", "DELETE", "/tables/rt-json"))
    # static files (the default web dir's tree, as this repository has it)
    static = ["/", "/docs", "/docs/"]
    web = os.path.join(ROOT, "web")
    for dirpath, dirnames, files in os.walk(web):
        dirnames.sort()
        for f in sorted(files):
            static.append("/" + os.path.relpath(os.path.join(dirpath, f), web).replace(os.sep, "/"))
    for i, p in enumerate(static):
        out.append(Req(f"routes/static/{i}{p}", "routes", "GET", p))
    for p in ("/", "/index.html", "/docs"):
        for m in ("HEAD", "OPTIONS", "POST"):
            out.append(Req(f"routes/static/{m.lower()}{p}", "routes", m, p))
    for p in ("/nope", "/nope.js", "/../openapi.yaml", "/js/../index.html", "//index.html",
              "/docs/nope", "/web/index.html", "/index.html%00"):
        out.append(Req(f"routes/static/miss{p}", "routes", "GET", p))
    out.append(Req("routes/static/miss-post", "routes", "POST", "/nope",
                   [("Content-Type", JSON_CT)], b"{}"))
    return out


def vector_requests():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "vectors", "**", "*.json"),
                                 recursive=True)):
        family = os.path.basename(os.path.dirname(path))
        cases = json.load(open(path, encoding="utf-8"))
        rel = os.path.relpath(path, os.path.join(ROOT, "tests", "vectors"))
        for i, c in enumerate(cases if isinstance(cases, list) else []):
            if not isinstance(c, dict) or "request" not in c:
                continue
            ep = c.get("endpoint") or VECTOR_FOLDER_EP.get(family)
            if ep is None:
                continue
            body = compact(c["request"])
            rid = f"vectors/{rel}/{i}:{c.get('id', '')}"
            out.append(post(rid, "vectors", ep, body))
            out.append(post(rid + "/npy", "vectors", ep, body, NPY))
    return out


def openapi_requests():
    spec = yaml.safe_load(open(os.path.join(ROOT, "openapi.yaml"), encoding="utf-8"))
    comps = spec.get("components", {}).get("parameters", {})

    def params(op, ops):
        ps = []
        for p in list(ops.get("parameters", [])) + list(op.get("parameters", [])):
            if "$ref" in p:
                p = comps.get(p["$ref"].rsplit("/", 1)[-1], {})
            ps.append(p)
        return ps

    out = []
    for path in sorted(spec.get("paths", {})):
        ops = spec["paths"][path]
        for method in ("get", "head", "put", "post", "delete", "options"):
            op = ops.get(method)
            if not isinstance(op, dict):
                continue
            ps = params(op, ops)
            concrete, headers, accepts, query = path, [], [None], ""
            for p in ps:
                ex = p.get("example")
                exs = [e.get("value") for e in (p.get("examples") or {}).values()]
                if p.get("in") == "path":
                    v = "openapi-" + method if method == "put" else ex  # PUT the example name: 409
                    concrete = concrete.replace("{" + p["name"] + "}", str(v))
                elif p.get("in") == "header" and p.get("name") == "Accept":
                    accepts = [None] + exs + ([ex] if ex else [])
                elif p.get("in") == "header" and ex is not None:
                    headers.append((p["name"], str(ex)))
                elif p.get("in") == "query" and ex is not None:
                    query = "?%s=%s" % (p["name"], ex)
            content = (op.get("requestBody") or {}).get("content", {})
            bodies = []
            for ct in sorted(content):
                for name, e in sorted((content[ct].get("examples") or {}).items()):
                    bodies.append((ct, name, compact(e.get("value"))))
                if "example" in content[ct]:
                    bodies.append((ct, "example", compact(content[ct]["example"])))
            base = f"openapi/{method.upper()} {path}"
            if not bodies:
                for a in accepts:
                    out.append(Req(f"{base}/accept-{acc_tag(a)}", "openapi", method.upper(),
                                   concrete, headers, None, a))
                if method == "put":
                    out.append(Req(f"{base}/delete", "openapi", "DELETE", concrete))
                continue
            for ct, name, body in bodies:
                if method == "put":
                    out += put_table(f"{base}/{name}", "openapi", f"openapi-{name}", body, ct)
                    continue
                for a in accepts:
                    out.append(Req(f"{base}/{name}/accept-{acc_tag(a)}", "openapi",
                                   method.upper(), concrete + query,
                                   [("Content-Type", ct)] + headers, body, a))
    return out


def fuzz_requests():
    out = []
    for d in sorted(FUZZ_DIRS):
        kind, arg = FUZZ_DIRS[d]
        for i, f in enumerate(sorted(glob.glob(os.path.join(ROOT, "fuzz", "corpus", d, "*")))):
            body = open(f, "rb").read()
            rid = f"fuzz/{d}/{os.path.basename(f)}"
            if kind == "POST":
                out.append(post(rid, "fuzz", arg, body))
                out.append(post(rid + "/npy", "fuzz", arg, body, NPY))
            else:
                out += put_table(rid, "fuzz", f"fz-{d}-{i:03d}", body, arg)
    return out


def mat(rows, cols, k):
    """A small deterministic matrix with values in [-1, 1] in steps of 1/8."""
    return [[((i * cols + j * 3 + k) % 17 - 8) / 8.0 for j in range(cols)] for i in range(rows)]


def generated_bodies():
    """Valid bodies over a grid of each route's parameters: the fuzz corpora are mostly bad
    input (about 40 % answered 200), these keep the replayed bodies at least half 200s."""
    g = []
    for d in (2, 3, 4, 5, 8, 12, 16, 33, 64):
        for conv in ("vaswani", "tensor2tensor", "fairseq"):
            if conv == "fairseq" and d < 4:
                continue  # fairseq refuses d_model 2 and 3
            for pos in ({"seq_len": 4}, {"positions": [0, 1, 9, 100]},
                        {"seq_len": 2, "offset": 1000}):
                g.append(("/sinusoidal", dict({"d_model": d, "convention": conv}, **pos)))
    for d in (4, 8):
        for conv in ("vaswani", "tensor2tensor", "fairseq"):
            for layout in ("interleaved", "concat"):
                g.append(("/sinusoidal", {"d_model": d, "convention": conv, "layout": layout,
                                          "seq_len": 3, "base": 100}))
    scalings = [None, {"rope_type": "linear", "factor": 2},
                {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4,
                 "original_max_position_embeddings": 8192},
                {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 2048}]
    for hd in (2, 4, 8, 16, 64):
        for base in (10000, 500000):
            for sc in scalings:
                body = {"head_dim": hd, "rope_theta": base, "positions": [0, 1, 7, 4095]}
                if sc:
                    body["rope_scaling"] = sc
                g.append(("/rope", body))
    for hd in (2, 4, 8):
        q = mat(3, hd, 1)
        k = mat(3, hd, 2)
        g.append(("/rope", {"head_dim": hd, "q": q, "k": k, "q_positions": [0, 1, 2],
                            "k_positions": [5, 6, 7]}))
        g.append(("/rope", {"head_dim": hd, "q": q[0], "k": k[0], "q_positions": [0, 3],
                            "k_positions": [1, 9]}))
    for typ, pos in (("axial", [[0, 0], [1, 0], [0, 1], [3, 2]]),
                     ("mrope", [[0, 0, 0], [1, 2, 3]])):
        for hd in (8, 16):
            body = {"head_dim": hd, "axes": {"type": typ}, "positions": pos}
            if typ == "mrope":
                body["axes"]["sections"] = [hd // 4, hd // 8, hd // 8]
            g.append(("/rope", body))
    for h in range(1, 17):
        g.append(("/alibi", {"num_heads": h, "seq_len": 3}))
        g.append(("/alibi", {"num_heads": h, "seq_len": 4, "mode": "symmetric"}))
        g.append(("/alibi", {"num_heads": h, "query_positions": [2, 5],
                             "key_positions": [0, 1, 5]}))
        g.append(("/alibi", {"num_heads": h, "query_positions": [3], "key_positions": [0, 1, 2, 3],
                             "scores": [[2, 1, 3, 2]]}))
    for nb in (8, 16, 32):
        for md in (40, 128):
            for bi in (True, False):
                g.append(("/t5/buckets", {"num_buckets": nb, "max_distance": md,
                                          "bidirectional": bi,
                                          "relative_positions": [-300, -20, -1, 0, 2, 70]}))
                g.append(("/t5/buckets", {"num_buckets": nb, "max_distance": md,
                                          "bidirectional": bi, "query_positions": [0, 50],
                                          "key_positions": [0, 7, 200]}))
    for t, rows in (("t", 5), ("gpt2", 64), ("one", 1), ("demo-512x64", 512)):
        g.append(("/learned", {"table": t, "positions": [0, rows - 1]}))
        g.append(("/learned", {"table": t, "seq_len": 1, "offset": rows - 1}))
        g.append(("/learned", {"table": t, "seq_len": 3, "offset": rows, "extend": "copy"}))
        if rows > 1:
            g.append(("/learned", {"table": t, "positions": [0, 2 * rows - 1],
                                   "extend": "interpolate", "target_length": 2 * rows}))
    for d in (2, 4):
        q, k, v = mat(3, d, 0), mat(3, d, 5), mat(3, d, 11)
        t5bias = [((i % 5) - 2) / 4.0 for i in range(32)]
        settings = [("none", None), ("sinusoidal", {}), ("rope", {}),
                    ("alibi", {"num_heads": 1}), ("t5", {"bias": t5bias}),
                    ("shaw", {"max_relative_position": 2, "key_embeddings": mat(5, d, 3)}),
                    ("transformer_xl", {})]
        for method, s in settings:
            for causal in (True, False):
                body = {"q": q, "k": k, "v": v, "method": method, "causal": causal}
                if s is not None:
                    body[method] = s
                g.append(("/attention", body))
    q16 = mat(2, 16, 4)
    for causal in (True, False):
        g.append(("/attention", {"q": q16, "k": q16, "v": q16, "method": "learned",
                                 "learned": {"table": "gpt2"}, "causal": causal}))
    return g


def generated_requests():
    out = []
    for i, (route, body) in enumerate(generated_bodies()):
        out.append(post(f"generated/{i:03d}{route}", "generated", route, compact(body)))
        out.append(post(f"generated/{i:03d}{route}/npy", "generated", route, compact(body), NPY))
    return out


def final_requests():
    return [Req("final/tables", "final", "GET", "/tables"),
            Req("final/metrics", "final", "GET", "/metrics")]


def all_requests():
    reqs = (seed_requests() + route_requests() + vector_requests() + openapi_requests()
            + fuzz_requests() + generated_requests() + final_requests())
    empty = {"seed", "routes", "vectors", "openapi", "fuzz", "generated"} - {r.source for r in reqs}
    if empty:  # a moved folder must not shrink the replay silently
        raise RuntimeError("no requests from: " + ", ".join(sorted(empty)))
    seen = set()
    for r in reqs:  # ids name requests in the report and in expected_diffs.json: keep them unique
        base, n = r.id, 2
        while r.id in seen:
            r.id = f"{base}#{n}"
            n += 1
        seen.add(r.id)
    return reqs
