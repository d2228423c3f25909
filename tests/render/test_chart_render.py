"""The real NVIDIA charts rendered with the exact Helm values the offline plan passes.

For every stack file of the repository and every sharing/MIG mode (each installer where config allows
it), the plan's ``kubernetes:helm.sh/v3:Release`` values go through ``helm template`` on the reference
chart. The rendered objects must be valid Kubernetes 1.33 (strict schemas), the ``ClusterPolicy`` must
match its CRD, the rendered daemonsets must reach every GPU pool while a pod without tolerations reaches
none, and the device plugin config files must say what the stack asked for. Needs ``helm`` and the
charts in ``../shared/reference/charts``; without either the module skips.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pytest
import yaml

from support.helm_render import (
    CHARTS,
    HelmRenderer,
    Object,
    builtin_problems,
    container_env,
    crd_problems,
    named,
    of_kind,
    pod_placement,
    renderer,
)

if not CHARTS.is_dir():
    pytest.skip(f"reference charts not found at {CHARTS}", allow_module_level=True)

from support.chart_variants import (  # noqa: E402
    MODE_VARIANTS,
    MODES,
    OPERATOR_VARIANTS,
    VARIANTS,
    Rendered,
    Variant,
    rendered_once,
)
from gpupools.catalog.chart_defaults import GPU_OPERATOR_DEFAULTS  # noqa: E402
from gpupools.domain.pools import ResolvedPool  # noqa: E402
from gpupools.catalog.cloud_registry import cloud  # noqa: E402
from gpupools.resolve.scheduling import matches_affinity, tolerates  # noqa: E402

__all__ = ["renderer"]  # the session fixture, shared with test_chart_defaults_render.py

# --- Labels and names, as NVIDIA documents them --------------------------------------------------------------
CONFIG_LABEL = "nvidia.com/device-plugin.config"  # device plugin README v0.20.0, per-node config
GPU_PRESENT = "nvidia.com/gpu.present"
NFD_PCI_NVIDIA = "feature.node.kubernetes.io/pci-10de.present"  # NFD, vendor 10de
MPS_CAPABLE = "nvidia.com/mps.capable"
DEVICE_PLUGIN_OPERAND = "nvidia.com/gpu.deploy.device-plugin"  # gpu-operator assets/state-device-plugin
CLUSTER_POLICY_CRD = "crds/nvidia.com_clusterpolicies.yaml"


@pytest.fixture
def rendered(request: pytest.FixtureRequest, renderer: HelmRenderer) -> Rendered:
    """The variant planned offline and its chart rendered with the Release's values (each once per session)."""
    variant: Variant = request.param
    return rendered_once(variant, renderer)


def _variants(variants: list[Variant]) -> Any:
    return pytest.mark.parametrize("rendered", variants, ids=[v.id for v in variants], indirect=True)


# --- 1. Built-in objects are valid Kubernetes 1.33 ------------------------------------------------------------


@_variants(VARIANTS)
def test_rendered_builtin_objects_are_valid_kubernetes_1_33(rendered: Rendered) -> None:
    pytest.importorskip("kubernetes_validate")
    assert of_kind(rendered.objects, "DaemonSet"), "the chart rendered no DaemonSet"
    assert builtin_problems(rendered.objects) == []


# --- 2. The ClusterPolicy matches its CRD --------------------------------------------------------------------


@_variants(OPERATOR_VARIANTS)
def test_cluster_policy_matches_its_crd_schema(rendered: Rendered) -> None:
    pytest.importorskip("jsonschema")
    assert crd_problems(rendered.cluster_policy, rendered.chart / CLUSTER_POLICY_CRD) == []


# --- 3. Rendered daemonsets: every GPU pool served, reserved for GPU pods --------------------------------------


def _fits(
    placement: tuple[list[Object], dict[str, str], Object | None], labels: dict[str, str], pool: ResolvedPool
) -> bool:
    tolerations, node_selector, affinity = placement
    return (
        tolerates(tolerations, pool.taints)
        and all(labels.get(key) == value for key, value in node_selector.items())
        and matches_affinity(affinity, labels)
    )


def _nfd_workers(objects: list[Object]) -> list[Object]:
    return [
        ds for ds in of_kind(objects, "DaemonSet") if ds["metadata"]["name"].endswith("node-feature-discovery-worker")
    ]


def _node_labels(rendered: Rendered, pool: ResolvedPool) -> dict[str, str]:
    """The pool's node labels: the cloud's and ours, NFD's NVIDIA PCI label where a rendered NFD worker runs,
    and under the operator its deploy labels on nodes with ``nvidia.com/gpu.present`` or that NFD label."""
    labels = {**cloud(rendered.stack.cloud).gpu_labels, **pool.labels}
    if any(_fits(pod_placement(worker), labels, pool) for worker in _nfd_workers(rendered.objects)):
        labels[NFD_PCI_NVIDIA] = "true"
    if rendered.stack.config.gpu_software.installer == "gpu-operator" and "true" in (
        labels.get(GPU_PRESENT),
        labels.get(NFD_PCI_NVIDIA),
    ):
        labels[GPU_PRESENT] = "true"
        for key in GPU_OPERATOR_DEFAULTS.deploy_labels:  # the operator keeps a value already on the node
            labels.setdefault(key, "true")
    return labels


def _device_plugin_placement(rendered: Rendered) -> tuple[list[Object], dict[str, str], Object | None]:
    """Where the device plugin's pods go: its rendered DaemonSet, or the operator's operand from the ClusterPolicy."""
    if rendered.stack.config.gpu_software.installer == "device-plugin":
        return pod_placement(named(rendered.objects, "DaemonSet", rendered.release["name"]))
    spec = rendered.cluster_policy["spec"]
    assert spec["devicePlugin"].get("enabled", True) is True
    return list(spec["daemonsets"].get("tolerations") or []), {DEVICE_PLUGIN_OPERAND: "true"}, None


@_variants(VARIANTS)
def test_device_plugin_reaches_every_gpu_pool_and_a_plain_pod_none(rendered: Rendered) -> None:
    plugin = _device_plugin_placement(rendered)
    for pool in rendered.stack.pools:
        labels = _node_labels(rendered, pool)
        assert _fits(plugin, labels, pool), f"pool {pool.name}: the device plugin does not schedule (labels {labels})"
        assert not tolerates([], pool.taints), f"pool {pool.name}: a pod without tolerations schedules there"


@_variants(VARIANTS)
def test_every_rendered_daemonset_lands_where_it_belongs(rendered: Rendered) -> None:
    """Helm-rendered daemonsets (device plugin, GFD, NFD worker; MPS daemon only on MPS pools)."""
    daemonsets = of_kind(rendered.objects, "DaemonSet")
    for pool in rendered.stack.pools:
        labels = _node_labels(rendered, pool)
        mps_pool = pool.sharing is not None and pool.sharing.mps is not None
        for ds in daemonsets:
            name = ds["metadata"]["name"]
            expected = mps_pool if name.endswith("mps-control-daemon") else True
            assert _fits(pod_placement(ds), labels, pool) is expected, f"pool {pool.name}: {name} (labels {labels})"


@_variants(OPERATOR_VARIANTS)
def test_operator_operands_tolerate_the_gpu_taint(rendered: Rendered) -> None:
    """The operand daemonsets (created by the operator, not by helm) take ``daemonsets.tolerations``."""
    tolerations = rendered.cluster_policy["spec"]["daemonsets"]["tolerations"]
    for pool in rendered.stack.pools:
        assert tolerates(tolerations, pool.taints), pool.name
        if pool.sharing is not None and pool.sharing.mps is not None:  # MPS daemon: deploy label and mps.capable
            assert _fits(
                (tolerations, {DEVICE_PLUGIN_OPERAND: "true", MPS_CAPABLE: "true"}, None),
                _node_labels(rendered, pool),
                pool,
            ), pool.name


# --- 4. Device plugin config files -----------------------------------------------------------------------------


def _device_plugin_configs(rendered: Rendered) -> tuple[dict[str, Any], str | None]:
    """The rendered config files (name -> parsed YAML) and the default config name the plugin gets."""
    if rendered.stack.config.gpu_software.installer == "device-plugin":
        release = rendered.release["name"]
        maps = [cm for cm in of_kind(rendered.objects, "ConfigMap") if cm["metadata"]["name"] == f"{release}-configs"]
        plugin_env = container_env(named(rendered.objects, "DaemonSet", release))
        defaults = {env.get("DEFAULT_CONFIG") for env in plugin_env.values() if "DEFAULT_CONFIG" in env}
        default = defaults.pop() if defaults else None
    else:
        config = rendered.cluster_policy["spec"]["devicePlugin"].get("config") or {}
        maps = [cm for cm in of_kind(rendered.objects, "ConfigMap") if cm["metadata"]["name"] == config.get("name")]
        default = config.get("default")
    assert len(maps) <= 1
    files = {name: yaml.safe_load(text) for name, text in (maps[0]["data"] if maps else {}).items()}
    return files, default


def _mig_strategy(rendered: Rendered) -> str:
    if rendered.stack.config.gpu_software.installer == "device-plugin":
        env = container_env(named(rendered.objects, "DaemonSet", rendered.release["name"]))
        return env["nvidia-device-plugin-ctr"]["MIG_STRATEGY"]
    return rendered.cluster_policy["spec"]["mig"]["strategy"]


@_variants(MODE_VARIANTS)
def test_device_plugin_config_files_match_the_sharing_mode(rendered: Rendered, request: pytest.FixtureRequest) -> None:
    variant: Variant = request.node.callspec.params["rendered"]
    mode = MODES[variant.mode]
    assert _mig_strategy(rendered) == mode.strategy
    files, default = _device_plugin_configs(rendered)
    (pool,) = rendered.stack.pools
    if mode.sharing is None:
        assert files == {} and CONFIG_LABEL not in pool.labels
        return
    for name, config in files.items():
        assert config["version"] == "v1" and config["flags"]["migStrategy"] == mode.strategy, name
    assert default in files and "sharing" not in files[default]
    sharing = files[pool.labels[CONFIG_LABEL]]["sharing"]
    assert list(sharing) == [mode.sharing]
    assert sharing[mode.sharing]["resources"] == [{"name": name, "replicas": mode.replicas} for name in mode.resources]
    assert sharing[mode.sharing].get("renameByDefault", False) is mode.rename


@_variants([v for v in MODE_VARIANTS if v.mode == "mps"])
def test_mps_pool_carries_the_mps_daemon_selector(rendered: Rendered) -> None:
    (pool,) = rendered.stack.pools
    assert pool.labels.get(MPS_CAPABLE) == "true"


MIG_CONFIG_LABEL = "nvidia.com/mig.config"  # the layout the MIG manager applies (gpu-operator-mig.rst)
NVIDIA_MIG_LAYOUTS = CHARTS.parent / "gpu-operator" / "default-mig-parted-config.yaml"


def _mig_layouts(rendered: Rendered) -> dict[str, Any]:
    """The layouts the MIG manager can apply: the rendered custom ConfigMap, else NVIDIA's default config."""
    config = rendered.cluster_policy["spec"]["migManager"].get("config") or {}
    custom = [cm for cm in of_kind(rendered.objects, "ConfigMap") if cm["metadata"]["name"] == config.get("name")]
    if custom:
        return yaml.safe_load(custom[0]["data"]["config.yaml"])["mig-configs"]
    if not NVIDIA_MIG_LAYOUTS.is_file():
        pytest.skip(f"{NVIDIA_MIG_LAYOUTS} not found")
    return _nvidia_mig_layouts()


@lru_cache(maxsize=1)
def _nvidia_mig_layouts() -> dict[str, Any]:
    """NVIDIA's default layouts, read once per session (the tests only look them up)."""
    return yaml.safe_load(yaml.safe_load(NVIDIA_MIG_LAYOUTS.read_text())["data"]["config.yaml"])["mig-configs"]


@_variants(OPERATOR_VARIANTS)
def test_mig_config_labels_name_layouts_the_mig_manager_has(rendered: Rendered) -> None:
    """A pool labelled ``nvidia.com/mig.config=<layout>`` needs the MIG manager on and that layout in its config;
    without such pools the MIG manager stays off (AKS-applied profiles must not be reset to all-disabled)."""
    spec = rendered.cluster_policy["spec"]["migManager"]
    labelled = [pool for pool in rendered.stack.pools if MIG_CONFIG_LABEL in pool.labels]
    assert spec["enabled"] is bool(labelled)
    if not labelled:
        return
    layouts = _mig_layouts(rendered)
    assert (spec.get("config") or {}).get("default", "all-disabled") in layouts
    for pool in labelled:
        assert pool.labels[MIG_CONFIG_LABEL] in layouts, pool.name
        if pool.config.mig is not None and isinstance(pool.config.mig.layout, dict):  # a custom mix, as written
            (entry,) = layouts[pool.labels[MIG_CONFIG_LABEL]]
            assert entry["mig-enabled"] is True and entry["mig-devices"] == pool.config.mig.layout


# --- 5. CDI on the preinstalled-driver path ----------------------------------------------------------------------

PREINSTALLED = [v for v in OPERATOR_VARIANTS if v.driver == "preinstalled" and v.mode in (None, "whole-gpus")]


@_variants(PREINSTALLED)
def test_preinstalled_driver_stacks_turn_cdi_off(rendered: Rendered) -> None:
    """GPU Operator v26.x defaults CDI on and then switches the device plugin to cdi-annotations,cdi-cri, with no
    toolkit of its own to enable CDI in containerd (NVIDIA/gpu-operator#1900): the preinstalled path turns it off."""
    spec = rendered.cluster_policy["spec"]
    assert spec["toolkit"]["enabled"] is False
    assert spec["cdi"]["enabled"] is False


@_variants([v for v in OPERATOR_VARIANTS if v.driver == "operator"])
def test_operator_managed_toolkit_keeps_cdi_on(rendered: Rendered) -> None:
    """With its own toolkit the operator configures containerd for CDI, so the v26 default stays."""
    spec = rendered.cluster_policy["spec"]
    assert spec["toolkit"]["enabled"] is True and spec["cdi"]["enabled"] is True
