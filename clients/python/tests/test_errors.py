"""problem+json as PosencError, retries on 503 with Retry-After, the write key, POSENC_URL."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import List

import numpy as np
import pytest
import requests

import posenc
from conftest import problem

OK_JSON = (200, {"Content-Type": "application/json"}, b'{"status":"ok"}')
BUSY = (503, {"Content-Type": "application/problem+json", "Retry-After": "1"},
        problem(503, "overloaded", "Server busy", "request bodies held in memory would pass max_inflight_bytes"))


def test_unknown_field_names_its_pointer(client: posenc.Client) -> None:
    with pytest.raises(posenc.PosencError) as e:
        client.inv_freq(head_dim=8, scaling={"type": "linear", "factr": 2})
    err = e.value
    assert err.status == 422
    assert err.type == "urn:posenc:problem:unknown-field" and err.code == "unknown-field"
    assert err.title == "Unknown field"
    assert err.pointer == "/scaling/factr" and err.pointers == ["/scaling/factr"]
    assert err.detail is not None and "factr" in err.detail
    assert err.request_id and err.instance == "urn:posenc:request:" + err.request_id
    assert str(err).startswith("HTTP 422 unknown-field: /scaling/factr")


def test_invalid_field_in_a_tensor_request(client: posenc.Client) -> None:
    with pytest.raises(posenc.PosencError) as e:
        client.sinusoidal(0, [1])
    assert e.value.status == 422 and e.value.code == "invalid-field" and e.value.pointer == "/d_model"
    # An odd head_dim given with q rows of that width: the daemon names head_dim.
    with pytest.raises(posenc.PosencError) as e:
        client.rope(np.ones((2, 3)))
    assert e.value.status == 422 and e.value.pointer == "/head_dim"


def test_nan_is_refused_before_sending(client: posenc.Client) -> None:
    with pytest.raises(ValueError):
        client.rope(np.array([[np.nan, 1.0]]))


def test_retry_after_is_honoured(fake_server) -> None:
    srv = fake_server([BUSY, OK_JSON])
    c = posenc.Client(srv.url, retries=2)
    t0 = time.monotonic()
    assert c.health() == {"status": "ok"}
    assert time.monotonic() - t0 >= 0.95          # waited the 1 s of Retry-After
    assert len(srv.requests) == 2


def test_retries_are_bounded(fake_server) -> None:
    srv = fake_server([BUSY])
    c = posenc.Client(srv.url, retries=3)
    waits: List[float] = []
    c._sleep = waits.append
    with pytest.raises(posenc.PosencError) as e:
        c.sinusoidal(4, [1])
    assert len(srv.requests) == 4 and waits == [1.0, 1.0, 1.0]
    assert e.value.status == 503 and e.value.code == "overloaded" and e.value.retry_after == 1.0
    # The body was sent whole on every attempt.
    assert all(json.loads(r["body"]) == {"d_model": 4, "positions": [1]} for r in srv.requests)


def test_waits_without_retry_after_double_and_are_capped(fake_server) -> None:
    srv = fake_server([(503, {"Content-Type": "application/problem+json", "Retry-After": "3600"},
                        problem(503, "unavailable", "Service unavailable", "out of memory")),
                       (503, {"Content-Type": "application/problem+json"},
                        problem(503, "unavailable", "Service unavailable", "out of memory"))])
    c = posenc.Client(srv.url, retries=3, max_retry_wait=5)
    waits: List[float] = []
    c._sleep = waits.append
    with pytest.raises(posenc.PosencError):
        c.health()
    assert waits == [5.0, 1.0, 2.0]               # 3600 capped; then 0.5·2^n for n = 1, 2


def test_no_retry_on_4xx(fake_server) -> None:
    srv = fake_server([(422, {"Content-Type": "application/problem+json"},
                        problem(422, "invalid-field", "Invalid field", "/x: bad",
                                errors=[{"pointer": "/x", "message": "bad"}, {"pointer": "/y", "message": "bad"}]))])
    c = posenc.Client(srv.url, retries=3)
    with pytest.raises(posenc.PosencError) as e:
        c.post_json("/anything", {"x": 1})
    assert len(srv.requests) == 1 and e.value.pointers == ["/x", "/y"]


def test_a_dropped_connection_is_retried_then_raised() -> None:
    with socket.socket() as s:                    # a port that nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = posenc.Client(f"http://127.0.0.1:{port}", retries=2)
    waits: List[float] = []
    c._sleep = waits.append
    with pytest.raises(requests.ConnectionError):
        c.health()
    assert waits == [0.5, 1.0]


def test_binary_answer_cut_short_is_an_error(fake_server) -> None:
    # A binary answer is read into numpy.empty (no zero fill) of its Content-Length: one that ends
    # before it must raise, never hand back the buffer with a tail nothing was written to.
    from posenc._binary import MultipartBody

    payload = b"PK\x03\x04" + bytes(range(96))
    body = MultipartBody({}, {"q": np.zeros((2, 4))})
    srv = fake_server([(200, {"Content-Type": "application/x-npz"}, payload),
                       (200, {"Content-Type": "application/x-npz", "Content-Length": "4096"}, payload)])
    c = posenc.Client(srv.url, retries=0)
    content, _ = c.post_multipart("/rope", body, "application/x-npz")  # whole: its bytes exactly
    assert bytes(content) == payload
    with pytest.raises(requests.ConnectionError, match="ended after 100 of 4096 bytes"):
        c.post_multipart("/rope", body, "application/x-npz")
    assert len(srv.requests) == 2  # answered, so not retried


def test_an_error_that_is_not_a_problem(fake_server) -> None:
    srv = fake_server([(431, {"Content-Type": "text/html"}, b"<html><body>Request Header Fields Too Large</body></html>")])
    with pytest.raises(posenc.PosencError) as e:
        posenc.Client(srv.url).health()
    assert e.value.status == 431 and e.value.code is None and e.value.pointer is None
    assert "Too Large" in e.value.body


def test_write_key_and_url_from_the_environment(fake_server, monkeypatch: pytest.MonkeyPatch) -> None:
    srv = fake_server([(201, {"Content-Type": "application/json"}, b'{"name":"t","shape":[1,1]}')])
    monkeypatch.setenv("POSENC_URL", srv.url)
    monkeypatch.setenv("POSENC_TOKEN", "s3cret")
    c = posenc.Client()
    assert c.base_url == srv.url
    c._limits = {"max_body_bytes": 1 << 20}
    c.upload_table("t", [[1.0]])
    req = srv.requests[-1]
    assert req["method"] == "PUT" and req["path"] == "/tables/t"
    assert req["headers"]["Authorization"] == "Bearer s3cret"
    assert req["headers"]["Content-Type"] == "application/x-npy"
    assert np.load(__import__("io").BytesIO(req["body"])).tolist() == [[1.0]]
    monkeypatch.delenv("POSENC_TOKEN")
    c2 = posenc.Client(srv.url)
    c2.health()
    assert "Authorization" not in srv.requests[-1]["headers"]


def test_model_method(client: posenc.Client) -> None:
    cfg = Path(__file__).resolve().parents[3] / "examples" / "llama31_8b_config.json"
    try:
        answer = client.model_method(cfg)
    except posenc.PosencError as e:
        if e.status == 404:
            pytest.skip("this daemon has no POST /model/method yet (issue 15)")
        raise
    text = json.dumps(answer)
    assert "rope" in text and "llama3" in text
