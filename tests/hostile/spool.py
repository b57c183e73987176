"""tests/hostile/spool.py -- binary /rope answers over reused spool files (issue 16), run by hostile.py.

spool_reuse: a finished binary request's spool file is kept for the next one (server/spool.c), so
every answer must hold only what its own request wrote. Twelve small requests (float32, float64,
float16; [T, H, D], [B, H, T, D] and [T, D]; q and k, k alone with include cos_sin, ?array= as
.npy) are answered once each after a large request of zeros (the reference: a range left unwritten
reads zeros there), then three times more after a large request of other values that was answered,
aborted mid-upload, cut off mid-answer, or refused with 422 after q was spooled, with another
large request running at the same time. Every answer must equal its reference byte for byte and
every .npz member pass its CRC-32 (zipfile.testzip).
"""
import io
import random
import socket
import struct
import threading
import zipfile

from common import HOST, connect, request

BOUNDARY = "posencspoolreuse"


def npy(fmt, shape, values):
    """The .npy bytes of values (a flat list) as '<f4', '<f8' or '<f2' (fmt 'f', 'd', 'e')."""
    descr = {"f": "<f4", "d": "<f8", "e": "<f2"}[fmt]
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % n for n in shape))
    pad = 64 - (10 + len(head) + 1) % 64
    head = head + " " * pad + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() +
            struct.pack("<%d%s" % (len(values), fmt), *values))


def body(params, parts):
    out = [b"--%s\r\nContent-Disposition: form-data; name=\"params\"\r\n\r\n%s\r\n" %
           (BOUNDARY.encode(), params.encode())]
    for name, data in parts:
        out.append(b"--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n"
                   b"Content-Type: application/octet-stream\r\n\r\n" % (BOUNDARY.encode(),
                                                                       name.encode()))
        out.append(data + b"\r\n")
    out.append(b"--%s--\r\n" % BOUNDARY.encode())
    return b"".join(out)


def post(port, data, query="", accept="application/x-npz", timeout=30):
    return request(port, "POST", "/rope" + query, data,
                   {"Content-Type": "multipart/form-data; boundary=" + BOUNDARY,
                    "Accept": accept}, timeout)


def cases():
    rnd = random.Random(16)
    out = []
    for fmt in ("f", "d", "e"):
        for shape, layout in (((3, 2, 8), None), ((1, 2, 5, 6), "bhtd"), ((7, 4), None),
                              ((2, 3, 2, 4), "bthd")):
            n = 1
            for s in shape:
                n *= s
            q = [round(rnd.uniform(-4, 4), 3) for _ in range(n)]
            T = shape[2] if layout == "bhtd" else shape[1] if len(shape) == 4 else shape[0]
            p = '"positions": [%s]' % ", ".join(str(5 + t) for t in range(T))
            if layout:
                p += ', "tensor_layout": "%s"' % layout
            if len(shape) == 2:
                p += ', "head_dim": 4'
            qb, kb = npy(fmt, shape, q), npy(fmt, shape, q[::-1])
            out.append((body("{%s}" % p, [("q", qb), ("k", kb)]), "", "application/x-npz"))
            out.append((body('{%s, "include": ["cos_sin"]}' % p, [("k", qb)]), "",
                        "application/x-npz"))
            out.append((body("{%s}" % p, [("q", qb), ("k", kb)]), "?array=k_rotated",
                          "application/x-npy"))
    return out


def large(value, d=128):
    """A 1 MiB request: q and k [64, 8, 128] float64 of value (k's head_dim d: 422 when not 128)."""
    n = 64 * 8 * 128
    return body('{"positions": [%s]}' % ", ".join(str(t) for t in range(64)),
                [("q", npy("d", (64, 8, 128), [value] * n)),
                 ("k", npy("d", (64, 8, d), [-value] * (64 * 8 * d)))])


def head(port, data):
    return ("POST /rope HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; "
            "boundary=%s\r\nContent-Length: %d\r\n\r\n" % (BOUNDARY, len(data))).encode()


def abort_upload(port, data, frac):
    s = connect(port)
    s.sendall(head(port, data) + data[:int(len(data) * frac)])
    s.close()


def cut_answer(port, data):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((HOST, port))
    s.sendall(head(port, data) + data)
    s.recv(100)
    s.close()


def t_spool_reuse(binary):
    from hostile import Daemon, check
    d = Daemon(binary, ["--threads", "3", "--compute-threads", "2"])
    try:
        cs = cases()
        zeros = large(0.0)
        ref = []
        for data, query, accept in cs:
            check(post(d.port, zeros)[0] == 200, "the large request of zeros")
            st, _, b, _ = post(d.port, data, query, accept)
            check(st == 200, "reference: status %d: %r" % (st, b[:200]))
            ref.append(b)
        checked = 0
        for rnd in range(3):
            for i, (data, query, accept) in enumerate(cs):
                other = large(1000.0 + i + rnd)
                how = (i + rnd) % 4
                if how == 0:
                    post(d.port, other)
                elif how == 1:
                    abort_upload(d.port, other, 0.3 + 0.2 * rnd)
                elif how == 2:
                    cut_answer(d.port, other)
                else:
                    st = post(d.port, large(7.0, 64))[0]
                    check(st == 422, "q [64, 8, 128] with k [64, 8, 64]: %d" % st)
                side = threading.Thread(target=post, args=(d.port, other))
                side.start()
                st, _, b, _ = post(d.port, data, query, accept)
                side.join()
                check(st == 200 and b == ref[i],
                      "case %d after %s: %d, %d bytes, not the reference's %d" %
                      (i, ("answered", "aborted", "cut", "422")[how], st, len(b), len(ref[i])))
                if accept == "application/x-npz":
                    with zipfile.ZipFile(io.BytesIO(b)) as z:
                        bad = z.testzip()
                        check(bad is None, "case %d: member %s fails its CRC-32" % (i, bad))
                checked += 1
        check(d.alive(), "daemon died")
        return "%d answers over reused spool files equal their references, CRCs checked" % checked
    finally:
        d.cleanup()


TESTS = {"spool_reuse": t_spool_reuse}
DEADLINE = {"spool_reuse": 120}
