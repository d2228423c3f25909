"""``gpupools check`` run in-process: exit codes, the capacity table, JSON output and error reporting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpupools._version import __version__
from gpupools.cli import main
from support.base_configs import VALID_AWS

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def at_repo_root(monkeypatch):
    if not (REPO_ROOT / "Pulumi.yaml").is_file():
        pytest.skip("not run from the gpupools repository")
    monkeypatch.chdir(REPO_ROOT)
    return REPO_ROOT


def write_stack(tmp_path: Path, config: dict, name: str = "Pulumi.bad.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=False), encoding="utf-8")
    return path


def test_check_dev_stack_prints_56(at_repo_root, capsys):
    assert main(["check", "--stack", "dev"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "config valid" in out
    row = next(line for line in out.splitlines() if line.startswith("mig1g"))
    assert "Standard_ND96asr_v4" in row and "A100-40GB" in row
    assert "56x nvidia.com/gpu" in row
    header = out.splitlines()[1]
    assert header.split()[:3] == ["POOL", "SIZE", "GPU"]


def test_check_stack_from_a_subfolder(at_repo_root, monkeypatch, capsys):
    # The project root is found by walking up to Pulumi.yaml.
    monkeypatch.chdir(at_repo_root / "components")
    assert main(["check", "--stack", "dev"]) == 0
    assert "56x nvidia.com/gpu" in capsys.readouterr().out


def test_check_eks_json(at_repo_root, capsys):
    assert main(["check", "--config", "Pulumi.eks.yaml", "--json"]) == 0
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert set(data) >= {"stack", "cloud", "capacity", "warnings"}
    assert data["stack"] == "eks"
    assert data["cloud"] == "aws"
    assert isinstance(data["warnings"], list)
    (pool,) = data["capacity"]
    assert set(pool) >= {"pool", "size", "gpu", "nodes", "gpusPerNode", "perNode", "total"}
    assert (pool["size"], pool["gpu"], pool["nodes"], pool["gpusPerNode"]) == ("p4d.24xlarge", "A100-40GB", 1, 8)
    expected = {"nvidia.com/mig-1g.5gb": 16, "nvidia.com/mig-2g.10gb": 8, "nvidia.com/mig-3g.20gb": 8}
    assert pool["perNode"] == expected
    assert pool["total"] == expected


def test_check_format_json_equals_json_flag(at_repo_root, capsys):
    assert main(["check", "--config", "Pulumi.eks.yaml", "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["check", "--config", "Pulumi.eks.yaml", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first


def test_check_markdown(at_repo_root, capsys):
    assert main(["check", "--stack", "existing", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| mig1g |" in out and "56× mig-1g.5gb" in out
    assert "| mig3g |" in out and "16× mig-3g.20gb" in out


def test_check_config_path_outside_project(tmp_path, capsys):
    path = write_stack(tmp_path, VALID_AWS, "Pulumi.prod.yaml")
    assert main(["check", "--config", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["stack"] == "prod"
    assert data["capacity"][0]["total"] == {"nvidia.com/mig-2g.10gb": 48}


def test_check_bad_config_exits_2_with_one_error_line_per_problem(tmp_path, capsys):
    config = {
        **VALID_AWS,
        "gpupools:cluster": {"name": "gpu-eks", "systemPool": {"size": "m6i.large"}},  # no region
        "gpupools:gpuPools": [{"name": "g5", "size": "g5.xlarge", "mig": {"profile": "1g.5gb"}}],  # no MIG on A10G
        "gpupools:gpuSoftware": {"installer": "gpu-operator", "version": "latest", "migStrategy": "mixed"},  # unpinned
    }
    path = write_stack(tmp_path, config)
    assert main(["check", "--config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 3, err
    assert all(line.startswith("error: gpupools:") for line in lines), err
    fields = {line.removeprefix("error: ").split(": ", 1)[0] for line in lines}
    assert fields == {"gpupools:cluster.region", "gpupools:gpuPools[0].mig.profile", "gpupools:gpuSoftware.version"}
    assert "Traceback" not in err


def test_check_unknown_key_exits_2(tmp_path, capsys):
    config = {**VALID_AWS, "gpupools:gpuSoftware": {**VALID_AWS["gpupools:gpuSoftware"], "mixedStrategy": True}}
    assert main(["check", "--config", str(write_stack(tmp_path, config))]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [line for line in err.splitlines() if line.startswith("error: ")]
    assert "gpupools:gpuSoftware.mixedStrategy" in err


@pytest.mark.parametrize("key", ["gpupools:gpuPools[0]", "gpupools:str"])
def test_check_odd_unknown_key_is_an_error_not_a_traceback(tmp_path, capsys, key):
    config = {**VALID_AWS, key: {"name": "x"}}
    assert main(["check", "--config", str(write_stack(tmp_path, config))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and key in err


@pytest.mark.parametrize(
    "text, needle",
    [("config: [unclosed", "not valid YAML"), ("just: text\n", "config"), ("", "config")],
    ids=["bad-yaml", "no-config", "empty"],
)
def test_check_unreadable_stack_file(tmp_path, capsys, text, needle):
    path = tmp_path / "Pulumi.broken.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["check", "--config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and needle in err


def test_check_missing_stack_exits_2(at_repo_root, capsys):
    assert main(["check", "--stack", "no-such-stack"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: ") and "Pulumi.no-such-stack.yaml" in err
    assert "Traceback" not in err


def test_check_missing_config_file_exits_2(tmp_path, capsys):
    assert main(["check", "--config", str(tmp_path / "Pulumi.nope.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Pulumi.nope.yaml" in err


def test_secure_values_are_not_printed(tmp_path, capsys):
    config = {**VALID_AWS, "gpupools:cluster": {"secure": "AAABADQXFeyF0mC4Lmx/ciphertext"}}
    assert main(["check", "--config", str(write_stack(tmp_path, config))]) == 2
    captured = capsys.readouterr()
    assert "ciphertext" not in captured.out + captured.err


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.strip() == f"gpupools {__version__}"
    assert __version__ and __version__[0].isdigit()


def test_check_needs_a_source(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["check"])
    assert exited.value.code == 2
