"""RoPE through the client against the daemon: the lesson's numbers and independent numpy ports."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import posenc

LLAMA31 = Path(__file__).resolve().parents[3] / "examples" / "llama31_8b_config.json"


def rotate_half_numpy(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """An independent port of Hugging Face's apply_rotary_pos_emb (half layout) in float64.

    x [..., T, D]; angles position × inv_freq (products); cos/sin of numpy (which may differ
    from glibc's by an ulp, hence the tolerances below).
    """
    freqs = np.outer(positions.astype(np.float64), inv_freq)           # [T, D/2]
    emb = np.concatenate([freqs, freqs], axis=-1)                       # [T, D]
    half = x.shape[-1] // 2
    rot = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)      # rotate_half
    return x * np.cos(emb) + rot * np.sin(emb)


def test_lesson_scores(client: posenc.Client) -> None:
    # The lesson: 0.5 rad per position, q = (1, 2) at 2, 5, 9, 3 and k = (3, 1) at 0, 3, 7, 5.
    # Rotating by angle a: q·k after rotation = (q·k) cos(Δa) + (q × k) sin(Δa) with q·k = 5,
    # q × k = 1·1 − 2·3 = −5 and Δa = 0.5·(p_q − p_k) = 1 rad on the diagonal (offsets 2, 2, 2):
    # 5 cos 1 − 5 sin 1 = 5(0.5403023 − 0.8414710) = −1.5058434.
    # For (3, 5) the offset is −2: 5 cos 1 + 5 sin 1 = 6.9088665.
    r = client.rope([1.0, 2.0], [3.0, 1.0], positions=[2, 5, 9, 3], k_positions=[0, 3, 7, 5], inv_freq=[0.5])
    assert r.q.shape == (4, 2) and r.k is not None and r.k.shape == (4, 2)
    scores = np.array([[qi[0] * kj[0] + qi[1] * kj[1] for kj in r.k] for qi in r.q])
    # The daemon's own scores for this request (README): −1.5058433946987837 at (0, 0).
    assert scores[0, 0] == pytest.approx(-1.5058433946987837, abs=4e-16)
    for i in range(3):
        assert scores[i, i] == pytest.approx(5 * (math.cos(1) - math.sin(1)), abs=2e-15)
    assert scores[3, 3] == pytest.approx(5 * (math.cos(1) + math.sin(1)), abs=2e-15)
    # k at position 0 is not turned at all.
    assert r.k[0].tolist() == [3.0, 1.0]
    # q at 2: angle 1 rad, half layout (x0, x1) → (x0 cos − x1 sin, x1 cos + x0 sin).
    assert r.q[0] == pytest.approx([math.cos(1) - 2 * math.sin(1), 2 * math.cos(1) + math.sin(1)], abs=1e-15)


def test_rank4_matches_numpy_rotate_half(client: posenc.Client) -> None:
    rng = np.random.default_rng(17)
    q = rng.standard_normal((2, 4, 5, 8))      # [B, H, T, D]
    k = rng.standard_normal((2, 2, 5, 8))      # grouped-query attention: 2 kv heads
    pos = np.array([0, 1, 2, 30, 4000])
    r = client.rope(q, k, positions=pos, head_dim=8, rope_theta=10000)
    inv = 1.0 / (10000.0 ** (np.arange(0, 8, 2) / 8))   # HF's default inv_freq
    assert r.q.shape == q.shape and r.k is not None and r.k.shape == k.shape
    np.testing.assert_allclose(r.q, rotate_half_numpy(q, pos, inv), rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.k, rotate_half_numpy(k, pos, inv), rtol=0, atol=1e-12)


def test_layouts_agree_bit_for_bit(client: posenc.Client) -> None:
    rng = np.random.default_rng(3)
    q = rng.standard_normal((2, 3, 6, 4))      # [B, H, T, D]
    ref = client.rope(q, head_dim=4).q
    bthd = client.rope(q.transpose(0, 2, 1, 3), tensor_layout="bthd", head_dim=4).q
    assert np.array_equal(bthd.transpose(0, 2, 1, 3), ref)
    htd = client.rope(q[1], head_dim=4).q      # rank 3 defaults to [H, T, D]
    assert np.array_equal(htd, ref[1])
    td = client.rope(q[1, 2], head_dim=4).q    # rank 2 is [T, D]
    assert np.array_equal(td, ref[1, 2])


def test_positions_per_batch_row(client: posenc.Client) -> None:
    rng = np.random.default_rng(5)
    q = rng.standard_normal((2, 3, 4, 4))
    pos = np.array([[0, 1, 2, 3], [10, 11, 12, 13]])
    r = client.rope(q, positions=pos, head_dim=4).q
    assert np.array_equal(r[1], client.rope(q[1], positions=pos[1], head_dim=4).q)
    assert np.array_equal(r[0], client.rope(q[0], head_dim=4).q)


def test_parts_equal_one_request_and_share_seq_len(client: posenc.Client, daemon_url: str) -> None:
    # Dynamic NTK depends on seq_len; each part must use the same one (the largest position + 1).
    rng = np.random.default_rng(11)
    q = rng.standard_normal((1, 2, 64, 8))
    scaling = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 16}
    whole = client.rope(q, head_dim=8, rope_scaling=scaling).q
    small = posenc.Client(daemon_url)
    small.max_request_bytes = 4096               # 4096 // (26·8 + 24) = 17 rows a request: 8 parts
    assert small._rows_per_request(8) == 17
    parts = small.rope(q, head_dim=8, rope_scaling=scaling).q
    assert np.array_equal(parts, whole)
    # Independently: L = 64 > L0 = 16, base' = 10000·(2·64/16 − 1)^(8/6) = 10000·7^(4/3).
    base = 10000.0 * 7.0 ** (8 / 6)
    inv = 1.0 / (base ** (np.arange(0, 8, 2) / 8))
    np.testing.assert_allclose(whole, rotate_half_numpy(q, np.arange(64), inv), rtol=0, atol=1e-12)


def test_float32_answers(client: posenc.Client) -> None:
    q = np.random.default_rng(1).standard_normal((3, 8))
    r64 = client.rope(q, head_dim=8).q
    r32 = client.rope(q, head_dim=8, dtype="float32").q
    assert r32.dtype == np.float32
    assert np.array_equal(r32, r64.astype(np.float32))   # each value the float64 result rounded


def test_cos_sin(client: posenc.Client) -> None:
    # head_dim 4, base 10000: inv_freq = (1, 10000^(−1/2)) = (1, 0.01).
    t = client.cos_sin([0, 1], head_dim=4)
    assert t.inv_freq.tolist() == [1.0, 0.01]
    assert t.cos.tolist() == [[1.0, 1.0], [math.cos(1.0), math.cos(0.01)]]
    assert t.sin.tolist() == [[0.0, 0.0], [math.sin(1.0), math.sin(0.01)]]
    assert t.attention_factor == 1.0


def llama3_inv_freq_numpy(cfg: dict) -> np.ndarray:
    """Llama 3.1's rule written from its formula (docs/conventions.md#llama3, Hugging Face's llama3 type):
    wavelengths below L0/high_freq_factor keep their frequency, above L0/low_freq_factor are
    divided by factor, and in between blend with s = (L0/λ − low)/(high − low)."""
    d = cfg["hidden_size"] // cfg["num_attention_heads"]
    rs = cfg["rope_scaling"]
    inv = 1.0 / (cfg["rope_theta"] ** (np.arange(0, d, 2) / d))
    L0, low, high, s = rs["original_max_position_embeddings"], rs["low_freq_factor"], rs["high_freq_factor"], rs["factor"]
    wl = 2 * math.pi / inv
    out = np.where(wl > L0 / low, inv / s, inv)
    smooth = (L0 / wl - low) / (high - low)
    medium = (wl >= L0 / high) & (wl <= L0 / low)
    return np.where(medium, (1 - smooth) * inv / s + smooth * inv, out)


def test_llama31_inv_freq_from_config(client: posenc.Client) -> None:
    cfg = json.loads(LLAMA31.read_text())
    from_path = client.inv_freq(LLAMA31)
    from_dict = client.inv_freq(cfg)
    assert np.array_equal(from_path, from_dict)
    assert from_path.shape == (64,)
    np.testing.assert_allclose(from_path, llama3_inv_freq_numpy(cfg), rtol=1e-15, atol=0)
    # Pairs 0–28 keep 500000^(−j/64); 35–63 are divided by 8 (λ_35 = 8273 > 8192 tokens).
    assert from_path[0] == 1.0
    assert from_path[63] == pytest.approx(500000.0 ** (-63 / 64) / 8, rel=1e-15)
    # An explicit field wins over the config's: no scaling at all.
    plain = client.inv_freq(cfg, rope_scaling=None, scaling={})
    assert plain[63] == pytest.approx(500000.0 ** (-63 / 64), rel=1e-15)


def test_bad_layout_is_a_local_error(client: posenc.Client) -> None:
    with pytest.raises(ValueError, match="tensor_layout"):
        client.rope(np.zeros((2, 3, 4)), tensor_layout="bhtd")
    with pytest.raises(ValueError, match="positions"):
        client.rope(np.zeros((3, 4)), positions=[0, 1])


def test_binary_transport_equals_json_rows(client: posenc.Client) -> None:
    # rope() sends [B, H, T, D] as one multipart request (binary .npy parts, .npz answer); with
    # k_positions it falls back to JSON rows. Both give the same bits, float64 and float32.
    rng = np.random.default_rng(23)
    q = rng.standard_normal((2, 4, 6, 16))
    k = rng.standard_normal((2, 2, 6, 16))
    pos = np.array([[0, 1, 2, 3, 4, 5], [9, 8, 70, 6, 5000, 4]])
    cfg = dict(head_dim=16, rope_theta=500000, rope_scaling={"rope_type": "yarn", "factor": 4.0,
                                                           "original_max_position_embeddings": 64})
    b = client.rope(q, k, positions=pos, **cfg)
    j = client.rope(q, k, positions=pos, k_positions=pos, **cfg)
    assert b.q.dtype == np.float64 and b.q.tobytes() == j.q.tobytes()
    assert b.k is not None and j.k is not None and b.k.tobytes() == j.k.tobytes()
    q32, k32 = q.astype(np.float32), k.astype(np.float32)
    b32 = client.rope(q32, k32, positions=pos, dtype="float32", **cfg)
    j32 = client.rope(q32, k32, positions=pos, k_positions=pos, dtype="float32", **cfg)
    assert b32.q.dtype == np.float32 and b32.q.tobytes() == j32.q.tobytes()
    assert b32.k is not None and j32.k is not None and b32.k.tobytes() == j32.k.tobytes()
    # float64 arrays with dtype="float32": sent as float64, the float64 result rounded once
    b64 = client.rope(q, k, positions=pos, dtype="float32", **cfg)
    assert b64.q.dtype == np.float32 and b64.q.tobytes() == j.q.astype(np.float32).tobytes()


def test_binary_layouts_and_errors(client: posenc.Client) -> None:
    # [T, H, D] (thd) and its transpose [H, T, D] (htd) hold the same vectors after rotation.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 3, 8)).astype(np.float32)
    a = client.rope(x, tensor_layout="thd", dtype="float32")
    b = client.rope(np.transpose(x, (1, 0, 2)), tensor_layout="htd", dtype="float32")
    assert a.q.dtype == np.float32 and np.array_equal(np.transpose(b.q, (1, 0, 2)), a.q)
    # A 422 from the binary path names the field (head_dim 6 against the tensors' 8).
    with pytest.raises(posenc.PosencError) as e:
        client.rope(x, tensor_layout="thd", head_dim=6)
    assert e.value.status == 422 and e.value.errors[0]["pointer"] == "/q"


def test_npz_reader_views_the_answer(client: posenc.Client) -> None:
    # posencd's .npz (stored members, data descriptors) is read in place: each array views the
    # received buffer; numpy's own writer (no descriptors) is read too.
    import io

    from posenc._binary import MultipartBody, read_npz

    a, b = np.arange(6.0).reshape(2, 3), np.arange(4, dtype=np.float32)
    buf = io.BytesIO()
    np.savez(buf, q_rotated=a, k_rotated=b)
    got = read_npz(bytearray(buf.getvalue()))
    assert np.array_equal(got["q_rotated"], a) and np.array_equal(got["k_rotated"], b)
    assert not got["q_rotated"].flags.owndata
    content, headers = client.post_multipart(
        "/rope", MultipartBody({"include": ["cos_sin"]}, {"q": a[:, :2]}), "application/x-npz")
    z = read_npz(content)
    assert sorted(z) == ["cos", "q_rotated", "sin"] and not z["q_rotated"].flags.owndata
    assert z["q_rotated"][0].tolist() == [0.0, 1.0]  # position 0: unturned
    # read_npz does not check the CRC-32s (stored members, viewed in place): Python's zipfile
    # does, every member's (the daemon's libdeflate CRC against zlib's, through its data
    # descriptors), and numpy.load reads the same arrays
    import zipfile

    with zipfile.ZipFile(io.BytesIO(bytes(content))) as zf:
        assert zf.testzip() is None and len(zf.namelist()) == 3
    with np.load(io.BytesIO(bytes(content))) as npz:
        assert all(np.array_equal(npz[name], z[name]) for name in z)


def test_rope_dtype_other_than_float64_or_float32_is_refused(client: posenc.Client) -> None:
    # A float16 q with dtype="float16" (or a typo, "fp32") was answered in float64 without a word
    # by the binary transport, which sent no dtype; the JSON rows got the daemon's 422 at /dtype.
    # Both transports now refuse it before sending.
    q = np.ones((1, 2, 3, 8), dtype=np.float16)
    for bad in ("float16", "fp32", "bfloat16"):
        with pytest.raises(ValueError, match='dtype.*"float64" or "float32"'):
            client.rope(q, q, dtype=bad)                              # binary transport
        with pytest.raises(ValueError, match='dtype.*"float64" or "float32"'):
            client.rope(q, q, k_positions=[0, 1, 2], dtype=bad)       # JSON rows
    assert client.rope(q, q, dtype="float64").q.dtype == np.float64


def test_mrope_config_rotates_text_positions(client: posenc.Client) -> None:
    # A pasted M-RoPE config (Qwen2.5-VL, Qwen3-VL): the binary transport has no multi-axis RoPE
    # (the daemon's 422 at /axes), so rope() sends JSON rows instead. Integer positions are text
    # tokens (t = h = w = p), where M-RoPE is plain RoPE of the same base: numpy's rotate_half.
    cfg = {"model_type": "qwen2_5_vl_text", "hidden_size": 16, "num_attention_heads": 2,
           "rope_theta": 10000, "rope_scaling": {"type": "mrope", "mrope_section": [2, 1, 1]}}
    rng = np.random.default_rng(5)
    q = rng.standard_normal((1, 2, 5, 8))
    k = rng.standard_normal((1, 1, 5, 8))
    r = client.rope(q, k, config=cfg)
    inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    pos = np.arange(5)
    np.testing.assert_allclose(r.q, rotate_half_numpy(q, pos, inv), rtol=0, atol=1e-14)
    np.testing.assert_allclose(r.k, rotate_half_numpy(k, pos, inv), rtol=0, atol=1e-14)


def test_binary_answer_warnings_are_issued(client: posenc.Client) -> None:
    # A Llama config with partial_rotary_factor 0.5: Hugging Face rotates the whole head (the
    # daemon answers for all 16 dims and warns). A binary answer has no `warnings` member; its
    # header X-Posenc-Warnings carries them and the client issues each as a PosencWarning.
    # Seen failing (no warning issued) with the header left unread.
    cfg = {"model_type": "llama", "partial_rotary_factor": 0.5, "hidden_size": 64,
           "num_attention_heads": 4, "rope_theta": 10000, "num_hidden_layers": 2}
    q = np.ones((1, 4, 3, 16))
    with pytest.warns(posenc.PosencWarning, match="rotates the whole head"):
        r = client.rope(q, q, config=cfg)
    # whole head: pair 7 (the last) turns at base^(-14/16) rad per position, not base^(-14/8)
    theta = 10000.0 ** (-14 / 16)
    want = math.cos(2 * theta) * 1.0 - math.sin(2 * theta) * 1.0
    assert abs(float(r.q[0, 0, 2, 7]) - want) < 1e-15
