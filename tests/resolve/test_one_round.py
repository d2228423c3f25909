"""Every problem of a stack file in one run: shape errors (types, bounds, unknown keys) and the rules' problems
together, wherever the rules can still run, and unknown keys named with the key they were probably meant to be.

The file is what a user writes on a first try: a typo in a key, a negative count, a MIG profile AKS does not
offer, a pool name with capitals and an underscore, a size of the other cloud, an empty tag key. Before, the first
run showed some of these and the rest came only after the first ones were fixed.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from gpupools.config import read_stack_file
from gpupools.config.errors import ConfigError
from gpupools.resolve.stack_loader import load_stack

ROOT = Path(__file__).resolve().parents[2]
FIRST_TRY = """\
config:
  azure-native:location: southcentralus
  gpupools:cloud: azure
  gpupools:cluster:
    name: gpu-team
    create: true
    resourceGroup: gpu-team-rg
    location: southcentralus
    kubernetesVerison: "1.35"
    systemPool:
      size: m6i.large
      count: 2
  gpupools:gpuPools:
    - name: mig1g
      size: Standard_ND96asr_v4
      count: -1
      mig:
        profile: MIG5g
    - name: Train_Pool
      size: Standard_ND96asr_v4
      count: 1
      lables:
        team: ml
  gpupools:gpuSoftware:
    installer: device-plugin
    version: "0.20.0"
    migStrategy: single
  gpupools:tags:
    "": platform
"""


def problems(config: dict) -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        load_stack(config)
    return {problem.field: problem.message for problem in caught.value.problems}


def test_shape_and_rule_problems_come_in_one_run(tmp_path) -> None:
    path = tmp_path / "Pulumi.team.yaml"
    path.write_text(FIRST_TRY)
    found = problems(read_stack_file(path).config)
    assert set(found) == {
        # shape
        "gpupools:cluster.kubernetesVerison",
        "gpupools:gpuPools[0].count",
        "gpupools:gpuPools[1].lables",
        # rules, on the parts that are well formed
        "gpupools:cluster.systemPool.size",
        "gpupools:gpuPools[0].mig.profile",
        "gpupools:gpuPools[1].name",
        "gpupools:tags.",
    }
    assert "'MIG5g'" in found["gpupools:gpuPools[0].mig.profile"]
    assert "'m6i.large'" in found["gpupools:cluster.systemPool.size"]


def test_fixing_the_reported_problems_reveals_nothing_new(tmp_path) -> None:
    # The second round is empty: fixing exactly what the first run named gives a valid stack.
    fixed = (
        FIRST_TRY.replace("kubernetesVerison", "kubernetesVersion")
        .replace("count: -1", "count: 1")
        .replace("MIG5g", "MIG1g")
        .replace("Train_Pool", "train")
        .replace("lables", "labels")
        .replace("size: m6i.large", "size: Standard_D4s_v5")
        .replace('"": platform', "team: platform")
    )
    path = tmp_path / "Pulumi.team.yaml"
    path.write_text(fixed)
    stack = load_stack(read_stack_file(path).config)
    assert [pool.name for pool in stack.pools] == ["mig1g", "train"]


@pytest.mark.parametrize(
    "key, meant, where",
    [
        ("lables", "labels", ("gpupools:gpuPools", 0)),
        ("os_sku", "osSku", ("gpupools:gpuPools", 0)),
        ("Count", "count", ("gpupools:gpuPools", 0)),
        ("kubernetesVerison", "kubernetesVersion", ("gpupools:cluster",)),
        ("migStratgy", "migStrategy", ("gpupools:gpuSoftware",)),
    ],
)
def test_an_unknown_key_says_which_key_was_meant(key, meant, where) -> None:
    config = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
    section = config[where[0]] if len(where) == 1 else config[where[0]][where[1]]
    section[key] = section.pop(meant) if meant in section else {}
    found = problems(config)
    path = where[0] + (f"[{where[1]}]" if len(where) > 1 else "") + f".{key}"
    assert found[path] == f"unknown key {key!r}; did you mean {meant!r}?"


def test_an_unknown_top_level_key_says_which_key_was_meant() -> None:
    config = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
    config["gpupools:gpuPool"] = config.pop("gpupools:gpuPools")
    assert problems(config)["gpupools:gpuPool"] == "unknown key 'gpuPool'; did you mean 'gpuPools'?"


def test_a_key_like_no_other_lists_the_allowed_keys() -> None:
    config = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
    config["gpupools:gpuPools"][0]["zzz"] = 1
    assert problems(config)["gpupools:gpuPools[0].zzz"].startswith("unknown key 'zzz'; allowed keys: amiType, ")


def test_a_default_standing_in_for_a_malformed_value_is_not_blamed() -> None:
    # priority 'spot' is malformed (the values are 'Regular' and 'Spot'); the rules see the default, Regular, and
    # would say evictionPolicy needs Spot: that is about the stand-in, not what the user wrote.
    config = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
    pool = config["gpupools:gpuPools"][0]
    pool.update(priority="spot", evictionPolicy="Deallocate", mig={"profile": "MIG5g"})
    found = problems(copy.deepcopy(config))
    assert set(found) == {"gpupools:gpuPools[0].priority", "gpupools:gpuPools[0].mig.profile"}
