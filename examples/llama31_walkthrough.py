#!/usr/bin/env python3
"""Llama 3.1 8B's rotary embedding, from its config.json, with the posenc Python client.

1. The frequencies per pair: posenc's inv_freq (llama3 scaling) beside plain RoPE, the band of
   every pair, and a plot saved as PNG.
2. q and k at the model's real shape ([1, 32, 64, 128] and its 8 KV heads, [1, 8, 64, 128];
   seeded), rotated by posenc at the last 64 positions of the 128K context, compared with your
   own numpy port of Hugging Face's rotate_half in float64, and in float32 as a model runs it.

Run from the repository root (it starts build/posencd on an ephemeral loopback port unless
POSENC_URL or --url names a running daemon):

    PYTHONPATH=clients/python python3 examples/llama31_walkthrough.py [--out FILE.png]

Needs Debian's python3-numpy, python3-requests and python3-matplotlib.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "clients" / "python"))  # works without installing the package

import posenc  # noqa: E402

CONFIG = HERE / "llama31_8b_config.json"


@contextlib.contextmanager
def daemon(url: Optional[str], binary: Path) -> Iterator[str]:
    """Yields the URL of a daemon: ``url`` if given, else a posencd started on 127.0.0.1:0."""
    if url:
        yield url
        return
    with tempfile.TemporaryDirectory(prefix="posenc-walkthrough-") as data:
        proc = subprocess.Popen(
            [str(binary), "--bind", "127.0.0.1", "--port", "0", "--data-dir", data, "--web-dir", ""],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                m = re.search(r"listening on (http://\S+)", line)
                if m:
                    yield m.group(1)
                    break
            else:
                raise SystemExit(f"{binary} did not start")
        finally:
            proc.terminate()
            proc.wait(timeout=15)


# ---- your own numpy code, as you would write it from Hugging Face's modeling_llama.py ----------
def my_llama3_inv_freq(cfg: dict, dtype: type = np.float64) -> np.ndarray:
    """Llama 3.1's frequencies from the config (HF's llama3 rope type), in ``dtype``."""
    d = cfg["hidden_size"] // cfg["num_attention_heads"]
    rs = cfg["rope_scaling"]
    inv = 1.0 / (cfg["rope_theta"] ** (np.arange(0, d, 2, dtype=np.int64).astype(dtype) / d))
    L0, low, high, s = (rs["original_max_position_embeddings"], rs["low_freq_factor"],
                        rs["high_freq_factor"], rs["factor"])
    wl = 2 * math.pi / inv
    out = np.where(wl > L0 / low, inv / s, inv)
    smooth = (L0 / wl - low) / (high - low)
    smoothed = (1 - smooth) * out / s + smooth * out
    medium = ~(wl < L0 / high) & ~(wl > L0 / low)
    return np.where(medium, smoothed, out).astype(dtype)


def rotate_half(x: np.ndarray) -> np.ndarray:
    half = x.shape[-1] // 2
    return np.concatenate((-x[..., half:], x[..., :half]), axis=-1)


def my_apply_rotary(q: np.ndarray, k: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray):
    """apply_rotary_pos_emb: q, k [B, H, T, D]; cos/sin [T, D] broadcast over batch and heads."""
    freqs = np.outer(positions.astype(inv_freq.dtype), inv_freq)
    emb = np.concatenate((freqs, freqs), axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def plot(path: Path, inv: np.ndarray, plain: np.ndarray, bands: list, L0: int, low: float, high: float) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairs = np.arange(inv.size)
    colors = {"high": "#1b9e77", "medium": "#d95f02", "low": "#7570b3"}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6))
    ax1.semilogy(pairs, plain, "--", color="0.6", label="plain RoPE, θ = 500000")
    for cls in ("high", "medium", "low"):
        sel = [b["pair"] for b in bands if b["class"] == cls]
        ax1.semilogy(sel, inv[sel], "o", ms=4, color=colors[cls], label=f"llama3: {cls} ({len(sel)} pairs)")
    ax1.set_xlabel("pair j (dims j and j + 64)")
    ax1.set_ylabel("inv_freq (rad / token)")
    ax1.set_title("Llama 3.1 8B: frequency per pair (posenc)")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8)
    wl = 2 * np.pi / inv
    ax2.semilogy(pairs, 2 * np.pi / plain, "--", color="0.6", label="plain RoPE")
    ax2.semilogy(pairs, wl, "-", color="black", lw=1, label="llama3")
    ax2.axhline(L0 / high, color=colors["high"], lw=1, ls=":", label=f"L0 / high_freq_factor = {L0 / high:g} (plain λ below: kept)")
    ax2.axhline(L0 / low, color=colors["low"], lw=1, ls=":", label=f"L0 / low_freq_factor = {L0 / low:g} (plain λ above: ÷ factor)")
    ax2.axhline(131072, color="0.3", lw=1, ls="-.", label="max_position_embeddings = 131072")
    ax2.set_xlabel("pair j")
    ax2.set_ylabel("wavelength 2π / inv_freq (tokens)")
    ax2.set_title("wavelengths and the llama3 band edges")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default=os.environ.get("POSENC_URL"), help="a running daemon (default: start one)")
    ap.add_argument("--bin", default=str(REPO / "build" / "posencd"), help="the daemon to start")
    ap.add_argument("--out", default=str(REPO / "build" / "examples" / "llama31_frequencies.png"))
    args = ap.parse_args()
    cfg = json.loads(CONFIG.read_text())
    rs = cfg["rope_scaling"]
    head_dim = cfg["hidden_size"] // cfg["num_attention_heads"]

    with daemon(args.url, Path(args.bin)) as url, posenc.Client(url) as pe:
        print(f"posenc {pe.version()['version']} at {url}")
        print(f"config: {CONFIG.name}: model_type {cfg['model_type']}, head_dim {cfg['hidden_size']}/"
              f"{cfg['num_attention_heads']} = {head_dim}, rope_theta {cfg['rope_theta']:g}, "
              f"rope_scaling {rs['rope_type']} (factor {rs['factor']:g}, low {rs['low_freq_factor']:g}, "
              f"high {rs['high_freq_factor']:g}, L0 {rs['original_max_position_embeddings']})")

        # 1. Frequencies per pair.
        inv = pe.inv_freq(CONFIG)
        plain = pe.inv_freq(CONFIG, scaling={})        # the same config without its scaling
        bands = pe.post_json("/rope", {"config": cfg, "include": ["bands"]})["bands"]
        counts = {c: sum(b["class"] == c for b in bands) for c in ("high", "medium", "low")}
        print(f"inv_freq: {inv.size} pairs; kept (high) {counts['high']}, blended (medium) {counts['medium']}, "
              f"divided by {rs['factor']:g} (low) {counts['low']}")
        print("  pair  inv_freq (rad/token)     plain wavelength  scaled wavelength  plain ÷ scaled  band")
        for j in (0, 1, 28, 29, 31, 34, 35, 63):
            print(f"  {j:4d}  {inv[j]:<23.17g}  {2 * math.pi / plain[j]:16.1f}  {2 * math.pi / inv[j]:17.1f}"
                  f"  {plain[j] / inv[j]:14.4f}  {bands[j]['class']}")
        mine = my_llama3_inv_freq(cfg)
        print(f"your numpy llama3 inv_freq vs posenc: max rel diff {np.max(np.abs(mine - inv) / inv):.3g}")
        out = Path(args.out)
        plot(out, inv, plain, bands, rs["original_max_position_embeddings"], rs["low_freq_factor"], rs["high_freq_factor"])
        print(f"plot: {out}")

        # 2. q and k at the model's shape, rotated at the last 64 positions of the 128K context.
        rng = np.random.default_rng(31)
        B, H, Hkv, T = 1, cfg["num_attention_heads"], cfg["num_key_value_heads"], 64
        q = rng.standard_normal((B, H, T, head_dim)).astype(np.float32)
        k = rng.standard_normal((B, Hkv, T, head_dim)).astype(np.float32)
        positions = np.arange(cfg["max_position_embeddings"] - T, cfg["max_position_embeddings"])
        t0 = time.perf_counter()
        q_rot, k_rot = pe.rope(q, k, positions=positions, config=CONFIG)  # [B, H, T, D] = HF's layout
        took = time.perf_counter() - t0
        assert k_rot is not None
        print(f"rope: q {list(q.shape)} and k {list(k.shape)} float32 at positions {positions[0]}…{positions[-1]}"
              f" → {q_rot.dtype} {list(q_rot.shape)}, {list(k_rot.shape)} in {took:.2f} s")
        q64, k64 = my_apply_rotary(q.astype(np.float64), k.astype(np.float64), positions, my_llama3_inv_freq(cfg))
        print(f"your rotate_half in float64:  max |Δq| {np.max(np.abs(q64 - q_rot)):.3g}, "
              f"max |Δk| {np.max(np.abs(k64 - k_rot)):.3g}  (your inv_freq's last-bit differences × p ≈ 131071)")
        q64p, k64p = my_apply_rotary(q.astype(np.float64), k.astype(np.float64), positions, inv)
        print(f"  … with posenc's inv_freq:   max |Δq| {np.max(np.abs(q64p - q_rot)):.3g}, "
              f"max |Δk| {np.max(np.abs(k64p - k_rot)):.3g}  (numpy's cos/sin vs glibc's)")
        q32, k32 = my_apply_rotary(q, k, positions, my_llama3_inv_freq(cfg, np.float32))
        print(f"your rotate_half in float32:  max |Δq| {np.max(np.abs(q32 - q_rot)):.3g}, "
              f"max |Δk| {np.max(np.abs(k32 - k_rot)):.3g}  (float32 angles p·inv_freq near p = 131071)")
        # Rotation keeps lengths: |q_rot| = |q| per head and token.
        norm = np.max(np.abs(np.linalg.norm(q_rot, axis=-1) - np.linalg.norm(q.astype(np.float64), axis=-1)))
        print(f"norms kept: max | |q_rot| − |q| | = {norm:.3g}")


if __name__ == "__main__":
    main()
