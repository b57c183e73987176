"""The client's transport (posenc/_http.py, session_for): on loopback its connections use Reno
congestion control where the system lets it choose (docs/performance.md, issue 16: with a system
default of BBR the daemon's reads sent the client's segments, a fifth of its CPU on a 256 MiB
upload); elsewhere, and with a session of the caller's, nothing is set."""

from __future__ import annotations

import socket

import pytest
import requests

import posenc
from posenc._http import session_for

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", None)


def _congestion_of_pooled_connection(client: posenc.Client) -> bytes:
    """The congestion control of the connection the client's last request left in its pool."""
    url = client.base_url + "/"
    pool = client.session.get_adapter(url).poolmanager.connection_from_url(url)
    conn = pool.pool.queue[-1]  # urllib3 keeps idle connections in a LIFO queue
    assert conn is not None and conn.sock is not None
    return conn.sock.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0")


@pytest.mark.skipif(TCP_CONGESTION is None, reason="no TCP_CONGESTION on this system")
def test_loopback_connection_uses_reno(daemon_url: str) -> None:
    client = posenc.Client(daemon_url)
    assert client.health()["status"] == "ok"
    assert _congestion_of_pooled_connection(client) == b"reno"
    client.close()


@pytest.mark.skipif(TCP_CONGESTION is None, reason="no TCP_CONGESTION on this system")
def test_callers_session_is_left_alone(daemon_url: str) -> None:
    with open("/proc/sys/net/ipv4/tcp_congestion_control", "rb") as f:
        default = f.read().strip()
    client = posenc.Client(daemon_url, session=requests.Session())
    client.health()
    assert _congestion_of_pooled_connection(client) == default
    client.close()


def test_remote_session_is_plain() -> None:
    for url in ("http://example.com:8080", "http://10.1.2.3", "http://[2001:db8::1]:80"):
        s = session_for(url)
        assert type(s.get_adapter(url + "/path")) is requests.adapters.HTTPAdapter, url
    for url in ("http://localhost:8080", "http://127.0.0.2:1", "http://[::1]:8080"):
        s = session_for(url)
        assert (type(s.get_adapter(url + "/path")) is not requests.adapters.HTTPAdapter) == (
            TCP_CONGESTION is not None), url
