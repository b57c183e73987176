"""Binary tensors for POST /rope: a multipart/form-data body that sends numpy arrays without
copying them, and a reader of the daemon's .npz answer that returns arrays viewing the received
bytes (no copy, no zipfile).

The body: a JSON ``params`` part, then ``q`` and ``k`` as .npy parts (format 1.0: magic, version,
header length, the dict, then the array's bytes in C order, little-endian). The parts' bytes go
to the socket as they are (``memoryview`` of the arrays).

The answer: a ZIP archive of stored (uncompressed) .npy members, each local header followed by
the member and a data descriptor (general purpose flag bit 3), as posencd writes it (docs/api.md,
"Binary answers"). Anything else (a compressed member, another writer) is read by ``numpy.load``.
"""

from __future__ import annotations

import ast
import io
import json
import struct
import uuid
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

import numpy as np
import numpy.typing as npt

__all__ = ["MultipartBody", "read_npz"]


def _npy_header(a: npt.NDArray[Any]) -> bytes:
    """The .npy 1.0 preamble of a C-contiguous little-endian array (numpy's own layout)."""
    shape = "(" + ", ".join(str(n) for n in a.shape) + ("," if a.ndim == 1 else "") + ")"
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (a.dtype.str, shape)
    pad = -(10 + len(d) + 1) % 64
    d = d + " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode("latin1")


class MultipartBody:
    """A multipart/form-data body over arrays, sent without copying them.

    Iterating yields the pieces (bytes and memoryviews); ``len()`` is the total, so the request
    carries a Content-Length. ``tell``/``seek`` make it replayable for the client's retries.
    """

    def __init__(self, params: Mapping[str, Any], tensors: Mapping[str, npt.NDArray[Any]]) -> None:
        self.boundary = "posenc-" + uuid.uuid4().hex
        b = self.boundary.encode("ascii")
        pieces: List[Any] = []
        head = b"--" + b + b'\r\nContent-Disposition: form-data; name="params"\r\n'
        head += b"Content-Type: application/json\r\n\r\n" + json.dumps(params).encode("utf-8")
        pieces.append(head)
        for name, arr in tensors.items():
            a = np.ascontiguousarray(arr)
            if a.dtype.byteorder == ">":
                a = a.astype(a.dtype.newbyteorder("<"))
            part = b"\r\n--" + b + f'\r\nContent-Disposition: form-data; name="{name}"; filename="{name}.npy"\r\n'.encode()
            part += b"Content-Type: application/octet-stream\r\n\r\n" + _npy_header(a)
            pieces.append(part)
            pieces.append(memoryview(a).cast("B") if a.size else b"")
        pieces.append(b"\r\n--" + b + b"--\r\n")
        self._pieces = pieces
        self._len = sum(len(p) for p in pieces)

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[Any]:
        return iter(self._pieces)

    def tell(self) -> int:
        return 0

    def seek(self, pos: int) -> int:
        return 0


def _npy_at(buf: memoryview, off: int) -> Tuple[npt.NDArray[Any], int]:
    """The .npy array starting at buf[off] (a view) and the offset just past its data."""
    if bytes(buf[off:off + 6]) != b"\x93NUMPY":
        raise ValueError("not an .npy member")
    major = buf[off + 6]
    if major == 1:
        hlen = struct.unpack_from("<H", buf, off + 8)[0]
        start = off + 10
    else:
        hlen = struct.unpack_from("<I", buf, off + 8)[0]
        start = off + 12
    d = ast.literal_eval(bytes(buf[start:start + hlen]).decode("latin1"))
    if d.get("fortran_order"):
        raise ValueError("Fortran-order member")
    dt = np.dtype(d["descr"])
    shape = tuple(d["shape"])
    count = int(np.prod(shape)) if shape else 1
    data = start + hlen
    arr = np.frombuffer(buf, dtype=dt, count=count, offset=data).reshape(shape)
    return arr, data + count * dt.itemsize


def read_npz(content: Any) -> Dict[str, npt.NDArray[Any]]:
    """The members of an .npz answer as arrays ({"q_rotated": ..., ...}), viewing ``content``
    (bytes, a bytearray or a uint8 array, kept alive by the arrays) when every member is stored as posencd
    stores them; else read by ``numpy.load``."""
    buf = memoryview(content)
    out: Dict[str, npt.NDArray[Any]] = {}
    off = 0
    try:
        while off + 30 <= len(buf) and bytes(buf[off:off + 4]) == b"PK\x03\x04":
            flags, method = struct.unpack_from("<HH", buf, off + 6)
            nlen, elen = struct.unpack_from("<HH", buf, off + 26)
            name = bytes(buf[off + 30:off + 30 + nlen]).decode("utf-8")
            extra = bytes(buf[off + 30 + nlen:off + 30 + nlen + elen])
            if method != 0:
                raise ValueError("compressed member")
            arr, end = _npy_at(buf, off + 30 + nlen + elen)
            out[name[:-4] if name.endswith(".npy") else name] = arr
            off = end
            if flags & 8:  # the data descriptor: signature, CRC-32, sizes (8 bytes each in ZIP64)
                off += 4 + 4 + (16 if _has_zip64(extra) else 8)
        if not out:
            raise ValueError("no stored member")
        return out
    except (ValueError, KeyError, SyntaxError, struct.error):
        with np.load(io.BytesIO(bytes(content)), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}


def _has_zip64(extra: bytes) -> bool:
    i = 0
    while i + 4 <= len(extra):
        hid, size = struct.unpack_from("<HH", extra, i)
        if hid == 1:
            return True
        i += 4 + size
    return False
