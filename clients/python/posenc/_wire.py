"""Byte formats the client speaks: JSON bodies, .npy, .safetensors, and config.json loading.

Nothing here talks to the network; every function is pure and tested through the client.
"""

from __future__ import annotations

import io
import json
import os
import struct
from typing import Any, Dict, Mapping, Union

import numpy as np
import numpy.typing as npt

__all__ = ["ConfigLike", "dumps", "load_config", "npy_bytes", "read_npy", "safetensors_bytes"]

#: A model's config.json: a path to the file, or the decoded object.
ConfigLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def _default(obj: Any) -> Any:
    """json.dumps hook: numpy arrays become nested lists (float64 values exactly), scalars Python numbers."""
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "f" and obj.dtype != np.float64:
            obj = obj.astype(np.float64)  # exact: every float16/float32 value is a float64 value
        return obj.tolist()
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def dumps(body: Mapping[str, Any]) -> bytes:
    """Encodes a request body as compact UTF-8 JSON.

    Floats are written by Python's ``repr`` (the shortest decimal that reads back to the same
    float64), so numbers reach the daemon bit-exactly. NaN and ±inf raise ``ValueError``: the
    daemon refuses them (its numbers are finite) and JSON has no spelling for them.
    """
    return json.dumps(body, default=_default, allow_nan=False, separators=(",", ":")).encode("utf-8")


def load_config(config: ConfigLike) -> Dict[str, Any]:
    """Returns a model's config.json as a dict: ``config`` is a path to the file or the object itself.

    The object is returned as a plain dict (a copy); the daemon reads it from ``{"config": ...}``.
    Raises ``TypeError`` when the file does not hold a JSON object.
    """
    if isinstance(config, (str, os.PathLike)):
        with open(config, "rb") as f:
            data = json.load(f)
    else:
        data = dict(config)
    if not isinstance(data, dict):
        raise TypeError("a config.json must hold a JSON object")
    return data


def read_npy(content: bytes) -> npt.NDArray[Any]:
    """Parses a .npy body (format 1.0 from posencd) with ``numpy.load``; never unpickles."""
    arr = np.load(io.BytesIO(content), allow_pickle=False)
    if not isinstance(arr, np.ndarray):
        raise ValueError("the answer is not a .npy array")
    return arr


def npy_bytes(array: npt.NDArray[Any]) -> bytes:
    """The .npy file of a 2-D array, little-endian, C order (what ``PUT /tables/{name}`` accepts)."""
    buf = io.BytesIO()
    np.save(buf, _little_endian_c(array), allow_pickle=False)
    return buf.getvalue()


_ST_DTYPES = {"float16": "F16", "float32": "F32", "float64": "F64"}


def safetensors_bytes(tensors: Mapping[str, npt.NDArray[Any]]) -> bytes:
    """A .safetensors file holding the given named arrays (float16/32/64).

    Layout (the format's specification): an unsigned 64-bit little-endian header length N, then N
    bytes of JSON ``{name: {"dtype": "F64", "shape": [...], "data_offsets": [begin, end]}}``
    padded with spaces to a multiple of 8, then the tensors' bytes (little-endian, C order) in the
    order of the offsets.
    """
    header: Dict[str, Any] = {}
    blobs = []
    offset = 0
    for name, arr in tensors.items():
        a = _little_endian_c(np.asarray(arr))
        code = _ST_DTYPES.get(a.dtype.name)
        if code is None:
            raise TypeError(f"{name}: dtype {a.dtype} cannot be stored (float16, float32 or float64)")
        raw = a.tobytes(order="C")
        header[name] = {"dtype": code, "shape": list(a.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    head += b" " * (-len(head) % 8)
    return struct.pack("<Q", len(head)) + head + b"".join(blobs)


def _little_endian_c(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    a = np.ascontiguousarray(array)
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and not _native_little()):
        a = a.astype(a.dtype.newbyteorder("<"))
    return a


def _native_little() -> bool:
    return bool(np.little_endian)
