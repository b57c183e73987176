#!/usr/bin/env python3
"""The corpus table's figures: for every config of tests/vectors/configs, posenc's answer (the
in-process CLI, build/posenc) against the reference's expected/<name>.json.

Per file: the method of every layer (posenc's POST /model/method), and over every RoPE kind the
largest absolute and relative difference of inv_freq, attention_factor and softmax_scale_factor
between POST /rope (the kind's request) and the reference. Prints one Markdown row per file.

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


def main(argv):
    cli = argv[1] if len(argv) > 1 else "build/posenc"
    print("| file | model_type | layers | method per layer (posenc = reference) | RoPE kinds "
          "| max abs diff | max rel diff |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(CONFIGS, "*.json"))):
        name = os.path.splitext(os.path.basename(path))[0]
        cfg = json.load(open(path))
        want = json.load(open(os.path.join(CONFIGS, "expected", name + ".json")))
        got = run(cli, "model/method", {"config": cfg})
        gm = [got["kinds"][k]["method"] for k in got["layers"]]
        same = "=" if gm == want["methods"] else "DIFFERS"
        kinds, ab, rel = [], 0.0, 0.0
        for k in got["kinds"]:
            if k["method"] != "rope":
                continue
            first = got["layers"].index(got["kinds"].index(k))
            w = want["kinds"][want["layers"][first]]
            r = run(cli, "rope", k["request"])
            a = r["inv_freq"] + [r["attention_factor"], r["softmax_scale_factor"]]
            b = w["inv_freq"] + [w["attention_factor"], w["softmax_scale_factor"]]
            x, y = diff(a, b)
            ab, rel = max(ab, x), max(rel, y)
            kinds.append("%s, %s, %d, %g" % (k["variant"], r["resolved"]["layout"],
                                             r["resolved"]["rotary_dim"], w["base"]))
        mt = cfg.get("model_type", "")
        if want["model_type"] != mt:
            mt = "%s (text: %s)" % (mt, want["model_type"])
        print("| %s | %s | %d | %s %s | %s | %s | %s |" % (
            name + ".json", mt, want["num_layers"], runs(gm), "" if same == "=" else same,
            "; ".join(kinds) or "-", "%.1e" % ab if kinds else "-",
            "%.1e" % rel if kinds else "-"))


if __name__ == "__main__":
    main(sys.argv)
