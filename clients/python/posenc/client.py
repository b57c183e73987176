"""posenc.Client: every route of posencd as a method that takes and returns numpy arrays."""

from __future__ import annotations

import os
from typing import IO, Any, Dict, List, Mapping, NamedTuple, Optional, Union, cast
from urllib.parse import quote

import numpy as np
import numpy.typing as npt

from . import _wire
from ._http import HttpBase
from ._binary import MultipartBody, read_npz
from ._tensor import DEFAULT_LAYOUTS, as_positions, plan_rows
from ._wire import ConfigLike
from .errors import PosencError

__all__ = ["Client", "CosSin", "Rotated"]

Array = npt.NDArray[Any]
Positions = Union[npt.ArrayLike, None]


class Rotated(NamedTuple):
    """q and k after RoPE, each in its input's own shape and layout (k is None when not given).

    The rotated part is multiplied by the configuration's attention_factor (YaRN, LongRoPE), as
    Hugging Face multiplies cos and sin; dims past rotary_dim pass through unchanged.
    """

    q: Array
    k: Optional[Array]


class CosSin(NamedTuple):
    """cos and sin tables, [P, rotary_dim/2] each: cos(p·inv_freq[j]) and sin(p·inv_freq[j]).

    They do not include ``attention_factor`` (Hugging Face's cos/sin do: multiply both by it to
    compare). ``inv_freq`` is [rotary_dim/2] in radians per token.
    """

    cos: npt.NDArray[np.float64]
    sin: npt.NDArray[np.float64]
    attention_factor: float
    inv_freq: npt.NDArray[np.float64]


def _put(body: Dict[str, Any], **fields: Any) -> Dict[str, Any]:
    """Adds the fields that are not None (None means: the daemon's default)."""
    for key, value in fields.items():
        if value is not None:
            body[key] = value
    return body


class Client(HttpBase):
    """A posencd client. Connection settings (URL, write key, retries) are documented on
    :class:`posenc._http.HttpBase`; ``Client()`` reads POSENC_URL and POSENC_TOKEN.

    Every compute method sends JSON and, where the daemon offers it, asks for its answer as .npy
    (``Accept: application/x-npy``), so arrays come back as float64 bit for bit (``dtype=
    "float32"`` halves them). Keyword arguments not named in a signature are sent as request
    fields as they are, so a field added to the API later works without a new client. Errors of
    the daemon raise :class:`posenc.PosencError`; local mistakes (bad shapes, NaN) ``ValueError``.

    ``max_request_bytes`` bounds the JSON body of one ``rope`` request (it is also kept below half
    the daemon's ``max_body_bytes``); larger tensors are sent in several requests.
    """

    max_request_bytes: int = 8 * 1024 * 1024

    # ---- RoPE -------------------------------------------------------------------------------
    @staticmethod
    def _rope_body(config: Optional[ConfigLike], settings: Mapping[str, Any]) -> Dict[str, Any]:
        body: Dict[str, Any] = {}
        if config is not None:
            body["config"] = _wire.load_config(config)
        body.update({k: v for k, v in settings.items() if v is not None})
        return body

    def inv_freq(self, config: Optional[ConfigLike] = None, **settings: Any) -> npt.NDArray[np.float64]:
        """RoPE frequencies after scaling: [rotary_dim/2] float64, radians per token.

        ``config`` is a model's config.json (a path or a dict; sent as ``{"config": ...}``);
        ``settings`` are /rope's configuration fields (``head_dim``, ``rope_theta``,
        ``rope_scaling``, ``partial_rotary_factor``, ``seq_len`` for dynamic/longrope, …), which win
        over the config's. Example: ``inv_freq(head_dim=128, rope_theta=500000)``.
        """
        arr, _ = self.post_npy("/rope", self._rope_body(config, settings))
        return arr

    def cos_sin(
        self, positions: npt.ArrayLike, config: Optional[ConfigLike] = None, **settings: Any
    ) -> CosSin:
        """cos/sin tables at ``positions`` ([P] token positions, integers ≥ 0): see :class:`CosSin`.

        ``config`` and ``settings`` as for :meth:`inv_freq`. One JSON request (at most the
        daemon's ``max_output_elements`` numbers: P·rotary_dim ≤ 4,194,304 by default).
        """
        body = self._rope_body(config, settings)
        body["positions"] = np.asarray(positions).reshape(-1)
        body["include"] = ["cos_sin"]
        answer = self.post_json("/rope", body)
        return CosSin(
            np.asarray(answer["cos"], dtype=np.float64),
            np.asarray(answer["sin"], dtype=np.float64),
            float(answer["attention_factor"]),
            np.asarray(answer.get("inv_freq", []), dtype=np.float64),
        )

    def rope(
        self,
        q: npt.ArrayLike,
        k: Optional[npt.ArrayLike] = None,
        *,
        positions: Positions = None,
        k_positions: Positions = None,
        tensor_layout: Optional[str] = None,
        config: Optional[ConfigLike] = None,
        dtype: Optional[str] = None,
        **settings: Any,
    ) -> Rotated:
        """Rotates q (and k) with RoPE and returns them in their own shape: see :class:`Rotated`.

        Args:
            q, k: float arrays of any model shape, the last named axis of ``tensor_layout`` being
                head_dim. k may have fewer heads than q (grouped-query attention).
            tensor_layout: the axes of q and k as letters: b batch, h heads, t tokens, d
                head_dim. Default by rank: ``"d"`` (one vector, rotated at every position),
                ``"td"`` [T, D], ``"htd"`` [H, T, D], ``"bhtd"`` [B, H, T, D] (Hugging Face's
                attention shape); e.g. ``"bthd"`` for [B, T, H, D] as projected, ``"thd"``.
            positions: token positions of q: [T] integers (default 0 … T−1), or [B, T] per batch
                row. ``k_positions``: those of k (default ``positions``).
            config: a model's config.json (path or dict); ``settings``: /rope's configuration
                fields (``head_dim`` defaults to D when neither config nor head_dim is given).
            dtype: ``"float32"`` to get float32 arrays (each the float64 result rounded);
                ``None`` or ``"float64"``: float64. Anything else (``"float16"``) is a ValueError:
                a float16 or bfloat16 q comes back float64 or float32, never in its own dtype.

        Transport: binary tensors (one multipart request: q and k as .npy parts, the answer an
        .npz read without copies; docs/api.md "Binary tensors") for the layouts ``"td"``,
        ``"thd"``, ``"htd"``, ``"bthd"``, ``"bhtd"`` when q and k share their positions; float32
        arrays travel as float32 with ``dtype="float32"``, everything else as float64. Otherwise
        (one vector, ``k_positions``, other layouts, and multi-axis RoPE — a config with
        ``mrope_section``, whose integer positions are text tokens — after the daemon's 422 at
        ``/axes``) every head and batch row is sent as JSON rows ([N·T, D] with each row's
        position), split into several requests when the body would pass
        ``max_request_bytes``. ``seq_len`` (used by dynamic and longrope scaling) defaults to the
        largest position of q and k + 1. Numbers are float64 throughout, rounded once to float32
        with ``dtype="float32"``: both transports give the same bits.
        """
        if dtype is not None and dtype not in ("float64", "float32"):
            # the binary transport sends no dtype: another value would come back float64 unsaid
            raise ValueError(f'dtype: must be "float64" or "float32" (the answer\'s element type), not {dtype!r}')
        binary = self._rope_binary(q, k, positions, k_positions, tensor_layout, config, dtype, settings)
        if binary is not None:
            return binary
        plan_q = plan_rows(q, tensor_layout, positions, "q")
        plan_k = None
        if k is not None:
            plan_k = plan_rows(k, tensor_layout, positions if k_positions is None else k_positions, "k")
        body = self._rope_body(config, settings)
        if config is None and "head_dim" not in body:
            body["head_dim"] = int(plan_q.rows.shape[1])
        if "seq_len" not in body:
            last = [int(p.positions.max()) for p in (plan_q, plan_k) if p is not None and p.positions.size]
            if last:
                body["seq_len"] = max(last) + 1
        if dtype is not None:
            body["dtype"] = dtype
        q_rot = plan_q.restore(self._rotate_rows(plan_q.rows, plan_q.positions, body))
        k_rot = None
        if plan_k is not None:
            k_rot = plan_k.restore(self._rotate_rows(plan_k.rows, plan_k.positions, body))
        return Rotated(q_rot, k_rot)

    #: client layouts the binary transport takes, and how the daemon reads them (rank-3 [H, T, D]
    #: is sent as [1, H, T, D])
    _BINARY_LAYOUTS: Dict[str, Optional[str]] = {"td": None, "thd": None, "htd": "bhtd", "bthd": "bthd", "bhtd": "bhtd"}

    def _rope_binary(
        self,
        q: npt.ArrayLike,
        k: Optional[npt.ArrayLike],
        positions: Positions,
        k_positions: Positions,
        tensor_layout: Optional[str],
        config: Optional[ConfigLike],
        dtype: Optional[str],
        settings: Mapping[str, Any],
    ) -> Optional[Rotated]:
        """rope() over the binary transport, or None when it does not apply (see rope())."""
        qa = np.asarray(q)
        ka = None if k is None else np.asarray(k)
        lay = (tensor_layout or DEFAULT_LAYOUTS.get(qa.ndim, "")).lower()
        if lay not in self._BINARY_LAYOUTS or len(lay) != qa.ndim or k_positions is not None:
            return None
        if qa.dtype.kind not in "fiu" or (ka is not None and (ka.dtype.kind not in "fiu" or ka.ndim != qa.ndim)):
            return None
        t_ax = lay.index("t")
        if ka is not None and (ka.shape[t_ax] != qa.shape[t_ax] or ("b" in lay and ka.shape[0] != qa.shape[0])):
            return None
        pos = None
        if positions is not None:
            pos = as_positions(positions, "q")
            T = qa.shape[t_ax]
            want = (qa.shape[0], T) if "b" in lay else None
            if not ((pos.ndim == 1 and pos.size == T) or (pos.ndim == 2 and pos.shape == want)):
                return None  # the row planner says what is wrong
        f32 = dtype == "float32" and qa.dtype == np.float32 and (ka is None or ka.dtype == np.float32)
        wire_dt = np.float32 if f32 else np.float64
        server_layout = self._BINARY_LAYOUTS[lay]
        tensors = {}
        for name, a in (("q", qa), ("k", ka)):
            if a is None:
                continue
            if a.dtype.kind == "f" and a.size and not (np.isfinite(a.min()) and np.isfinite(a.max())):
                raise ValueError(f"{name}: NaN or infinite values cannot be rotated")  # min/max carry NaN
            a = a.astype(wire_dt, copy=False)
            if lay == "htd":
                a = a.reshape((1,) + a.shape)
            tensors[name] = a
        params = self._rope_body(config, settings)
        if config is None and "head_dim" not in params:
            params["head_dim"] = int(qa.shape[-1])
        if pos is not None:
            params["positions"] = pos.tolist()
            if "seq_len" not in params and pos.size:
                params["seq_len"] = int(pos.max()) + 1
        if server_layout is not None:
            params["tensor_layout"] = server_layout
        try:
            content, _ = self.post_multipart("/rope", MultipartBody(params, tensors), "application/x-npz")
        except PosencError as e:
            if e.status == 422 and e.pointer == "/axes":
                return None  # multi-axis RoPE (an M-RoPE config): the daemon takes it as JSON rows
            raise
        arrays = read_npz(content)
        out = []
        for name, a in (("q", qa), ("k", ka)):
            if a is None:
                out.append(None)
                continue
            r = arrays.get(name + "_rotated")
            if r is None or r.size != a.size:
                raise ValueError(f"/rope answered no {name}_rotated of {a.size} values")
            r = r.reshape(a.shape)
            if dtype == "float32" and r.dtype != np.float32:
                r = r.astype(np.float32)
            out.append(r)
        return Rotated(out[0], out[1])

    def _rows_per_request(self, width: int) -> int:
        limits = self._cached_limits()
        budget = min(self.max_request_bytes, int(limits.get("max_body_bytes", 16 << 20)) // 2)
        per = budget // (26 * width + 24)  # a float64 in JSON takes at most 25 characters and a comma
        per = min(per, int(limits.get("max_positions", 1_000_000)))
        per = min(per, int(limits.get("max_output_elements", 4_194_304)) // max(1, width))
        return max(1, per)

    def _rotate_rows(
        self, rows: npt.NDArray[np.float64], positions: npt.NDArray[np.int64], body: Mapping[str, Any]
    ) -> Array:
        """Rotates [R, D] rows, row i at positions[i]: the one place that moves tensors.

        Today: JSON ``q`` rows and ``q_positions`` in, the ``q_rotated`` .npy out, in parts of
        :meth:`_rows_per_request` rows.
        """
        n = rows.shape[0]
        per = self._rows_per_request(rows.shape[1])
        parts: List[Array] = []
        for start in range(0, n, per):
            part = dict(body)
            part["q"] = rows[start:start + per]
            part["q_positions"] = positions[start:start + per]
            arr, name = self.post_npy("/rope", part)
            want = (min(per, n - start), rows.shape[1])
            if name != "q_rotated" or arr.shape != want:
                raise ValueError(f"/rope answered {name or 'an array'} of shape {arr.shape}, expected q_rotated {want}")
            parts.append(arr)
        if not parts:
            return np.empty((0, rows.shape[1]), dtype=np.float32 if body.get("dtype") == "float32" else np.float64)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    # ---- other encodings --------------------------------------------------------------------
    def sinusoidal(
        self,
        d_model: int,
        positions: Positions = None,
        *,
        seq_len: Optional[int] = None,
        offset: Optional[int] = None,
        base: Optional[float] = None,
        convention: Optional[str] = None,
        layout: Optional[str] = None,
        dtype: Optional[str] = None,
        **extra: Any,
    ) -> npt.NDArray[np.floating[Any]]:
        """Sinusoidal position table, [P, d_model] (dimensionless, in [−1, 1]).

        Rows for ``positions`` ([P] integers ≥ 0), or for offset … offset+seq_len−1. ``base``
        (default 10000), ``convention`` ``vaswani`` | ``tensor2tensor`` | ``fairseq``,
        ``layout`` ``interleaved`` (sin at 2i, cos at 2i+1) | ``concat`` ([sin ‖ cos]).
        """
        body = _put({"d_model": d_model}, positions=positions, seq_len=seq_len, offset=offset, base=base,
                    convention=convention, layout=layout, dtype=dtype, **extra)
        return self.post_npy("/sinusoidal", body)[0]

    def learned(
        self,
        table: str,
        positions: Positions = None,
        *,
        seq_len: Optional[int] = None,
        offset: Optional[int] = None,
        extend: Optional[str] = None,
        target_length: Optional[int] = None,
        dtype: Optional[str] = None,
        **extra: Any,
    ) -> npt.NDArray[np.floating[Any]]:
        """Rows of the stored learned table ``table`` at ``positions`` (or offset … offset+seq_len−1):
        [P, cols]. ``extend``: ``error`` (default: a 422 past the last row), ``copy`` (row p mod
        rows) or ``interpolate`` (resampled to ``target_length`` rows first).
        """
        body = _put({"table": table}, positions=positions, seq_len=seq_len, offset=offset, extend=extend,
                    target_length=target_length, dtype=dtype, **extra)
        return self.post_npy("/learned", body)[0]

    def alibi(
        self,
        num_heads: int,
        *,
        seq_len: Optional[int] = None,
        query_positions: Positions = None,
        key_positions: Positions = None,
        scores: Optional[npt.ArrayLike] = None,
        q: Optional[npt.ArrayLike] = None,
        k: Optional[npt.ArrayLike] = None,
        v: Optional[npt.ArrayLike] = None,
        dtype: Optional[str] = None,
        **settings: Any,
    ) -> npt.NDArray[np.floating[Any]]:
        """ALiBi: the route's main array, the first that the inputs produce of

        - ``output`` [H, Tq, dv] = weights·v (when ``v`` is given),
        - ``weights`` [H, Tq, Tk] = softmax(logits + bias), exactly 0 where masked (with ``scores``
          [Tq, Tk] or [H, Tq, Tk], or ``q`` [Tq, d] and ``k`` [Tk, d], logits q·kᵀ/√d),
        - ``bias`` [H, Tq, Tk] = −m·(i − j), −inf where masked (positions only),
        - ``slopes`` [H] (positions only and ``include_bias=False``; see :meth:`alibi_slopes`).

        ``settings``: ``mode`` (``causal`` default, ``symmetric``), ``slopes_rule`` (``press``,
        ``mpt``), ``alibi_bias_max``, ``slopes`` (explicit [H]), ``include_bias``.
        """
        body = _put({"num_heads": num_heads}, seq_len=seq_len, query_positions=query_positions,
                    key_positions=key_positions, scores=scores, q=q, k=k, v=v, dtype=dtype, **settings)
        return self.post_npy("/alibi", body)[0]

    def alibi_slopes(self, num_heads: int, **settings: Any) -> npt.NDArray[np.float64]:
        """The per-head ALiBi slopes m, [num_heads] (per token of distance); ``settings`` as :meth:`alibi`."""
        body = _put({"num_heads": num_heads, "seq_len": 1, "include_bias": False}, **settings)
        arr, name = self.post_npy("/alibi", body)
        if name != "slopes":
            raise ValueError(f"/alibi answered {name}, expected slopes")
        return arr

    def t5_buckets(
        self,
        relative_positions: Positions = None,
        *,
        query_positions: Positions = None,
        key_positions: Positions = None,
        bidirectional: Optional[bool] = None,
        num_buckets: Optional[int] = None,
        max_distance: Optional[int] = None,
        **extra: Any,
    ) -> npt.NDArray[np.int64]:
        """T5 relative-position buckets as int64: [R] for ``relative_positions`` (key − query, tokens),
        or [Tq, Tk] for ``query_positions`` × ``key_positions`` (entry [a][b]: key b − query a).
        Defaults: bidirectional, 32 buckets, max_distance 128.
        """
        body = _put({}, relative_positions=relative_positions, query_positions=query_positions,
                    key_positions=key_positions, bidirectional=bidirectional, num_buckets=num_buckets,
                    max_distance=max_distance, **extra)
        return self.post_npy("/t5/buckets", body)[0]

    def attention(
        self,
        q: npt.ArrayLike,
        k: npt.ArrayLike,
        v: Optional[npt.ArrayLike] = None,
        *,
        method: str = "none",
        causal: Optional[bool] = None,
        scale: Optional[float] = None,
        settings: Optional[Mapping[str, Any]] = None,
        dtype: Optional[str] = None,
        **extra: Any,
    ) -> npt.NDArray[np.floating[Any]]:
        """Single-head attention of T tokens (positions 0 … T−1) with a position method.

        ``q``, ``k``: [T, d]; ``v``: [T, dv]. ``method``: ``none``, ``sinusoidal``, ``learned``,
        ``rope``, ``alibi``, ``t5``, ``shaw``, ``transformer_xl``; ``settings`` is that method's
        object (e.g. ``{"num_heads": 4}`` for alibi, ``{"table": "demo-512x64"}`` for learned).
        Returns ``output`` [T, dv] (or [H, T, dv]) when v is given, else ``weights`` [T, T] (or
        [H, T, T] for alibi and multi-head t5), exactly 0 where masked. ``scale`` defaults to 1/√d.
        """
        body = _put({"q": q, "k": k, "method": method}, v=v, causal=causal, scale=scale, dtype=dtype, **extra)
        if settings is not None:
            body[method] = dict(settings)
        return self.post_npy("/attention", body)[0]

    # ---- which method -------------------------------------------------------------------------
    def model_method(self, config: ConfigLike) -> Dict[str, Any]:
        """Which position method a model uses: ``POST /model/method`` with ``{"config": ...}``.

        ``config``: the model's config.json (path or dict). The answer is returned as decoded;
        the route (issue 15) answers, per kind of layer, the method (learned absolute, alibi, t5,
        rope with its variant, none), the layer indices it covers, the parameters it needs and
        the route that computes it. Raises :class:`PosencError` 404 on a daemon without the route.
        """
        return self.post_json("/model/method", {"config": _wire.load_config(config)})

    # ---- learned tables -----------------------------------------------------------------------
    @staticmethod
    def _table_path(name: str) -> str:
        return "/tables/" + quote(name, safe="")

    def tables(self) -> List[Dict[str, Any]]:
        """``GET /tables``: every stored table's description (name, shape, dtype, format, bytes, …)."""
        return list(self.get_json("/tables")["tables"])

    def table_info(self, name: str) -> Dict[str, Any]:
        """``GET /tables/{name}``: one table's description; PosencError 404 when there is none."""
        return dict(self.get_json(self._table_path(name)))

    def table(self, name: str) -> npt.NDArray[np.float64]:
        """The stored table's values, [rows, cols] float64 (downloaded as .npy)."""
        resp = self.request("GET", self._table_path(name), accept="application/x-npy")
        return _wire.read_npy(resp.content)

    def upload_table(
        self,
        name: str,
        data: Union[npt.ArrayLike, str, "os.PathLike[str]", IO[bytes]],
        *,
        tensor: Optional[str] = None,
        format: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Stores a learned position table (rows = positions) under ``name``: ``PUT /tables/{name}``.

        ``data``: a 2-D float array (float16/32/64), sent as .npy, or as .safetensors when
        ``format="safetensors"`` or when the .npy would pass the daemon's ``max_body_bytes``
        (a .safetensors upload is streamed and bound only by ``max_table_bytes``); or a path to /
        binary file of a ``.npy`` or ``.safetensors`` file (a whole model file may be streamed:
        ``tensor`` names the one to keep, e.g. ``"transformer.wpe.weight"``). Values are kept as
        float64. Returns the stored table's description; replacing a table is allowed, the
        built-in ``demo-512x64`` is a 409.
        """
        params = {"tensor": tensor} if tensor else None
        if isinstance(data, (str, os.PathLike)) or hasattr(data, "read"):
            fmt = format
            if fmt is None and isinstance(data, (str, os.PathLike)):
                fmt = os.fspath(data).rsplit(".", 1)[-1].lower()
            ctype = {"npy": "application/x-npy", "safetensors": "application/x-safetensors"}.get(fmt or "")
            if ctype is None:
                raise ValueError("format must be 'npy' or 'safetensors' (from the file name or format=)")
            if isinstance(data, (str, os.PathLike)):
                with open(data, "rb") as f:
                    resp = self.request("PUT", self._table_path(name), body=f, content_type=ctype, params=params)
            else:
                stream = cast(IO[bytes], data)
                resp = self.request("PUT", self._table_path(name), body=stream, content_type=ctype, params=params)
            return dict(resp.json())
        arr = np.asarray(data)
        if arr.ndim != 2:
            raise ValueError(f"a table is 2-D [rows, cols], got shape {arr.shape}")
        if arr.dtype.kind != "f":
            arr = arr.astype(np.float64)
        fmt = format
        if fmt is None:
            fmt = "npy" if arr.nbytes + 128 <= int(self._cached_limits().get("max_body_bytes", 16 << 20)) else "safetensors"
        if fmt == "npy":
            payload, ctype = _wire.npy_bytes(arr), "application/x-npy"
        elif fmt == "safetensors":
            key = tensor or "table"
            payload, ctype = _wire.safetensors_bytes({key: arr}), "application/x-safetensors"
            params = {"tensor": key}
        else:
            raise ValueError("format must be 'npy' or 'safetensors'")
        resp = self.request("PUT", self._table_path(name), body=payload, content_type=ctype, params=params)
        return dict(resp.json())

    def delete_table(self, name: str) -> None:
        """``DELETE /tables/{name}``; PosencError 404 when there is none, 409 for the built-in table."""
        self.request("DELETE", self._table_path(name))

    # ---- service ----------------------------------------------------------------------------
    def health(self) -> Dict[str, Any]:
        """``GET /healthz`` (``{"status": "ok"}``)."""
        return dict(self.get_json("/healthz"))

    def version(self) -> Dict[str, Any]:
        """``GET /version``: version, git revision, compiler and library versions."""
        return dict(self.get_json("/version"))

