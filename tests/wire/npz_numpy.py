#!/usr/bin/env python3
"""numpy reads posenc's .npz bodies in one call (run by tests/wire/check_npz.c: npz_numpy.py DIR).

DIR holds, written by the C test from one /rope request (yarn, q and k, include cos_sin_hf):
  rope.json      the JSON answer
  rope.npz       the same request with Accept: application/x-npz
  rope_f32.npz   the same with "dtype": "float32"
  q_only.npz     ?array=q_rotated
  sin_hf.npy     Accept: application/x-npy, ?array=sin_hf
  zip64.npz      cos_hf.npy twice (as cos_hf.npy and again.npy) in an archive with ZIP64 forced
Every array must equal the JSON answer's: exactly for float64, and exactly np.float32(json) for
float32; integer arrays (positions) are int64. zipfile.testzip checks every member's CRC-32.
Exits 1 with a message on the first difference.
"""
import json
import os
import sys
import zipfile

import numpy as np


def fail(msg):
    print("npz_numpy.py: " + msg)
    sys.exit(1)


def main(d):
    with open(os.path.join(d, "rope.json")) as f:
        ref = json.load(f)
    arrays = ["inv_freq", "q_positions", "q_rotated", "k_positions", "k_rotated", "scores",
              "positions", "cos", "sin", "cos_hf", "sin_hf"]
    for name, f32 in (("rope.npz", False), ("rope_f32.npz", True)):
        path = os.path.join(d, name)
        with zipfile.ZipFile(path) as z:
            if z.testzip() is not None:
                fail(f"{name}: a member's CRC-32 is wrong")
            if [i.compress_type for i in z.infolist()] != [zipfile.ZIP_STORED] * len(arrays):
                fail(f"{name}: members must be stored")
        npz = np.load(path)
        if sorted(npz.files) != sorted(arrays):
            fail(f"{name}: members {npz.files}, expected {arrays}")
        for k in arrays:
            got = npz[k]
            want = np.array(ref[k])
            if want.dtype.kind == "i":
                ok = got.dtype == np.int64 and np.array_equal(got, want)
            elif f32:
                ok = got.dtype == np.float32 and np.array_equal(got, want.astype(np.float32))
            else:
                ok = got.dtype == np.float64 and np.array_equal(got, want)
            if not ok or got.shape != want.shape:
                fail(f"{name}: {k} differs from the JSON answer ({got.dtype} {got.shape})")
    # Hugging Face's shape: [P, rotary_dim], cat((cos, cos)) times attention_factor
    af = ref["attention_factor"]
    for k in ("cos", "sin"):
        c = np.array(ref[k])
        if not np.array_equal(np.array(ref[k + "_hf"]), np.concatenate([c, c], -1) * af):
            fail(f"{k}_hf is not cat({k}, {k}) * attention_factor")
    q = np.load(os.path.join(d, "q_only.npz"))
    if q.files != ["q_rotated"] or not np.array_equal(q["q_rotated"], np.array(ref["q_rotated"])):
        fail("q_only.npz must hold q_rotated only")
    s = np.load(os.path.join(d, "sin_hf.npy"))
    if not np.array_equal(s, np.array(ref["sin_hf"])):
        fail("sin_hf.npy differs from the JSON answer")
    path = os.path.join(d, "zip64.npz")
    with zipfile.ZipFile(path) as z:
        if z.testzip() is not None:
            fail("zip64.npz: a member's CRC-32 is wrong")
        for i in z.infolist():
            if b"\x01\x00" != i.extra[:2]:
                fail("zip64.npz: no ZIP64 extra field in the central directory")
    z = np.load(path)
    if z.files != ["cos_hf", "again"]:
        fail(f"zip64.npz: members {z.files}")
    for k in z.files:
        if not np.array_equal(z[k], np.array(ref["cos_hf"])):
            fail(f"zip64.npz: {k} differs")
    print("npz_numpy.py: ok")


if __name__ == "__main__":
    main(sys.argv[1])
