"""bench/check_answer.py POSENC.json PEER.json NAME -- is a peer's answer posenc's answer?

`make bench` (bench/run.sh) runs it on each peer's answer to the small /rope before the peer is
timed: a peer that answers something else is not compared. Equal means the same members, in any
order, with equal strings, booleans and integers, arrays of the same lengths, and every number
within the tolerance docs/conventions.md gives for comparing posenc with a reference that computes
the same formulas another way (numpy, Go's math, V8's Math): at most 4 ulp apart
(np.testing.assert_array_max_ulp(a, b, maxulp=4)) or at most 1e-15 apart (np.allclose(a, b, rtol=0,
atol=1e-15)). Prints one line (how many numbers, how many bit-identical, the largest difference,
the largest in ulp among those more than 1e-15 apart) and exits 1 on the first difference beyond
that, naming its JSON pointer.
"""
import json
import math
import sys

MAX_ULP = 4
ATOL = 1e-15


def ulps(a, b):
    """Distance between two finite doubles in units in the last place of the larger one."""
    if a == b:
        return 0.0
    return abs(a - b) / math.ulp(max(abs(a), abs(b)))


def walk(a, b, ptr, stats):
    if isinstance(a, dict):
        if not isinstance(b, dict) or set(a) != set(b):
            got = sorted(b) if isinstance(b, dict) else type(b).__name__
            return f"{ptr or '/'}: members {sorted(a)} vs {got}"
        for key in a:
            err = walk(a[key], b[key], f"{ptr}/{key}", stats)
            if err:
                return err
        return None
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return f"{ptr}: an array of {len(a)} vs {len(b) if isinstance(b, list) else type(b).__name__}"
        for i, (x, y) in enumerate(zip(a, b)):
            err = walk(x, y, f"{ptr}/{i}", stats)
            if err:
                return err
        return None
    num = (int, float)
    if isinstance(a, num) and not isinstance(a, bool) and isinstance(b, num) and not isinstance(b, bool):
        if isinstance(a, int) and isinstance(b, int):
            return None if a == b else f"{ptr}: {a} vs {b}"
        x, y = float(a), float(b)
        u = ulps(x, y)
        stats["numbers"] += 1
        stats["identical"] += x == y
        if abs(x - y) > ATOL:
            stats["max_ulp"] = max(stats["max_ulp"], u)
        if abs(x - y) > stats["max_abs"]:
            stats["max_abs"], stats["at"] = abs(x - y), x
        if u > MAX_ULP and abs(x - y) > ATOL:
            return f"{ptr}: {a!r} vs {b!r} ({u:.1f} ulp, {abs(x - y):.3g} apart)"
        return None
    return None if a == b else f"{ptr}: {a!r} vs {b!r}"


def main():
    ref = json.load(open(sys.argv[1]))
    name = sys.argv[3] if len(sys.argv) > 3 else sys.argv[2]
    try:
        peer = json.load(open(sys.argv[2]))
    except ValueError as e:
        print(f"{name}: not JSON ({e})")
        return 1
    stats = {"numbers": 0, "identical": 0, "max_ulp": 0.0, "max_abs": 0.0, "at": 0.0}
    err = walk(ref, peer, "", stats)
    if err:
        print(f"{name}: NOT posenc's answer: {err}")
        return 1
    print(f"{name}: posenc's answer: {stats['numbers']} numbers, {stats['identical']} bit-identical; "
          f"largest difference {stats['max_abs']:.2g} (at {stats['at']:.3g}); "
          f"at most {stats['max_ulp']:.0f} ulp where more than {ATOL:g} apart")
    return 0


if __name__ == "__main__":
    sys.exit(main())
