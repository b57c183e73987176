"""bench/peer.py -- what a user would write instead of posenc: a tiny FastAPI + numpy service with the
same small requests `make bench` sends to posencd (Debian's python3-fastapi 0.92, python3-uvicorn,
python3-numpy).

    /usr/bin/python3 -m uvicorn --app-dir bench peer:app --host 127.0.0.1 --port 8090

Endpoints (posenc's field names, only what the benchmark sends):
  GET  /healthz                     {"status": "ok"}
  POST /rope    {head_dim, positions, q, k[, base]} (q, k: one vector of head_dim numbers)
                -> posenc's /rope answer (inv_freq, attention_factor, softmax_scale_factor,
                   q_positions, q_rotated, k_positions, k_rotated, scores, resolved): plain RoPE,
                   HF rotate_half layout, float64 (numpy), scores = q_rot . k_rot^T (no
                   1/sqrt(d)); bench/run.sh checks it against posenc's (bench/check_answer.py)
  POST /alibi   {num_heads, seq_len[, mode]}
                -> {slopes, bias}: press slopes for a power-of-two head count, bias -m (i - j),
                   null above the diagonal when causal (posenc's /alibi without q/k)
"""
from typing import List, Optional

import numpy as np
from fastapi import FastAPI
from pydantic import BaseModel

app = FastAPI()


class RopeRequest(BaseModel):
    head_dim: int
    positions: List[int]
    q: Optional[List[float]] = None  # one vector, rotated at every position (posenc also takes rows)
    k: Optional[List[float]] = None
    base: float = 10000.0


class AlibiRequest(BaseModel):
    num_heads: int
    seq_len: int
    mode: str = "causal"


@app.get("/healthz")
def healthz():
    return {"status": "ok"}


@app.post("/rope")
def rope(r: RopeRequest):
    d = r.head_dim
    inv_freq = 1.0 / (r.base ** (np.arange(0, d, 2, dtype=np.float64) / d))
    angles = np.outer(np.asarray(r.positions, dtype=np.float64), inv_freq)
    cos, sin = np.cos(angles), np.sin(angles)

    def rotate(x):
        x = np.broadcast_to(np.asarray(x, dtype=np.float64), (len(r.positions), d))
        x1, x2 = x[:, : d // 2], x[:, d // 2:]
        return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=1)

    out = {"inv_freq": inv_freq.tolist(), "attention_factor": 1, "softmax_scale_factor": 1}
    qr = rotate(r.q) if r.q is not None else None
    kr = rotate(r.k) if r.k is not None else None
    if qr is not None:
        out["q_positions"] = r.positions
        out["q_rotated"] = qr.tolist()
    if kr is not None:
        out["k_positions"] = r.positions
        out["k_rotated"] = kr.tolist()
    if qr is not None and kr is not None:
        out["scores"] = (qr @ kr.T).tolist()
    out["resolved"] = {"head_dim": d, "rotary_dim": d, "layout": "half", "inv_freq_source": "computed",
                       "base": r.base, "scaling": {"type": "default"}, "seq_len": max(r.positions) + 1,
                       "seq_len_source": "largest position + 1"}
    return out


@app.post("/alibi")
def alibi(r: AlibiRequest):
    h = np.arange(1, r.num_heads + 1, dtype=np.float64)
    slopes = 2.0 ** (-8.0 * h / r.num_heads)
    i = np.arange(r.seq_len)
    dist = (i[:, None] - i[None, :]).astype(np.float64)
    bias = -slopes[:, None, None] * np.abs(dist)[None, :, :]
    if r.mode == "causal":
        masked = np.broadcast_to(dist < 0, bias.shape)
        bias = np.where(masked, None, bias)
    return {"slopes": slopes.tolist(), "bias": bias.tolist()}
