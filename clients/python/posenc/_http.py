"""The HTTP layer of the client: one keep-alive session, bounded retries on 503, errors as PosencError."""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import time
import warnings
from urllib.parse import urlsplit
from typing import IO, Any, Callable, Dict, Mapping, Optional, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt
import requests
from requests.adapters import HTTPAdapter

from . import _wire
from .errors import PosencError, PosencWarning

__all__ = ["DEFAULT_URL", "HttpBase", "read_body", "session_for"]

#: The daemon's default address (``make run``), used when neither ``base_url`` nor POSENC_URL is given.
DEFAULT_URL = "http://127.0.0.1:8080"

_NPY = "application/x-npy"
_JSON = "application/json"

Body = Union[bytes, IO[bytes], None]
_Self = TypeVar("_Self", bound="HttpBase")


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _reno_options() -> Optional[list]:
    """The connection's socket options with Reno congestion control, or None where Reno cannot be set."""
    opt = getattr(socket, "TCP_CONGESTION", None)
    if opt is None:
        return None
    try:
        with socket.socket() as s:
            s.setsockopt(socket.IPPROTO_TCP, opt, b"reno")
    except OSError:
        return None
    from urllib3.connection import HTTPConnection

    return list(HTTPConnection.default_socket_options) + [(socket.IPPROTO_TCP, opt, b"reno")]


class _OptionsAdapter(HTTPAdapter):
    def __init__(self, options: list) -> None:
        self._options = options
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["socket_options"] = self._options
        super().init_poolmanager(*args, **kwargs)


def session_for(base_url: str) -> requests.Session:
    """A new ``requests.Session`` for a daemon at ``base_url``.

    On a loopback address (``localhost``, 127.0.0.0/8, ``::1``) its connections to ``base_url``
    use Reno congestion control where the system lets a process choose it (Linux: Reno is always
    allowed). Loopback has no congestion to control, but a system default of BBR sizes the
    congestion window from loopback's round trip of microseconds, so the client's sends stop at
    that window and each acknowledgement of the daemon's reads sends the client's next segments
    from inside the daemon's ``recv`` (a fifth of the daemon's CPU time on a 256 MiB upload,
    docs/performance.md); with Reno the client sends them in its own calls. Elsewhere, and where
    Reno cannot be set, the session is a plain one.
    """
    session = requests.Session()
    options = _reno_options() if _is_loopback(base_url) else None
    if options is not None:
        session.mount(base_url.rstrip("/") + "/", _OptionsAdapter(options))
    return session


def _issue_warnings(header: Optional[str]) -> None:
    """Each warning of a binary answer (its ``X-Posenc-Warnings`` header: a JSON array of strings)
    as a :class:`PosencWarning`; a JSON answer has them in its ``warnings`` member instead."""
    if not header:
        return
    try:
        texts = json.loads(header)
    except ValueError:
        texts = [header]
    for text in texts if isinstance(texts, list) else [texts]:
        warnings.warn(str(text), PosencWarning, stacklevel=4)


class HttpBase:
    """Transport shared by every route of :class:`posenc.Client`.

    Args:
        base_url: the daemon's URL, e.g. ``"http://127.0.0.1:18600"``; default the environment
            variable ``POSENC_URL``, else ``http://127.0.0.1:8080``.
        token: the write key, sent as ``Authorization: Bearer <token>`` on every request; default
            the environment variable ``POSENC_TOKEN`` (unset or empty: no header). Daemons that
            require a key require it for ``PUT``/``DELETE /tables``.
        timeout: seconds to wait for the connection and for each read of the answer.
        retries: extra attempts after a 503 answer (``overloaded``, ``unavailable``,
            ``shutting-down``) or a connection dropped before any answer; 0 turns retrying off.
        max_retry_wait: upper bound in seconds of one wait between attempts.
        session: a ``requests.Session`` to use (default :func:`session_for` ``base_url``: a new
            one, connections kept alive, Reno congestion control on loopback).

    Between attempts the client waits the answer's ``Retry-After`` (seconds, or an HTTP date)
    when it has one, else 0.5 s, 1 s, 2 s, … (doubling), each wait capped at ``max_retry_wait``.
    A request whose body is a stream that cannot be rewound is never retried. After the last
    attempt the 503 is raised as :class:`PosencError` (or the connection error as
    ``requests.ConnectionError``).
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        *,
        token: Optional[str] = None,
        timeout: float = 60.0,
        retries: int = 3,
        max_retry_wait: float = 30.0,
        session: Optional[requests.Session] = None,
    ) -> None:
        url = base_url or os.environ.get("POSENC_URL") or DEFAULT_URL
        self.base_url: str = url.rstrip("/")
        self.token: Optional[str] = token if token is not None else (os.environ.get("POSENC_TOKEN") or None)
        self.timeout = float(timeout)
        self.retries = max(0, int(retries))
        self.max_retry_wait = float(max_retry_wait)
        self.session: requests.Session = session if session is not None else session_for(self.base_url)
        if self.token:
            self.session.headers["Authorization"] = f"Bearer {self.token}"
        # The waiting function between attempts; tests replace it to record the waits.
        self._sleep: Callable[[float], None] = time.sleep
        self._limits: Optional[Dict[str, Any]] = None

    # ---- life cycle -------------------------------------------------------------------------
    def close(self) -> None:
        """Closes the kept-alive connections."""
        self.session.close()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- requests -----------------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        *,
        body: Body = None,
        content_type: Optional[str] = None,
        accept: Optional[str] = None,
        params: Optional[Mapping[str, str]] = None,
        stream: bool = False,
    ) -> requests.Response:
        """Sends one request (with the retries described on the class) and returns a 2xx answer.

        ``path`` starts with ``/``. ``body`` is bytes or a binary file object (streamed; rewound
        before a retry). Raises :class:`PosencError` for any status of 400 or more.
        """
        url = self.base_url + path
        headers: Dict[str, str] = {}
        if content_type:
            headers["Content-Type"] = content_type
        if accept:
            headers["Accept"] = accept
        start: Optional[int] = None
        replayable = True
        if body is not None and not isinstance(body, (bytes, bytearray)):
            try:
                start = body.tell()
            except (AttributeError, OSError):
                replayable = False
        attempt = 0
        while True:
            if start is not None:
                body.seek(start)  # type: ignore[union-attr]
            try:
                resp = self.session.request(
                    method, url, data=body, headers=headers, params=params, timeout=self.timeout,
                    stream=stream,
                )
            except requests.ConnectionError:
                if attempt >= self.retries or not replayable:
                    raise
                wait = self._backoff(attempt)
            else:
                if resp.status_code < 400:
                    _issue_warnings(resp.headers.get("X-Posenc-Warnings"))
                    return resp
                err = PosencError.from_response(resp.status_code, resp.headers, resp.content)
                resp.close()
                if resp.status_code != 503 or attempt >= self.retries or not replayable:
                    raise err
                wait = err.retry_after if err.retry_after is not None else self._backoff(attempt)
            self._sleep(min(wait, self.max_retry_wait))
            attempt += 1

    @staticmethod
    def _backoff(attempt: int) -> float:
        return 0.5 * (2.0 ** attempt)

    def get_json(self, path: str) -> Any:
        """``GET path`` and the decoded JSON answer."""
        return self.request("GET", path, accept=_JSON).json()

    def post_json(self, path: str, body: Mapping[str, Any]) -> Dict[str, Any]:
        """``POST path`` with a JSON body (numpy arrays allowed inside) and the decoded JSON answer.

        The escape hatch for any field or route the typed methods do not cover.
        """
        resp = self.request("POST", path, body=_wire.dumps(body), content_type=_JSON, accept=_JSON)
        answer = resp.json()
        if not isinstance(answer, dict):
            raise ValueError(f"{path}: the answer is not a JSON object")
        return answer

    def post_npy(self, path: str, body: Mapping[str, Any]) -> Tuple[npt.NDArray[Any], str]:
        """``POST path`` asking for ``Accept: application/x-npy``.

        Returns the route's main array and its name (the ``X-Posenc-Array`` header, e.g.
        ``"q_rotated"``); which array a route sends is listed in openapi.yaml and the README.
        """
        resp = self.request("POST", path, body=_wire.dumps(body), content_type=_JSON, accept=_NPY)
        ctype = resp.headers.get("Content-Type", "")
        if not ctype.startswith(_NPY):
            raise ValueError(f"{path}: expected {_NPY}, the daemon answered {ctype or 'no type'}")
        return _wire.read_npy(resp.content), resp.headers.get("X-Posenc-Array", "")

    def post_multipart(
        self, path: str, body: Any, accept: str, params: Optional[Mapping[str, str]] = None
    ) -> Tuple[Any, Mapping[str, str]]:
        """``POST path`` with a multipart body (:class:`posenc._binary.MultipartBody`), asking for
        ``accept``; returns the answer's bytes (:func:`read_body`: one buffer of its
        Content-Length) and its headers."""
        resp = self.request("POST", path, body=body, content_type=body.content_type, accept=accept,
                            params=params, stream=True)
        try:
            return read_body(resp, path), resp.headers
        finally:
            resp.close()

    def limits(self) -> Dict[str, Any]:
        """``GET /limits``: the daemon's limits in force (``max_body_bytes``, ``max_positions``, …)."""
        answer = self.get_json("/limits")
        self._limits = dict(answer)
        return self._limits

    def _cached_limits(self) -> Dict[str, Any]:
        """The limits, asked once per client; the documented defaults when /limits is not served."""
        if self._limits is None:
            try:
                self.limits()
            except (PosencError, ValueError):
                self._limits = dict(_DEFAULT_LIMITS)
        assert self._limits is not None
        return self._limits


#: openapi.yaml's defaults, used when a server (or a proxy in front of it) does not answer /limits.
_DEFAULT_LIMITS: Dict[str, int] = {
    "max_body_bytes": 16 * 1024 * 1024,
    "max_table_bytes": 256 * 1024 * 1024,
    "max_output_elements": 4_194_304,
    "max_positions": 1_000_000,
}


def read_body(resp: requests.Response, what: str = "the answer") -> Any:
    """The body of a streamed response (``stream=True``) as one writable buffer of its bytes.

    With a Content-Length and no Content-Encoding, the body is read straight into a numpy uint8
    array of that length (http.client's ``readinto``: urllib3's would read a bytes object first
    and copy it). ``numpy.empty``, not ``bytearray(n)``: a bytearray is zero-filled first, so
    every page of it is faulted in and written twice, where numpy's large allocations are left
    untouched and, where the kernel offers transparent huge pages (``madvise`` or ``always``),
    backed by them (a 128 MiB buffer: 64 page faults instead of 32,768; filled from /dev/zero in
    0.02 s of CPU instead of 0.08 s, docs/performance.md). Else ``resp.content``.
    """
    n = int(resp.headers.get("Content-Length", "-1"))
    raw = getattr(resp.raw, "_fp", None)
    if n < 0 or resp.headers.get("Content-Encoding") or raw is None or not hasattr(raw, "readinto"):
        return bytearray(resp.content)
    buf = np.empty(n, dtype=np.uint8)
    view, got = memoryview(buf), 0
    while got < n:
        k = raw.readinto(view[got:])
        if not k:
            raise requests.ConnectionError(f"{what}: the answer ended after {got} of {n} bytes")
        got += k
    return buf
