"""The MPS opt-in says what the rendered MPS control daemon really gets: privileged, the host's PID namespace.

The device plugin chart 0.20.0 is rendered with the exact values the plan passes for each MPS variant; the
GPU Operator creates its MPS daemonset itself (``assets/state-mps-control-daemon/0400_daemonset.yaml``, cited
in docs/sources.md), and its ClusterPolicy CRD offers no hostIPC setting that the plan could turn on.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.helm_render import CHARTS, HelmRenderer, Object, of_kind, renderer

if not CHARTS.is_dir():
    pytest.skip(f"reference charts not found at {CHARTS}", allow_module_level=True)

from support.chart_variants import MODE_VARIANTS, Rendered, rendered_once, variant_stack_file  # noqa: E402
from gpupools.config.models import Mps  # noqa: E402
from gpupools.resolve.stack_loader import load_stack  # noqa: E402

__all__ = ["renderer"]

MPS_VARIANTS = [v for v in MODE_VARIANTS if v.mode == "mps"]
HOST_NAMESPACES = ("hostPID", "hostIPC", "hostNetwork")  # PodSpec fields that share a host namespace


def _mps_daemon(objects: list[Object]) -> Object:
    (daemon,) = [ds for ds in of_kind(objects, "DaemonSet") if ds["metadata"]["name"].endswith("mps-control-daemon")]
    return daemon


def _opt_in_key() -> str:
    (key,) = [info.alias for name, info in Mps.model_fields.items() if name.startswith("allow_privileged")]
    return key


@pytest.mark.parametrize("variant", [v for v in MPS_VARIANTS if v.installer == "device-plugin"], ids=lambda v: v.id)
def test_mps_key_names_the_host_namespace_the_rendered_daemon_gets(variant: Any, renderer: HelmRenderer) -> None:
    rendered: Rendered = rendered_once(variant, renderer)
    spec = _mps_daemon(rendered.objects)["spec"]["template"]["spec"]
    shared = {field for field in HOST_NAMESPACES if spec.get(field)}
    assert shared == {"hostPID"}  # the chart's mps.enableHostPID default; no hostIPC, no hostNetwork
    containers = [*spec.get("initContainers", []), *spec["containers"]]
    assert any((c.get("securityContext") or {}).get("privileged") for c in containers)
    key = _opt_in_key()
    assert key == "allowPrivilegedHostPID" and "HostIPC" not in key
    (message,) = [w for w in load_stack(variant_stack_file(variant).config).warnings if "MPS" in w]
    assert "hostPID" in message and "no hostIPC" in message  # what the plan prints


@pytest.mark.parametrize("variant", [v for v in MPS_VARIANTS if v.installer != "device-plugin"], ids=lambda v: v.id)
def test_operator_cluster_policy_offers_no_host_ipc(variant: Any, renderer: HelmRenderer) -> None:
    rendered: Rendered = rendered_once(variant, renderer)
    crd = (rendered.chart / "crds" / "nvidia.com_clusterpolicies.yaml").read_text()
    assert "hostIPC" not in crd and "hostipc" not in crd.lower()
    assert "hostIPC" not in str(rendered.cluster_policy)
