#!/usr/bin/env python3
"""The in-process numpy reference of issue 16: Hugging Face's apply_rotary_pos_emb, ported.

    /usr/bin/python3 bench/hf_rope_numpy.py [B H T D] [--theta 10000] [--rounds 5]

A numpy port of what transformers' Llama code does for q and k of shape [B, H, T, D] in float32
(modeling_llama.py, LlamaRotaryEmbedding.forward and apply_rotary_pos_emb): inv_freq =
1 / theta^(arange(0, D, 2) / D) in float32, freqs = positions ⊗ inv_freq in float32, emb =
cat(freqs, freqs), cos = cos(emb)·attention_scaling, sin likewise (attention_scaling 1 without
scaling), then q·cos + rotate_half(q)·sin with rotate_half(x) = cat(−x[..., D/2:], x[..., :D/2]),
and the same for k. cos/sin are computed inside every timed call, as the model does per forward.
The arrays are made once (deterministic, seed 16); the figure is the best of `rounds` calls.

Prints one line: "hf_numpy_rope B H T D float32: best X ms of N (cos/sin computed in the call)".
This is the peer the daemon's binary transport is to beat end to end (docs/performance.md).
"""
import argparse
import time

import numpy as np


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate((-x[..., h:], x[..., :h]), axis=-1)


def apply_rotary_pos_emb(q, k, positions, theta, attention_scaling=1.0):
    """q, k: [B, H, T, D] float32; positions: [T] int. Returns (q_embed, k_embed), float32."""
    d = q.shape[-1]
    inv_freq = (1.0 / (theta ** (np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / d))).astype(np.float32)
    freqs = np.outer(positions.astype(np.float32), inv_freq).astype(np.float32)  # [T, D/2]
    emb = np.concatenate((freqs, freqs), axis=-1)  # [T, D]
    cos = (np.cos(emb) * np.float32(attention_scaling)).astype(np.float32)[None, None]  # unsqueeze(1)
    sin = (np.sin(emb) * np.float32(attention_scaling)).astype(np.float32)[None, None]
    q_embed = q * cos + rotate_half(q) * sin
    k_embed = k * cos + rotate_half(k) * sin
    return q_embed, k_embed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shape", nargs="*", type=int, default=[1, 32, 4096, 128])
    ap.add_argument("--theta", type=float, default=10000.0)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    b, h, t, d = a.shape
    rng = np.random.default_rng(16)
    q = rng.standard_normal((b, h, t, d), dtype=np.float32)
    k = rng.standard_normal((b, h, t, d), dtype=np.float32)
    pos = np.arange(t, dtype=np.int64)
    best = float("inf")
    for _ in range(a.rounds):
        t0 = time.perf_counter()
        qe, ke = apply_rotary_pos_emb(q, k, pos, a.theta)
        best = min(best, time.perf_counter() - t0)
        assert qe.dtype == np.float32 and ke.shape == k.shape
    print(f"hf_numpy_rope {b} {h} {t} {d} float32: best {best * 1e3:.1f} ms of {a.rounds} "
          f"(cos/sin computed in the call)")


if __name__ == "__main__":
    main()
