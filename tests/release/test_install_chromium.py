""".ci/install-chromium never fails the run: against stub ``apt-get``/``apt-cache`` commands it asks ``apt-cache
policy chromium`` first, reads the package lists (``apt-get update``) once only when there is no candidate, installs
``chromium`` from apt, and exits 0, saying why, wherever it installs nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "install-chromium"
BASH = shutil.which("bash")

pytestmark = pytest.mark.skipif(BASH is None or shutil.which("awk") is None, reason="needs bash and awk")


def _stubs(tmp_path: Path, *, apt: bool = True, uid: int = 0, candidates=("(none)", "150.0-1"), install_ok=True):
    """A PATH of stubs that log each call to ``calls``; ``apt-cache`` answers ``candidates`` in turn."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls"
    for tool in ("awk", "cat", "chmod"):  # what the script and the stubs run besides the stubs
        os.symlink(shutil.which(tool) or tool, bin_dir / tool)
    counter = tmp_path / "asked"
    scripts = {"id": f"echo {uid}\n"}
    if apt:
        answers = " ".join(f"'{candidate}'" for candidate in candidates)
        scripts["apt-cache"] = (
            f'echo "apt-cache $*" >> {log}\nn=$(cat {counter} 2>/dev/null || echo 0); echo $((n+1)) > {counter}\n'
            f'set -- {answers}; shift "$n" 2>/dev/null || true\n'
            'printf "chromium:\\n  Installed: (none)\\n  Candidate: %s\\n" "${1:-(none)}"\n'
        )
        install = (
            f'printf "#!/bin/sh\\necho Chromium 150\\n" > {bin_dir}/chromium; chmod +x {bin_dir}/chromium'
            if install_ok
            else "exit 100"
        )
        scripts["apt-get"] = f'echo "apt-get $*" >> {log}\ncase "$*" in *install*) {install} ;; esac\n'
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text(f"#!{BASH}\n{body}")
        path.chmod(0o755)
    return bin_dir, log


def _run(bin_dir: Path) -> subprocess.CompletedProcess[str]:
    assert BASH is not None
    return subprocess.run([BASH, str(SCRIPT)], env={"PATH": str(bin_dir)}, capture_output=True, text=True, timeout=60)


def _calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_asks_first_updates_once_then_installs_chromium(tmp_path):
    bin_dir, log = _stubs(tmp_path)
    run = _run(bin_dir)
    assert run.returncode == 0, run.stderr
    calls = _calls(log)
    assert calls[0] == "apt-cache policy chromium"
    assert [c for c in calls if c.startswith("apt-get update")] == ["apt-get update -qq"]
    assert calls.index("apt-get update -qq") < len(calls) - 1
    assert calls[-1] == "apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core"
    assert "Chromium 150" in run.stdout


def test_with_a_candidate_at_once_there_is_no_update(tmp_path):
    bin_dir, log = _stubs(tmp_path, candidates=("150.0-1",))
    assert _run(bin_dir).returncode == 0
    assert not [c for c in _calls(log) if c.startswith("apt-get update")]


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ({"apt": False}, "no apt-get here"),
        ({"uid": 1000}, "not root and no password-less sudo"),
        ({"candidates": ("(none)", "(none)")}, "apt has no chromium package"),
        ({"install_ok": False}, "could not install chromium"),
    ],
)
def test_never_fails_and_says_why_it_installs_nothing(tmp_path, options, why):
    bin_dir, log = _stubs(tmp_path, **options)
    run = _run(bin_dir)
    assert run.returncode == 0
    assert why in run.stderr and "the browser test will skip" in run.stderr
    assert len([c for c in _calls(log) if c.startswith("apt-get update")]) <= 1
