"""The one exception the client raises for an answer that is not a success."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

__all__ = ["PosencError", "PosencWarning", "PROBLEM_PREFIX"]

#: Every posenc problem type is this prefix followed by its code (openapi.yaml, schema Problem).
PROBLEM_PREFIX = "urn:posenc:problem:"


class PosencWarning(UserWarning):
    """A warning of the daemon about an answer it gave (``warnings`` of a JSON answer; the
    ``X-Posenc-Warnings`` header of a binary one): a key it read differently from some Hugging Face
    release, a value it dropped as Hugging Face does, … The numbers are still the answer's."""


class PosencError(Exception):
    """An HTTP error answer of posencd (4xx or 5xx), usually an RFC 9457 problem+json.

    Attributes (every one present; ``None`` or empty when the answer did not carry it):

    - ``status``: the HTTP status (int), e.g. 422.
    - ``type``: the problem's ``type`` URI, e.g. ``"urn:posenc:problem:unknown-field"``.
    - ``code``: ``type`` without the ``urn:posenc:problem:`` prefix, e.g. ``"unknown-field"``.
    - ``title``: the code's fixed title, e.g. ``"Unknown field"``.
    - ``detail``: one sentence for humans (for a 422, the first field error with its pointer).
    - ``instance``: ``urn:posenc:request:<X-Request-Id>``.
    - ``errors``: the field errors, a list of ``{"pointer": ..., "message": ...}`` dicts (at most 8).
    - ``pointers``: the RFC 6901 JSON pointers of ``errors`` into the request body, in order,
      e.g. ``["/scaling/factr"]`` (``""`` is the whole body).
    - ``pointer``: the first of ``pointers``, or ``None``.
    - ``request_id``: the response's ``X-Request-Id`` header.
    - ``retry_after``: the ``Retry-After`` header in seconds (503 ``overloaded``), else ``None``.
    - ``problem``: the whole decoded problem object (``{}`` when the body was not JSON).
    - ``body``: the first 2,000 characters of a body that was not a JSON object (e.g. the HTML
      page of a 431 or of a proxy), else ``""``.
    """

    status: int
    type: Optional[str]
    code: Optional[str]
    title: Optional[str]
    detail: Optional[str]
    instance: Optional[str]
    errors: List[Dict[str, Any]]
    pointers: List[str]
    pointer: Optional[str]
    request_id: Optional[str]
    retry_after: Optional[float]
    problem: Dict[str, Any]
    body: str

    def __init__(
        self,
        status: int,
        problem: Optional[Dict[str, Any]] = None,
        *,
        body: str = "",
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        self.status = int(status)
        self.problem = dict(problem or {})
        p = self.problem
        self.type = p.get("type") if isinstance(p.get("type"), str) else None
        self.code = (
            self.type[len(PROBLEM_PREFIX):]
            if self.type is not None and self.type.startswith(PROBLEM_PREFIX)
            else None
        )
        self.title = p.get("title") if isinstance(p.get("title"), str) else None
        self.detail = p.get("detail") if isinstance(p.get("detail"), str) else None
        self.instance = p.get("instance") if isinstance(p.get("instance"), str) else None
        raw_errors = p.get("errors")
        self.errors = [e for e in raw_errors if isinstance(e, dict)] if isinstance(raw_errors, list) else []
        self.pointers = [e["pointer"] for e in self.errors if isinstance(e.get("pointer"), str)]
        self.pointer = self.pointers[0] if self.pointers else None
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body[:2000] if not self.problem else ""
        super().__init__(self._message())

    def _message(self) -> str:
        head = f"HTTP {self.status}" + (f" {self.code}" if self.code else "")
        text = self.detail or self.title
        if text is None and self.body.strip():
            text = self.body.strip().splitlines()[0][:200]
        return f"{head}: {text}" if text else head

    @classmethod
    def from_response(cls, status: int, headers: Any, content: bytes) -> "PosencError":
        """Builds the error from a response's status, headers (a mapping) and raw body bytes.

        A body that is a JSON object is taken as the problem (posencd always sends
        ``application/problem+json``); anything else is kept, cut to 2,000 characters, in ``body``.
        """
        text = content.decode("utf-8", errors="replace")
        problem: Dict[str, Any] = {}
        try:
            decoded = json.loads(text) if text.strip() else None
            if isinstance(decoded, dict):
                problem = decoded
        except ValueError:
            pass
        return cls(
            status,
            problem,
            body=text,
            request_id=headers.get("X-Request-Id"),
            retry_after=parse_retry_after(headers.get("Retry-After")),
        )


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds from a ``Retry-After`` header: delta-seconds or an HTTP date; ``None`` if absent or bad."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(int(value))
    try:
        from email.utils import parsedate_to_datetime
        from datetime import datetime, timezone

        when = parsedate_to_datetime(value)
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
    except (TypeError, ValueError, IndexError):
        return None
