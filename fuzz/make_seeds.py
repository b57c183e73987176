#!/usr/bin/env python3
"""fuzz/make_seeds.py -- (re)writes the seed corpora under fuzz/corpus/<harness>/ and the
dictionaries fuzz/posenc.dict (JSON field names and enum values) and fuzz/tensor.dict (.npy and
.safetensors tokens).

Seeds:
- every case's `request` in tests/vectors/*/*.json, to the harness of its endpoint (the case's
  `endpoint`, else its folder: rope -> rope, alibi -> alibi, ...);
- the bad-input bodies of the unit tests: C string literals starting with '{' in
  tests/api/check_api_<x>.c and friends, to the harness of that file;
- pasted configs for the config resolver (config_paste cases plus hand-written ones);
- hand-made .npy and .safetensors files (valid ones of every accepted dtype and version, and
  the usual wrong ones: big-endian, Fortran order, 3-D, truncated, NaN, bad offsets).
Stdlib only. Run from anywhere: python3 fuzz/make_seeds.py
"""
import glob
import hashlib
import json
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
MAX_SEED = 16384  # bytes; larger requests are left out (max_len of the JSON harnesses)

FOLDER_EP = {"rope": "/rope", "rope2d": "/rope", "alibi": "/alibi", "sinusoidal": "/sinusoidal",
             "t5": "/t5/buckets", "attention": "/attention", "relative": "/attention",
             "learned": "/learned"}
EP_HARNESS = {"/rope": "rope", "/alibi": "alibi", "/sinusoidal": "sinusoidal",
              "/t5/buckets": "t5_buckets", "/attention": "attention", "/learned": "learned"}
TEST_HARNESS = {"check_api_rope": "rope", "check_rope_axes": "rope", "check_rope_models": "rope",
                "check_api_alibi": "alibi", "check_api_attention": "attention",
                "check_api_attention_rope": "attention", "check_relative": "attention",
                "check_api_t5": "t5_buckets", "check_api_sinusoidal": "sinusoidal",
                "check_api_learned": "learned", "check_tensor_io": "table_json"}

written = {}


def put(harness, data, tag):
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > MAX_SEED and harness not in ("npy", "safetensors"):
        return
    d = os.path.join(CORPUS, harness)
    os.makedirs(d, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9._-]", "_", tag)[:60] + "-" + hashlib.sha1(data).hexdigest()[:10]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    written[harness] = written.get(harness, 0) + 1


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def vector_seeds():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "vectors", "*", "*.json"))):
        family = os.path.basename(os.path.dirname(path))
        try:
            cases = json.load(open(path, encoding="utf-8"))
        except (ValueError, OSError):
            continue
        if not isinstance(cases, list):
            continue
        for c in cases:
            if not isinstance(c, dict) or "request" not in c:
                continue
            ep = c.get("endpoint") or FOLDER_EP.get(family)
            h = EP_HARNESS.get(ep)
            if h is None:
                continue
            put(h, compact(c["request"]), c.get("id", "case"))
            if isinstance(c["request"], dict) and isinstance(c["request"].get("config"), dict):
                put("rope_config", compact(c["request"]), c.get("id", "cfg"))


LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def c_unescape(s):
    out = bytearray()
    i = 0
    b = s.encode("utf-8")
    while i < len(b):
        ch = b[i]
        if ch == 0x5C and i + 1 < len(b):
            n = chr(b[i + 1])
            simple = {"n": 10, "t": 9, "r": 13, '"': 34, "\\": 92, "'": 39, "0": 0}
            if n == "x":
                m = re.match(rb"[0-9a-fA-F]{1,2}", b[i + 2:])
                out.append(int(m.group(0), 16))
                i += 2 + len(m.group(0))
                continue
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
        out.append(ch)
        i += 1
    return bytes(out)


def test_seeds():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "*", "check_*.c"))):
        base = os.path.splitext(os.path.basename(path))[0]
        h = TEST_HARNESS.get(base)
        if h is None:
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        # join adjacent literals ("a" "b"), then keep those that start like a JSON body
        for m in re.finditer(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+', text):
            parts = LIT.findall(m.group(0))
            body = b"".join(c_unescape(p) for p in parts)
            if body[:1] in (b"{", b"[") and len(body) > 1:
                put(h, body, base)


CONFIGS = [
    {"config": {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64}},
    {"config": {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
                "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                "rope_scaling": {"type": "su", "short_factor": [1.0] * 48,
                                 "long_factor": [1.5] * 48}}},
    {"config": {"model_type": "llama", "head_dim": 128, "rope_theta": 500000.0,
                "rope_parameters": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                    "high_freq_factor": 4.0,
                                    "original_max_position_embeddings": 8192,
                                    "rope_theta": 500000.0}}},
    {"config": {"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "rope_interleave": False,
                "rope_scaling": {"type": "yarn", "factor": 40, "mscale": 1.0,
                                 "mscale_all_dim": 1.0, "beta_fast": 32, "beta_slow": 1,
                                 "original_max_position_embeddings": 4096}}},
    {"config": {"model_type": "qwen2_vl", "hidden_size": 1536, "num_attention_heads": 12,
                "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}},
    {"config": {"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64,
                "rotary_pct": 0.25, "rotary_emb_base": 10000}},
    {"config": {"hidden_size": 4096, "num_attention_heads": 32, "partial_rotary_factor": 0.5,
                "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
                "max_position_embeddings": 4096}},
    {"config": {"hidden_size": 4095, "num_attention_heads": 32}},
    {"config": {"head_dim": 1.5e300, "rope_theta": -1, "rope_scaling": {"type": "linear"}}},
    {"config": {"rope_scaling": {"type": "longrope", "factor": 1e-300, "short_factor": "x"}}},
    {"config": {"rope_scaling": {"type": "ntk", "alpha": 8}, "head_dim": 64}},
    {"config": {"rope_scaling": None, "rope_parameters": {"rope_type": "default"}}},
    {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048, "truncate": False,
     "attention_factor": 0.5},
    {"rope_type": "linear", "type": "dynamic", "factor": 2},
]


def config_seeds():
    for i, c in enumerate(CONFIGS):
        put("rope_config", compact(c), "cfg%d" % i)
        put("rope", compact(c), "cfg%d" % i)


LEARNED = [
    {"table": "t", "seq_len": 5}, {"table": "gpt2", "positions": [0, 63, 7]},
    {"table": "t", "seq_len": 9, "extend": "copy"},
    {"table": "t", "positions": [0, 100], "extend": "interpolate", "target_length": 200},
    {"table": "one", "seq_len": 3, "offset": 2, "extend": "copy"},
    {"table": "nope", "seq_len": 1}, {"table": "../x", "seq_len": 1},
    {"table": "t", "seq_len": 6}, {"table": "t", "target_length": 3},
]
ATTENTION_EXTRA = [
    {"q": [[1, 0], [0, 1]], "k": [[1, 0], [0, 1]], "method": {"learned": {"table": "t"}}},
    {"q": [[1, 0, 0, 0, 0, 0, 0, 0]], "k": [[1, 0, 0, 0, 0, 0, 0, 0]],
     "method": {"learned": {"table": "t", "extend": "interpolate", "target_length": 9}}},
]


def handler_extra_seeds():
    for i, r in enumerate(LEARNED):
        put("learned", compact(r), "learned%d" % i)
    for i, r in enumerate(ATTENTION_EXTRA):
        put("attention", compact(r), "att_extra%d" % i)
    for h in ("sinusoidal", "rope", "alibi", "attention", "t5_buckets", "learned"):
        put(h, "[" * 3000, "deep")
        put(h, '{"a":1,"a":2}', "dup")
        put(h, "{}", "empty")
    put("table_json", compact({"data": [[1, 2], [3, 4]]}), "ok")
    put("table_json", compact({"data": [[1, 2], [3]]}), "ragged")
    put("table_json", compact({"data": [[1e308, -1e308, 5e-324]]}), "extremes")
    put("table_json", compact({"data": []}), "empty")
    put("table_json", compact({"data": [[1]], "x": 1}), "unknown")


# ---- .npy --------------------------------------------------------------------------------

def npy(descr="<f4", shape=(2, 3), fortran=False, version=(1, 0), data=None, pad=True):
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False",
        "(%s)" % ", ".join(str(x) for x in shape) + ("," if len(shape) == 1 else "")
        if len(shape) != 1 else "(%d,)" % shape[0])
    pre = 10 if version[0] == 1 else 12
    text = d.encode("latin-1")
    if pad:
        total = pre + len(text) + 1
        text += b" " * ((64 - total % 64) % 64)
    text += b"\n"
    out = b"\x93NUMPY" + bytes(version)
    out += struct.pack("<H", len(text)) if version[0] == 1 else struct.pack("<I", len(text))
    out += text
    if data is None:
        n = 1
        for x in shape:
            n *= x
        fmt = {"<f2": "e", "<f4": "f", "<f8": "d", ">f4": "f", ">f8": "d"}.get(descr, "f")
        order = ">" if descr.startswith(">") else "<"
        data = struct.pack(order + fmt * n, *[(i % 7) * 0.5 - 1.0 for i in range(n)])
    return out + data


def npy_seeds():
    put("npy", npy(), "f4")
    put("npy", npy("<f2", (4, 2)), "f2")
    put("npy", npy("<f8", (1, 1)), "f8")
    put("npy", npy("<f8", (3, 5), version=(2, 0)), "v2")
    put("npy", npy("<f4", (2, 2), version=(3, 0)), "v3")
    put("npy", npy("<f4", (2, 2)) + b"trailing", "trailing")
    put("npy", npy(">f4", (2, 2)), "bigendian")
    put("npy", npy("<f4", (2, 2), fortran=True), "fortran")
    put("npy", npy("<f4", (2, 2, 2)), "3d")
    put("npy", npy("<f4", (4,)), "1d")
    put("npy", npy("<f4", (0, 3), data=b""), "empty")
    put("npy", npy("<i8", (2, 2), data=b"\0" * 32), "int")
    put("npy", npy()[:-3], "truncated")
    put("npy", npy()[:20], "cut_header")
    put("npy", npy("<f4", (1, 2), data=struct.pack("<ff", float("nan"), 1.0)), "nan")
    put("npy", npy("<f2", (1, 2), data=b"\x00\x7c\x00\x00"), "inf16")
    put("npy", npy("<f8", (99999999, 99999999), data=b""), "huge")
    put("npy", npy(pad=False), "nopad")
    put("npy", b"\x93NUMPY\x01\x00\xff\xff{", "biglen")
    put("npy", b"\x93NUMPY\x09\x00\x10\x00", "version9")


# ---- .safetensors ------------------------------------------------------------------------

def st(tensors, metadata=None, trailing=b"", header_pad=0, raw_header=None):
    """tensors: list of (name, dtype, shape, bytes)."""
    hdr = {}
    if metadata is not None:
        hdr["__metadata__"] = metadata
    data = b""
    for name, dt, shape, b in tensors:
        hdr[name] = {"dtype": dt, "shape": list(shape),
                     "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = raw_header if raw_header is not None else json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * header_pad
    return struct.pack("<Q", len(h)) + h + data + trailing


def f32(n, start=0.0):
    return struct.pack("<" + "f" * n, *[start + 0.25 * i for i in range(n)])


def st_seeds():
    put("safetensors", st([("weight", "F32", (3, 4), f32(12))]), "one")
    put("safetensors", st([("a", "F32", (2, 2), f32(4)), ("bias", "F32", (4,), f32(4))],
                          metadata={"format": "pt"}), "a_and_bias")
    put("safetensors", st([("a", "F16", (2, 3), struct.pack("<6e", *range(6))),
                           ("weight", "BF16", (3, 1), b"\x80\x3f" * 3)]), "f16_bf16")
    put("safetensors", st([("x", "F64", (2, 2), struct.pack("<4d", 1, 2, 3, 4))],
                          header_pad=5, trailing=b"junk"), "f64_pad")
    put("safetensors", st([("w1", "F32", (1, 1), f32(1)), ("w2", "F32", (1, 1), f32(1))]),
        "two_2d")
    put("safetensors", st([("weight", "I64", (1, 1), b"\0" * 8)]), "int")
    put("safetensors", st([("weight", "F32", (2, 2), f32(3))]), "short_span")
    put("safetensors", st([("weight", "F32", (2, 2), f32(4))])[:-5], "truncated")
    put("safetensors", st([("weight", "F32", (1, 2), struct.pack("<ff", 1, float("inf")))]),
        "inf")
    put("safetensors", st([], raw_header=b'{"weight":{"dtype":"F32","shape":[65536,65536],'
                                         b'"data_offsets":[0,17179869184]}}'), "huge")
    put("safetensors", st([], raw_header=b'{"w":{"dtype":"F32","shape":[1,1],'
                                         b'"data_offsets":[4,0]}}'), "bad_offsets")
    put("safetensors", st([], raw_header=b"[1,2]"), "not_object")
    put("safetensors", struct.pack("<Q", 1 << 40) + b"{}", "header_too_big")
    put("safetensors", b"\x02\x00\x00", "cut_len")


def multipart_seeds():
    """Binary /rope bodies (fuzz_multipart.c): boundary "fz", the first byte the feeding pattern."""
    def body(params, parts, flag=0):
        out = b""
        if params is not None:
            out += b'--fz\r\nContent-Disposition: form-data; name="params"\r\n\r\n'
            out += compact(params).encode() + b"\r\n"
        for name, data in parts:
            out += (b'--fz\r\nContent-Disposition: form-data; name="%s"; filename="%s.npy"\r\n'
                    b"Content-Type: application/octet-stream\r\n\r\n" % (name.encode(), name.encode()))
            out += data + b"\r\n"
        return bytes([flag]) + out + b"--fz--\r\n"
    bf16 = npy("<u2", (1, 2), data=struct.pack("<HH", 0x3F80, 0x3F00))
    yarn = {"rope_theta": 500000, "scaling": {"type": "yarn", "factor": 4,
                                              "original_max_position_embeddings": 16}}
    cases = [
        ("rank2", body({}, [("q", npy("<f4", (2, 4)))])),
        ("include", body({"include": ["cos_sin", "cos_sin_hf"], "positions": [3, 5]},
                         [("q", npy("<f8", (2, 4))), ("k", npy("<f8", (2, 4)))], 128)),
        ("bhtd", body({"tensor_layout": "bhtd", "positions": [[0, 1], [7, 9]]},
                      [("q", npy("<f4", (2, 1, 2, 4))), ("k", npy("<f4", (2, 1, 2, 4)))], 5)),
        ("bthd", body({"tensor_layout": "bthd"}, [("q", npy("<f4", (1, 2, 2, 4)))], 13)),
        ("heads", body({"num_heads": 2}, [("q", npy("<f4", (2, 8)))], 1)),
        ("bf16", body({"dtype": "bfloat16"}, [("q", bf16)], 2)),
        ("f16", body({}, [("q", npy("<f2", (2, 4)))], 3)),
        ("yarn", body(yarn, [("q", npy("<f4", (2, 4)))], 200)),
    ]
    for tag, data in cases:
        put("multipart", data, tag)


def dicts():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "api", "*.c")):
        for lit in LIT.findall(open(path, encoding="utf-8", errors="replace").read()):
            if re.fullmatch(r"[a-z][a-z0-9_]{0,40}", lit):
                names.add(lit)
    names |= {"config", "rope_scaling", "rope_parameters", "model_type", "hidden_size",
              "num_attention_heads", "head_dim", "qk_rope_head_dim", "rotary_pct",
              "rotary_emb_base", "rope_interleave", "max_position_embeddings", "n_embd",
              "n_head", "mrope_section", "su", "gptj", "codegen", "deepseek_v3", "phi3",
              "t", "gpt2", "one"}
    lines = ["# fuzz/posenc.dict -- written by fuzz/make_seeds.py: field names, enum values and "
             "JSON tokens"]
    for n in sorted(names):
        lines.append('"\\"%s\\""' % n)
    for tok in ["{", "}", "[", "]", ":", ",", "null", "true", "false", "-0", "0.0", "4.0",
                "1e308", "-1e308", "5e-324", "1e-320", "2147483647", "2147483648",
                "9007199254740993", "9223372036854775807", "-9223372036854775808",
                "18446744073709551616", "65536", "65537", "4096", "1024", "0.5", "1.5"]:
        lines.append('"%s"' % tok.replace('"', '\\"'))
    with open(os.path.join(ROOT, "fuzz", "posenc.dict"), "w") as f:
        f.write("\n".join(lines) + "\n")
    tl = ["# fuzz/tensor.dict -- written by fuzz/make_seeds.py: .npy and .safetensors tokens",
          '"\\x93NUMPY"', '"\\x01\\x00"', '"\\x02\\x00"', '"\\x03\\x00"', '"\'descr\'"',
          '"\'fortran_order\'"', '"\'shape\'"', '"True"', '"False"', '"\'<f2\'"', '"\'<f4\'"',
          '"\'<f8\'"', '"\'>f8\'"', '"(1, 1)"', '"(2,)"', '"L"',
          '"\\"dtype\\""', '"\\"shape\\""', '"\\"data_offsets\\""', '"\\"__metadata__\\""',
          '"\\"F16\\""', '"\\"BF16\\""', '"\\"F32\\""', '"\\"F64\\""', '"\\"I64\\""',
          '"\\"weight\\""', '"\\"a\\""', '"\\x00\\x00\\xc0\\x7f"', '"\\x00\\x00\\x80\\x7f"',
          '"\\x00\\x7c"', '"\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff"']
    with open(os.path.join(ROOT, "fuzz", "tensor.dict"), "w") as f:
        f.write("\n".join(tl) + "\n")


def main():
    vector_seeds()
    test_seeds()
    config_seeds()
    handler_extra_seeds()
    npy_seeds()
    st_seeds()
    multipart_seeds()
    dicts()
    for h in sorted(written):
        print("%-12s %d seeds" % (h, written[h]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
