"""Sinusoidal, ALiBi, T5, attention and learned tables through the client, with derived values."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import posenc
from posenc import _wire


def test_sinusoidal_lesson_row(client: posenc.Client) -> None:
    # d_model 4, position 4 (vaswani, interleaved): frequencies 10000^(−2i/4) = 1, 0.01, so the
    # row is (sin 4, cos 4, sin 0.04, cos 0.04) = (−0.7568, −0.6536, 0.0400, 0.9992).
    m = client.sinusoidal(4, [4])
    assert m.shape == (1, 4) and m.dtype == np.float64
    assert np.round(m[0], 4).tolist() == [-0.7568, -0.6536, 0.04, 0.9992]
    assert m[0, 0] == math.sin(4.0) and m[0, 1] == math.cos(4.0)      # glibc's libm, bit for bit
    assert m[0, 2] == pytest.approx(math.sin(0.04), abs=1e-17)
    assert m[0, 3] == pytest.approx(math.cos(0.04), abs=1e-16)


def test_sinusoidal_seq_len_offset_concat(client: posenc.Client) -> None:
    # concat layout: [sin ‖ cos]; offset 10, seq_len 2 → positions 10 and 11.
    m = client.sinusoidal(2, seq_len=2, offset=10, layout="concat")
    assert m.tolist() == [[math.sin(10.0), math.cos(10.0)], [math.sin(11.0), math.cos(11.0)]]


def test_alibi_slopes_and_bias(client: posenc.Client) -> None:
    # Press et al.: for H a power of two, m_h = 2^(−8(h+1)/H); H = 8 → 1/2, 1/4, …, 1/256.
    assert client.alibi_slopes(8).tolist() == [2.0 ** -(h + 1) for h in range(8)]
    # Causal bias of head 0 (m = 1/2): −m·(i − j) for j ≤ i, masked (−inf in .npy) after i.
    bias = client.alibi(8, seq_len=3)
    assert bias.shape == (8, 3, 3)
    inf = -np.inf
    assert bias[0].tolist() == [[0.0, inf, inf], [-0.5, 0.0, inf], [-1.0, -0.5, 0.0]]


def test_alibi_weights_match_numpy(client: posenc.Client) -> None:
    # The README's example: query 3 sees keys 0…3 with raw scores (2, 1, 3, 2).
    scores = [[2.0, 1.0, 3.0, 2.0]]
    w = client.alibi(8, query_positions=[3], key_positions=[0, 1, 2, 3], scores=scores, include_bias=False)
    assert w.shape == (8, 1, 4)
    slopes = 2.0 ** -(np.arange(8) + 1)
    logits = np.array(scores[0])[None, :] - slopes[:, None] * (3 - np.arange(4))[None, :]
    ref = np.exp(logits - logits.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(w[:, 0, :], ref, rtol=0, atol=1e-15)
    assert w[0, 0, 0] == pytest.approx(0.07419897111919412, abs=1e-16)   # README, head 0


def test_t5_buckets(client: posenc.Client) -> None:
    # Bidirectional, 32 buckets, max_distance 128: 16 buckets a side, keys after the query
    # (r > 0) add 16; n = |r|; n < 8 is its own bucket; else 8 + ⌊ln(n/8)/ln(128/8)·8⌋ capped at 15.
    # r = −128: 8 + ⌊1·8⌋ = 16 → 15. r = −7: 7. r = −1: 1. r = 0: 0. r = 1: 16 + 1 = 17.
    # r = 7: 23. r = 8: 16 + 8 + 0 = 24. r = 127: ln(15.875)/ln(16) = 0.9972 → 8 + 7 = 15 → 31.
    b = client.t5_buckets([-128, -7, -1, 0, 1, 7, 8, 127])
    assert b.dtype == np.int64
    assert b.tolist() == [15, 7, 1, 0, 17, 23, 24, 31]
    grid = client.t5_buckets(query_positions=[0, 1], key_positions=[0, 1, 2])
    assert grid.tolist() == [[0, 17, 18], [1, 0, 17]]


def test_attention_none_is_softmax(client: posenc.Client) -> None:
    rng = np.random.default_rng(7)
    q, k, v = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 2))
    w = client.attention(q, k)
    logits = q @ k.T / math.sqrt(3)
    ref = np.exp(logits - logits.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(w, ref, rtol=0, atol=1e-15)
    out = client.attention(q, k, v, causal=True)
    causal = np.where(np.tril(np.ones((4, 4))) > 0, logits, -np.inf)
    cw = np.exp(causal - causal.max(axis=1, keepdims=True))
    cw /= cw.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, cw @ v, rtol=0, atol=1e-15)


def test_attention_alibi_has_a_head_axis(client: posenc.Client) -> None:
    q = np.zeros((3, 2))
    w = client.attention(q, q, method="alibi", causal=True, settings={"num_heads": 2})
    # Logits 0, so the weights are softmax of the bias. H = 2: m_h = 2^(−8(h+1)/2), head 0 m = 1/16;
    # query 1 sees keys 0, 1 with bias (−1/16, 0): weight of key 0 = e^(−1/16)/(e^(−1/16) + 1) = 0.48438.
    assert w.shape == (2, 3, 3)
    assert w[0, 1, 0] == pytest.approx(math.exp(-0.0625) / (math.exp(-0.0625) + 1), abs=1e-15)
    assert w[0, 0].tolist() == [1.0, 0.0, 0.0]


def test_table_round_trip(client: posenc.Client, tmp_path: Path) -> None:
    data = np.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]])
    info = client.upload_table("py-rt", data)
    assert info["shape"] == [3, 2] and info["format"] == "npy" and info["builtin"] is False
    assert np.array_equal(client.table("py-rt"), data)
    assert client.learned("py-rt", [2, 0]).tolist() == [[-0.5, 0.6], [0.1, -0.2]]
    # copy: row p mod 3, so 4 → 1 and 5 → 2.
    assert client.learned("py-rt", seq_len=2, offset=4, extend="copy").tolist() == [[0.3, 0.4], [-0.5, 0.6]]
    names = [t["name"] for t in client.tables()]
    assert names[0] == "demo-512x64" and "py-rt" in names
    client.delete_table("py-rt")
    with pytest.raises(posenc.PosencError) as e:
        client.table_info("py-rt")
    assert e.value.status == 404 and e.value.code == "not-found"


def test_safetensors_uploads(client: posenc.Client, tmp_path: Path) -> None:
    wpe = np.arange(12, dtype=np.float32).reshape(4, 3) / 8     # exact in float32 and float64
    other = np.ones((2, 2), dtype=np.float16)
    path = tmp_path / "model.safetensors"
    path.write_bytes(_wire.safetensors_bytes({"h.0.w": other, "wpe.weight": wpe}))
    info = client.upload_table("py-st", path, tensor="wpe.weight")
    assert info["format"] == "safetensors" and info["dtype"] == "float32" and info["shape"] == [4, 3]
    assert np.array_equal(client.table("py-st"), wpe.astype(np.float64))
    # An array past max_body_bytes goes as .safetensors by itself (a small limit stands in here).
    small = posenc.Client(client.base_url)
    small._limits = {"max_body_bytes": 64}
    info = small.upload_table("py-st", np.eye(3))
    assert info["format"] == "safetensors" and info["tensor"] == "table"
    assert np.array_equal(client.table("py-st"), np.eye(3))
    client.delete_table("py-st")


def test_builtin_table_is_protected(client: posenc.Client) -> None:
    assert client.table("demo-512x64").shape == (512, 64)
    with pytest.raises(posenc.PosencError) as e:
        client.delete_table("demo-512x64")
    assert e.value.status == 409 and e.value.code == "conflict"
