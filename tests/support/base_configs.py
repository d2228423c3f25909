"""The smallest valid stack configs per cloud (as ``load_stack`` takes them), for tests that change one field."""

from __future__ import annotations

import copy

import pytest

from gpupools.config import ConfigError
from gpupools.resolve import load_stack

AZURE = {
    "gpupools:cloud": "azure",
    "gpupools:cluster": {
        "name": "gpu-dev",
        "resourceGroup": "gpu-dev-rg",
        "location": "southcentralus",
        "systemPool": {"size": "Standard_D4s_v5"},
    },
    "gpupools:gpuPools": [{"name": "mig1g", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}}],
    "gpupools:gpuSoftware": {"installer": "device-plugin"},
}
AWS = {
    "gpupools:cloud": "aws",
    "gpupools:cluster": {"name": "gpu-eks", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
    "gpupools:gpuPools": [{"name": "p4d", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}}],
    "gpupools:gpuSoftware": {"installer": "gpu-operator", "migStrategy": "mixed"},
}
# The same with the chart versions and MIG strategy written out, for tests whose figures depend on them.
PINNED_AZURE = {
    "gpupools:cloud": "azure",
    "gpupools:cluster": {
        "name": "gpu-dev",
        "resourceGroup": "gpu-dev-rg",
        "location": "southcentralus",
        "systemPool": {"size": "Standard_D4s_v5"},
    },
    "gpupools:gpuPools": [{"name": "mig1g", "size": "Standard_ND96asr_v4", "count": 1, "mig": {"profile": "MIG1g"}}],
    "gpupools:gpuSoftware": {"installer": "device-plugin", "version": "0.20.0", "migStrategy": "single"},
}
PINNED_AWS = {
    "gpupools:cloud": "aws",
    "gpupools:cluster": {"name": "gpu-eks", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
    "gpupools:gpuPools": [{"name": "p4d", "size": "p4d.24xlarge", "count": 1, "mig": {"layout": "all-balanced"}}],
    "gpupools:gpuSoftware": {"installer": "gpu-operator", "version": "v26.7.0", "migStrategy": "mixed"},
}
# A whole stack file's config block for the CLI tests: a provider key beside the gpupools ones, pinned versions.
VALID_AWS = {
    "aws:region": "us-east-1",
    "gpupools:cloud": "aws",
    "gpupools:cluster": {"name": "gpu-eks", "region": "us-east-1", "systemPool": {"size": "m6i.large"}},
    "gpupools:gpuPools": [{"name": "p4d", "size": "p4d.24xlarge", "count": 2, "mig": {"layout": "all-2g.10gb"}}],
    "gpupools:gpuSoftware": {"installer": "gpu-operator", "version": "v26.7.0", "migStrategy": "mixed"},
}


def config(base: dict, pool: dict | None = None, **sections: dict) -> dict:
    """A copy of ``base`` with the first pool updated by ``pool`` and each named section by its values."""
    raw = copy.deepcopy(base)
    raw["gpupools:gpuPools"][0].update(pool or {})
    for key, value in sections.items():
        raw[f"gpupools:{key}"].update(value)
    return raw


def messages_at(raw: dict, field: str) -> list[str]:
    """The messages ``load_stack`` refuses ``raw`` with at ``field`` (at least one, or the test fails)."""
    with pytest.raises(ConfigError) as caught:
        load_stack(raw)
    found = [p.message for p in caught.value.problems if p.field == field]
    assert found, f"no problem at {field}: {caught.value}"
    return found
