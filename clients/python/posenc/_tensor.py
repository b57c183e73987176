"""Turning q/k tensors of a model's shape into rows with one position each, and back.

The daemon rotates rows: row i of ``q`` at position ``q_positions[i]``. A tensor of any layout
is transposed so that its token axis ``t`` and feature axis ``d`` come last, flattened to
[N·T, D] rows, and each row is given the position of its token; the answer is reshaped and
transposed back. Batch and head axes only repeat the positions, so one request (or a few, when
the body would be too large) serves every head of every batch row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np
import numpy.typing as npt

__all__ = ["DEFAULT_LAYOUTS", "RowPlan", "as_positions", "plan_rows"]

#: The layout assumed for each rank when ``tensor_layout`` is not given: Hugging Face's
#: attention shape [batch, num_heads, seq_len, head_dim] for rank 4.
DEFAULT_LAYOUTS: Dict[int, str] = {1: "d", 2: "td", 3: "htd", 4: "bhtd"}


@dataclass(frozen=True)
class RowPlan:
    """How one tensor maps to rows.

    ``rows`` is [R, D] float64, ``positions`` [R] int64 (the position of each row), ``shape`` the
    transposed tensor's shape (token and feature axes last) and ``order`` the transposition.
    """

    rows: npt.NDArray[np.float64]
    positions: npt.NDArray[np.int64]
    shape: Tuple[int, ...]
    order: Tuple[int, ...]

    def restore(self, rotated: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Reshapes [R, D] rotated rows to the input tensor's own layout (a C-contiguous copy)."""
        out = rotated.reshape(self.shape)
        return np.ascontiguousarray(np.transpose(out, np.argsort(self.order)))


def as_positions(positions: Any, name: str) -> npt.NDArray[np.int64]:
    p = np.asarray(positions)
    if p.dtype.kind == "f":
        if not np.all(np.isfinite(p)) or not np.all(p == np.floor(p)):
            raise ValueError(f"{name}: positions must be integers")
    elif p.dtype.kind not in "iu":
        raise ValueError(f"{name}: positions must be integers")
    p = p.astype(np.int64)
    if p.size and p.min() < 0:
        raise ValueError(f"{name}: positions must be non-negative")
    return p


def plan_rows(x: npt.ArrayLike, layout: Optional[str], positions: Any, name: str) -> RowPlan:
    """Plans the rows of tensor ``x`` (``name`` is "q" or "k", for messages).

    ``layout`` names the axes with the letters b (batch), h (heads), t (tokens), d (features),
    e.g. ``"bhtd"`` or ``"bthd"``; default by rank (:data:`DEFAULT_LAYOUTS`). Rank 1 (``"d"``)
    is one vector rotated at every position. ``positions``: ``None`` for 0 … T−1; [T] integers
    shared by every batch row and head; or [B, T] (one row per batch entry, layouts with b).
    Raises ``ValueError`` for a layout that does not fit the tensor or positions that do not fit it.
    """
    a = np.asarray(x)
    if a.dtype.kind not in "fiu":
        raise ValueError(f"{name}: expected a numeric array, got dtype {a.dtype}")
    lay: str = layout.lower() if layout else DEFAULT_LAYOUTS.get(a.ndim, "")
    if len(lay) != a.ndim or len(set(lay)) != len(lay) or not set(lay) <= set("bhtd") or "d" not in lay:
        raise ValueError(
            f"{name}: tensor_layout {layout!r} does not name the {a.ndim} axes of shape {a.shape} "
            "(letters b, h, t, d, each once, d required)"
        )
    if lay == "d":
        if positions is None:
            raise ValueError(f"{name}: a single vector needs positions")
        pos = as_positions(positions, name).reshape(-1)
        rows = np.broadcast_to(a.astype(np.float64), (pos.size, a.shape[0]))
        return RowPlan(np.ascontiguousarray(rows), pos, (pos.size, a.shape[0]), (0, 1))
    if "t" not in lay:
        raise ValueError(f"{name}: tensor_layout {layout!r} has no token axis t")
    lead = [i for i, c in enumerate(lay) if c not in "td"]
    order = tuple(lead + [lay.index("t"), lay.index("d")])
    xp = np.transpose(a, order)
    T, D = xp.shape[-2], xp.shape[-1]
    pos = np.arange(T, dtype=np.int64) if positions is None else as_positions(positions, name)
    if pos.ndim == 1:
        if pos.size != T:
            raise ValueError(f"{name}: {pos.size} positions for {T} tokens")
        full = np.broadcast_to(pos, xp.shape[:-1])
    elif pos.ndim == 2 and "b" in lay:
        B = a.shape[lay.index("b")]
        if pos.shape != (B, T):
            raise ValueError(f"{name}: positions of shape {pos.shape}, expected [T]=[{T}] or [B, T]=[{B}, {T}]")
        shape = [1] * (xp.ndim - 1)
        shape[lead.index(lay.index("b"))] = B
        shape[-1] = T
        full = np.broadcast_to(pos.reshape(shape), xp.shape[:-1])
    else:
        raise ValueError(f"{name}: positions must be [T], or [B, T] with a batch axis")
    rows = np.ascontiguousarray(xp, dtype=np.float64).reshape(-1, D)
    return RowPlan(rows, np.ascontiguousarray(full).reshape(-1), tuple(xp.shape), order)
