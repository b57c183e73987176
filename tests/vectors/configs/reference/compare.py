#!/usr/bin/env python3
"""The corpus table's figures: for every config of tests/vectors/configs, posenc's answer (the
in-process CLI, build/posenc) against the reference's expected/<name>.json.

Per file: the method of every layer (posenc's POST /model/method), and over every RoPE kind the
largest absolute and relative difference of inv_freq, attention_factor and softmax_scale_factor
between POST /rope (the kind's request) and the reference; over every ALiBi kind, of the slopes
(POST /alibi with the kind's request). Prints one Markdown row per file.

Usage: tests/vectors/configs/reference/compare.py [build/posenc]   (run `make build/posenc` first)
"""
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.dirname(HERE)


def run(cli, route, body):
    out = subprocess.run([cli, route, "-"], input=json.dumps(body), capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError("%s: %s" % (route, out.stdout[:300] + out.stderr[:300]))
    return json.loads(out.stdout)


def runs(methods):
    """'rope x36, none x12' from a list of per-layer methods, in layer order."""
    parts, last, n = [], None, 0
    for m in methods + [None]:
        if m == last:
            n += 1
            continue
        if last is not None:
            parts.append((last, n))
        last, n = m, 1
    totals = {}
    for m, k in parts:
        totals[m] = totals.get(m, 0) + k
    return ", ".join("%s x%d" % (m, k) for m, k in totals.items())


def diff(a, b):
    """(max abs, max rel) of two equal-length lists of numbers."""
    if len(a) != len(b):
        raise RuntimeError("lengths %d and %d" % (len(a), len(b)))
    ab = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
    rel = max((abs(x - y) / abs(y) for x, y in zip(a, b) if y != 0), default=0.0)
    return ab, rel


def flat(m):
    return [x for row in m for x in row]


def score_diff(cli, cfg, kind, first, want):
    """(max abs, max rel) of q_rotated, k_rotated and scores between posenc and the reference's
    probes of one kind: POST /rope {config, layer, q, k, positions} for a RoPE kind (the
    reference's order[] maps HF's output order back to the input's), POST /attention (method
    rope with config and layer, offset per block, scale 1) for a no-RoPE kind with a query scale."""
    probes = want.get("probes")
    if not probes:
        return None
    ab, rel = 0.0, 0.0
    for pr in probes:
        if want["method"] == "rope":
            r = run(cli, "rope", {"config": cfg, "layer": first, "q": pr["q"], "k": pr["k"],
                                  "positions": pr["positions"]})
            order = pr.get("order") or list(range(len(pr["q"])))
            got = flat([[row[i] for i in order] for row in r["q_rotated"]]) + \
                flat([[row[i] for i in order] for row in r["k_rotated"]]) + flat(r["scores"])
            ref = flat(pr["q_rotated"]) + flat(pr["k_rotated"]) + flat(pr["scores"])
            x, y = diff(got, ref)
            ab, rel = max(ab, x), max(rel, y)
            continue
        for b in pr["blocks"]:
            t = len(b["scores"])
            r = run(cli, "attention", {"q": [pr["q"]] * t, "k": [pr["k"]] * t, "scale": 1,
                                       "method": "rope", "rope": {"config": cfg, "layer": first,
                                                                  "offset": b["offset"]}})
            x, y = diff(flat(r["scores"]), flat(b["scores"]))
            ab, rel = max(ab, x), max(rel, y)
    return ab, rel


def main(argv):
    cli = argv[1] if len(argv) > 1 else "build/posenc"
    print("| file | model_type | layers | method per layer (posenc = reference) | RoPE kinds "
          "| max abs diff | max rel diff | max score diff (abs, rel) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(CONFIGS, "*.json"))):
        name = os.path.splitext(os.path.basename(path))[0]
        cfg = json.load(open(path))
        want = json.load(open(os.path.join(CONFIGS, "expected", name + ".json")))
        got = run(cli, "model/method", {"config": cfg})
        gm = [got["kinds"][k]["method"] for k in got["layers"]]
        same = "=" if gm == want["methods"] else "DIFFERS"
        kinds, ab, rel, sc = [], 0.0, 0.0, None
        for k in got["kinds"]:
            first = got["layers"].index(got["kinds"].index(k))
            w = want["kinds"][want["layers"][first]]
            d = score_diff(cli, cfg, w, first, w)
            if d is not None:
                sc = d if sc is None else (max(sc[0], d[0]), max(sc[1], d[1]))
            if k["method"] == "alibi":  # slopes: POST /alibi with the kind's request
                r = run(cli, "alibi", dict(k["request"], seq_len=1))
                x, y = diff(r["slopes"], w["slopes"])
                ab, rel = max(ab, x), max(rel, y)
                kinds.append("alibi slopes, %d heads" % len(w["slopes"]))
                continue
            if k["method"] != "rope":
                continue
            req = dict(k["request"])
            if w["type"] == "longrope":  # the reference's numbers: seq_len = original length
                req["seq_len"] = w["original_max_position_embeddings"]
            r = run(cli, "rope", req)
            a = r["inv_freq"] + [r["attention_factor"], r["softmax_scale_factor"]]
            b = w["inv_freq"] + [w["attention_factor"], w["softmax_scale_factor"]]
            x, y = diff(a, b)
            ab, rel = max(ab, x), max(rel, y)
            kinds.append("%s, %s, %d, %g" % (k["variant"], r["resolved"]["layout"],
                                             r["resolved"]["rotary_dim"], w["base"]))
        mt = cfg.get("model_type", "")
        if want["model_type"] != mt:
            mt = "%s (text: %s)" % (mt, want["model_type"])
        print("| %s | %s | %d | %s %s | %s | %s | %s | %s |" % (
            name + ".json", mt, want["num_layers"], runs(gm), "" if same == "=" else same,
            "; ".join(kinds) or "-", "%.1e" % ab if kinds else "-",
            "%.1e" % rel if kinds else "-",
            "%.1e, %.1e" % sc if sc is not None else "-"))


if __name__ == "__main__":
    main(sys.argv)
