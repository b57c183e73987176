"""The documented installation: a venv with Debian's packages, pip without build isolation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1]


def test_pip_install_into_a_system_site_packages_venv(tmp_path: Path) -> None:
    # Installed from a copy, so that setuptools' build/ and egg-info stay out of the source tree.
    src = tmp_path / "src"
    shutil.copytree(PKG, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__", ".venv"))
    venv = tmp_path / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip("python3 -m venv is not available (Debian: python3-venv): " + made.stderr[-300:])
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-input",
                          "--disable-pip-version-check", str(src)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # the installed copy, not the tree
    probe = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import pathlib, posenc; p = pathlib.Path(posenc.__file__).parent;"
                            "print(p); print((p / 'py.typed').exists()); print(posenc.__version__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env)
    where, typed, version = probe.stdout.split()
    assert str(venv) in where and typed == "True" and version == "0.1.0"
