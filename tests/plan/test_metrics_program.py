"""The packaged stack program's GPU metrics, planned offline: the device plugin path installs the pinned
dcgm-exporter chart beside the device plugin only when ``gpuSoftware.metrics.dcgmExporter`` is true.

It runs the program under Pulumi's mocks, so it lives here rather than in ``tests/charts/test_metrics.py``.
"""

from __future__ import annotations

import pytest

from support.base_configs import AZURE, config


@pytest.mark.parametrize(("metrics", "expected"), [({"dcgmExporter": True}, 1), (None, 0)])
def test_the_stack_program_installs_the_exporter_only_when_asked(tmp_path, metrics, expected):
    """The packaged program, planned offline: the device plugin path gets dcgm-exporter only with dcgmExporter true."""
    import yaml

    from gpupools.config.loading import read_stack_file
    from gpupools.plan.offline import plan_stack

    raw = config(AZURE, gpuSoftware={"metrics": metrics} if metrics else {})
    path = tmp_path / "Pulumi.metrics.yaml"
    path.write_text(yaml.safe_dump({"config": raw}))
    releases = [
        r
        for r in plan_stack(read_stack_file(path)).resources
        if r["type"] == "kubernetes:helm.sh/v3:Release" and r["inputs"]["chart"] == "dcgm-exporter"
    ]
    assert len(releases) == expected
    for release in releases:
        assert release["inputs"]["version"] == "4.8.2"
        assert release["inputs"]["namespace"] == "nvidia-device-plugin"  # beside the device plugin
