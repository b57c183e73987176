"""examples/llama31_walkthrough.py runs against the test daemon and its numbers hold."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "llama31_walkthrough.py"


def test_walkthrough(daemon_url: str, tmp_path: Path) -> None:
    png = tmp_path / "freqs.png"
    run = subprocess.run([sys.executable, str(EXAMPLE), "--url", daemon_url, "--out", str(png)],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "MPLBACKEND": "Agg"})
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    # 29 pairs kept (λ < 2048), 6 blended, 29 divided by 8 (λ > 8192): see tests/test_rope.py.
    assert "kept (high) 29, blended (medium) 6, divided by 8 (low) 29" in out
    assert "q [1, 32, 64, 128] and k [1, 8, 64, 128]" in out
    # With posenc's own inv_freq, the user's float64 rotate_half agrees to a few ulp.
    m = re.search(r"with posenc's inv_freq:\s+max \|Δq\| (\S+), max \|Δk\| (\S+)", out)
    assert m and float(m.group(1)) < 1e-13 and float(m.group(2).rstrip()) < 1e-13, out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000
