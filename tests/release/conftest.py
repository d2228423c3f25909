"""The distributions, built once per session: test_packaging reads them, test_wheel and test_types install the wheel.

Built offline from this checkout (``python -m build --no-isolation``: the sdist first and the wheel from the
unpacked sdist, as the release workflow does, so nothing of the checkout but what the sdist ships reaches the
wheel), with this venv's setuptools. They skip when ``build`` or setuptools>=77 is missing (requirements-dev.txt
pins both). One build instead of three: it was the largest single cost of ``pytest -m release``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.packaging import building_from_the_checkout, shared_temp

ROOT = Path(__file__).resolve().parents[2]
OFFLINE_ENV = {
    **os.environ,
    "PIP_NO_INDEX": "1",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
}


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``{"sdist": path, "wheel": path}`` of this checkout, built once per run (the first xdist worker to need it
    builds it; the others wait on the lock and read it)."""
    if importlib.util.find_spec("build") is None:
        pytest.skip("`build` is not installed (requirements-dev.txt pins it)")
    import setuptools

    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} cannot build PEP 639 metadata (needs >=77)")
    out = shared_temp(tmp_path_factory) / "dist"
    with building_from_the_checkout(tmp_path_factory):
        if not (out / "built").exists():
            result = subprocess.run(
                [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                capture_output=True,
                text=True,
                env=OFFLINE_ENV,
                timeout=300,
            )
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
            (out / "built").touch()
    [sdist] = out.glob("gpupools-*.tar.gz")
    [wheel] = out.glob("gpupools-*.whl")
    return {"sdist": sdist, "wheel": wheel}
