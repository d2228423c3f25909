"""The real NVIDIA charts rendered with the exact Helm values the offline plan passes.

For every stack file of the repository and every sharing/MIG mode (each installer where config allows
it), the plan's ``kubernetes:helm.sh/v3:Release`` values go through ``helm template`` on the reference
chart. The rendered objects must be valid Kubernetes 1.33 (strict schemas), the ``ClusterPolicy`` must
match its CRD, the rendered daemonsets must reach every GPU pool while a pod without tolerations reaches
none, and the device plugin config files must say what the stack asked for. Needs ``helm`` and the
charts in ``../shared/reference/charts``; without either the module skips.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from helm_render import (
    CHARTS, REPO, HelmRenderer, Object, builtin_problems, chart_folder, container_env, crd_problems, find_helm,
    named, of_kind, pod_placement,
)

if not CHARTS.is_dir():
    pytest.skip(f"reference charts not found at {CHARTS}", allow_module_level=True)

from gpupools.charts.defaults import GPU_OPERATOR_DEFAULTS, defaults_for  # noqa: E402
from gpupools.config import Stack, load_stack, read_stack_file  # noqa: E402
from gpupools.config.loading import StackFile  # noqa: E402
from gpupools.offline_plan import Plan, plan_stack  # noqa: E402
from gpupools.pools import ResolvedPool  # noqa: E402
from gpupools.scheduling import CLOUD_GPU_LABELS, matches_affinity, tolerates  # noqa: E402

# --- Labels and names, as NVIDIA documents them --------------------------------------------------------------
CONFIG_LABEL = "nvidia.com/device-plugin.config"  # device plugin README v0.20.0, per-node config
GPU_PRESENT = "nvidia.com/gpu.present"
NFD_PCI_NVIDIA = "feature.node.kubernetes.io/pci-10de.present"  # NFD, vendor 10de
MPS_CAPABLE = "nvidia.com/mps.capable"
DEVICE_PLUGIN_OPERAND = "nvidia.com/gpu.deploy.device-plugin"  # gpu-operator assets/state-device-plugin
CLUSTER_POLICY_CRD = "crds/nvidia.com_clusterpolicies.yaml"
WHOLE_GPU = ["nvidia.com/gpu"]


@dataclass(frozen=True)
class Mode:
    """One way of cutting GPUs: the stack's MIG strategy, a pool per cloud, and what NVIDIA says it advertises."""

    strategy: str
    pools: dict[str, dict[str, Any]]
    sharing: str | None = None  # "timeSlicing" / "mps"
    rename: bool = False
    replicas: int = 1
    resources: list[str] = field(default_factory=lambda: list(WHOLE_GPU))  # names the shared config lists


A100_MIXED = ["nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb", "nvidia.com/mig-3g.20gb"]  # all-balanced, A100 40GB
MODES: dict[str, Mode] = {
    "whole-gpus": Mode("none", {"azure": {"name": "whole", "size": "Standard_NC24ads_A100_v4"},
                                "aws": {"name": "whole", "size": "g6.12xlarge"}}),
    "mig-single": Mode("single", {"azure": {"name": "migone", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}},
                                  "aws": {"name": "migone", "size": "p4d.24xlarge", "mig": {"layout": "all-1g.5gb"}}}),
    # AKS sets one profile per pool; mixed then advertises nvidia.com/mig-<profile>.
    "mig-mixed-aks-profile": Mode("mixed", {"azure": {"name": "migthree", "size": "Standard_ND96asr_v4",
                                                      "mig": {"profile": "3g.20gb"}}}),
    "mig-mixed-layout": Mode("mixed", {"azure": {"name": "balanced", "size": "Standard_ND96asr_v4",
                                                 "mig": {"layout": "all-balanced"}},
                                       "aws": {"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}}}),
    "mig-custom-mix": Mode("mixed", {"azure": {"name": "custom", "size": "Standard_ND96asr_v4",
                                               "mig": {"layout": {"1g.5gb": 3, "2g.10gb": 2}}},
                                     "aws": {"name": "custom", "size": "p4d.24xlarge",
                                             "mig": {"layout": {"1g.5gb": 3, "2g.10gb": 2}}}}),
    "time-slicing": Mode("none", {"azure": {"name": "tfour", "size": "Standard_NC64as_T4_v3",
                                            "sharing": {"timeSlicing": {"replicas": 4}}},
                                  "aws": {"name": "lfour", "size": "g6.12xlarge", "sharing": {"timeSlicing": {"replicas": 4}}}},
                         sharing="timeSlicing", replicas=4),
    "time-slicing-renamed": Mode("none", {
        "azure": {"name": "tfour", "size": "Standard_NC64as_T4_v3",
                  "sharing": {"timeSlicing": {"replicas": 4, "renameByDefault": True}}},
        "aws": {"name": "lfour", "size": "g6.12xlarge", "sharing": {"timeSlicing": {"replicas": 4, "renameByDefault": True}}},
    }, sharing="timeSlicing", rename=True, replicas=4),
    "time-slicing-mig": Mode("mixed", {"aws": {"name": "sliced", "size": "p4d.24xlarge", "mig": {"layout": "all-3g.20gb"},
                                               "sharing": {"timeSlicing": {"replicas": 3}}}},
                             sharing="timeSlicing", replicas=3, resources=["nvidia.com/mig-3g.20gb"]),
    "mps": Mode("none", {"azure": {"name": "mps", "size": "Standard_NC24ads_A100_v4",
                                   "sharing": {"mps": {"replicas": 8, "allowPrivilegedHostIPC": True}}},
                         "aws": {"name": "mps", "size": "g5.xlarge",
                                 "sharing": {"mps": {"replicas": 2, "allowPrivilegedHostIPC": True}}}},
                sharing="mps", replicas=8),
}
MPS_REPLICAS = {"azure": 8, "aws": 2}

DP, OP_PREINSTALLED, OP_DRIVER = ("device-plugin", "preinstalled"), ("gpu-operator", "preinstalled"), ("gpu-operator", "operator")
# Which installer/driver pairs config allows per cloud and mode: AKS applies single profiles itself (any
# installer); layouts need the operator's MIG manager, on AKS with its own driver; EKS has no operator driver.
ALLOWED: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {
    "azure": {
        "whole-gpus": (DP, OP_PREINSTALLED, OP_DRIVER), "mig-single": (DP, OP_PREINSTALLED, OP_DRIVER),
        "mig-mixed-aks-profile": (DP, OP_PREINSTALLED), "mig-mixed-layout": (OP_DRIVER,), "mig-custom-mix": (OP_DRIVER,),
        "time-slicing": (DP, OP_PREINSTALLED, OP_DRIVER), "time-slicing-renamed": (DP, OP_PREINSTALLED, OP_DRIVER),
        "mps": (DP, OP_PREINSTALLED, OP_DRIVER),
    },
    "aws": {
        "whole-gpus": (DP, OP_PREINSTALLED), "mig-single": (OP_PREINSTALLED,), "mig-mixed-layout": (OP_PREINSTALLED,),
        "mig-custom-mix": (OP_PREINSTALLED,), "time-slicing": (DP, OP_PREINSTALLED),
        "time-slicing-renamed": (DP, OP_PREINSTALLED), "time-slicing-mig": (OP_PREINSTALLED,), "mps": (DP, OP_PREINSTALLED),
    },
}
STACK_FILES = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in REPO.glob("Pulumi.*.yaml"))


@dataclass(frozen=True)
class Variant:
    """A repository stack file, as it is (``mode`` None) or with its pools and GPU software replaced."""

    stack: str
    mode: str | None = None
    installer: str = ""
    driver: str = ""

    @property
    def id(self) -> str:
        return self.stack if self.mode is None else f"{self.stack}-{self.mode}-{self.installer}-{self.driver}"


def _cloud(stack: str) -> str:
    return read_stack_file(REPO / f"Pulumi.{stack}.yaml").config["gpupools:cloud"]


VARIANTS = [Variant(stack) for stack in STACK_FILES] + [
    Variant(stack, mode, installer, driver)
    for stack in STACK_FILES
    for mode, pairs in ALLOWED[_cloud(stack)].items()
    for installer, driver in pairs
]
OPERATOR_VARIANTS = [v for v in VARIANTS if v.installer == "gpu-operator" or (v.mode is None and v.stack == "eks")]
MODE_VARIANTS = [v for v in VARIANTS if v.mode is not None]


@dataclass
class Rendered:
    """One planned variant: its validated stack, the Release inputs the plan recorded and the rendered chart."""

    stack: Stack
    plan: Plan
    release: dict[str, Any]
    objects: list[Object]
    chart: Path

    @property
    def cluster_policy(self) -> Object:
        policies = of_kind(self.objects, "ClusterPolicy")
        assert len(policies) == 1, f"expected one ClusterPolicy, rendered {len(policies)}"
        return policies[0]


@pytest.fixture(scope="session")
def renderer() -> HelmRenderer:
    helm = find_helm()
    if helm is None:
        pytest.skip("helm not found on PATH or in .ci/node/bin (run .ci/install-helm)")
    return HelmRenderer(helm)


@pytest.fixture(scope="session")
def rendered_variants(renderer: HelmRenderer) -> dict[str, Rendered]:
    return {}


@pytest.fixture
def rendered(request: pytest.FixtureRequest, renderer: HelmRenderer, rendered_variants: dict[str, Rendered]) -> Rendered:
    """The variant planned offline and its chart rendered with the Release's values (each once per session)."""
    variant: Variant = request.param
    if variant.id not in rendered_variants:
        rendered_variants[variant.id] = _plan_and_render(variant, renderer)
    return rendered_variants[variant.id]


def _stack_file(variant: Variant) -> StackFile:
    base = read_stack_file(REPO / f"Pulumi.{variant.stack}.yaml")
    if variant.mode is None:
        return base
    cloud = base.config["gpupools:cloud"]
    mode = MODES[variant.mode]
    software = {"installer": variant.installer, "driver": variant.driver, "migStrategy": mode.strategy, "gfd": True}
    config = {**base.config, "gpupools:gpuPools": [dict(mode.pools[cloud])], "gpupools:gpuSoftware": software}
    return StackFile(base.path, variant.id, config)


def _plan_and_render(variant: Variant, renderer: HelmRenderer) -> Rendered:
    stack_file = _stack_file(variant)
    plan = plan_stack(stack_file)
    releases = [r for r in plan.resources if r["type"] == "kubernetes:helm.sh/v3:Release"]
    assert len(releases) == 1, f"{variant.id}: expected one Helm release, planned {len(releases)}"
    release = releases[0]["inputs"]
    chart = chart_folder(release["chart"], release["version"])
    if not chart.is_dir():
        pytest.skip(f"no reference copy of {release['chart']} {release['version']} in {CHARTS}")
    objects = renderer.render(chart, release.get("name") or releases[0]["name"], release["namespace"], release["values"])
    return Rendered(load_stack(stack_file.config), plan, release, objects, chart)


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


def test_the_crd_check_refuses_unknown_and_mistyped_fields(renderer: HelmRenderer) -> None:
    """The schema check is not vacuous: a misspelt key and a wrong type in a real ClusterPolicy are reported."""
    pytest.importorskip("jsonschema")
    chart = chart_folder("gpu-operator", GPU_OPERATOR_DEFAULTS.chart.default_version)
    policy = of_kind(renderer.render(chart, "gpu-operator", "gpu-operator", {}), "ClusterPolicy")[0]
    policy["spec"]["devicePlugin"]["confg"] = {"name": "typo"}
    policy["spec"]["mig"]["strategy"] = "both"
    problems = crd_problems(policy, chart / CLUSTER_POLICY_CRD)
    assert any("spec.devicePlugin" in p and "confg" in p for p in problems), problems
    assert any("spec.mig.strategy" in p for p in problems), problems


# --- 3. Rendered daemonsets: every GPU pool served, reserved for GPU pods --------------------------------------

def _fits(placement: tuple[list[Object], dict[str, str], Object | None], labels: dict[str, str], pool: ResolvedPool) -> bool:
    tolerations, node_selector, affinity = placement
    return (tolerates(tolerations, pool.taints)
            and all(labels.get(key) == value for key, value in node_selector.items())
            and matches_affinity(affinity, labels))


def _nfd_workers(objects: list[Object]) -> list[Object]:
    return [ds for ds in of_kind(objects, "DaemonSet") if ds["metadata"]["name"].endswith("node-feature-discovery-worker")]


def _node_labels(rendered: Rendered, pool: ResolvedPool) -> dict[str, str]:
    """The pool's node labels: the cloud's and ours, NFD's NVIDIA PCI label where a rendered NFD worker runs,
    and under the operator its deploy labels on nodes with ``nvidia.com/gpu.present`` or that NFD label."""
    labels = {**CLOUD_GPU_LABELS[rendered.stack.cloud], **pool.labels}
    if any(_fits(pod_placement(worker), labels, pool) for worker in _nfd_workers(rendered.objects)):
        labels[NFD_PCI_NVIDIA] = "true"
    if rendered.stack.config.gpu_software.installer == "gpu-operator" and "true" in (
            labels.get(GPU_PRESENT), labels.get(NFD_PCI_NVIDIA)):
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


@_variants([v for v in OPERATOR_VARIANTS])
def test_operator_operands_tolerate_the_gpu_taint(rendered: Rendered) -> None:
    """The operand daemonsets (created by the operator, not by helm) take ``daemonsets.tolerations``."""
    tolerations = rendered.cluster_policy["spec"]["daemonsets"]["tolerations"]
    for pool in rendered.stack.pools:
        assert tolerates(tolerations, pool.taints), pool.name
        if pool.sharing is not None and pool.sharing.mps is not None:  # MPS daemon: deploy label and mps.capable
            assert _fits((tolerations, {DEVICE_PLUGIN_OPERAND: "true", MPS_CAPABLE: "true"}, None),
                         _node_labels(rendered, pool), pool), pool.name


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
    replicas = MPS_REPLICAS[rendered.stack.cloud] if mode.sharing == "mps" else mode.replicas
    assert sharing[mode.sharing]["resources"] == [{"name": name, "replicas": replicas} for name in mode.resources]
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

PREINSTALLED = [v for v in OPERATOR_VARIANTS if v.mode is None or (v.driver == "preinstalled" and v.mode == "whole-gpus")]


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "chart values: with toolkit.enabled=false (driver and toolkit preinstalled) gpu_operator_values must set "
    "cdi.enabled=false; GPU Operator v26.x defaults it to true and then switches the device plugin to "
    "cdi-annotations,cdi-cri with no toolkit to enable CDI in containerd (NVIDIA/gpu-operator#1900)"))
@_variants(PREINSTALLED)
def test_preinstalled_driver_stacks_turn_cdi_off(rendered: Rendered) -> None:
    spec = rendered.cluster_policy["spec"]
    assert spec["toolkit"]["enabled"] is False
    assert spec["cdi"]["enabled"] is False


@_variants([v for v in OPERATOR_VARIANTS if v.driver == "operator"])
def test_operator_managed_toolkit_keeps_cdi_on(rendered: Rendered) -> None:
    """With its own toolkit the operator configures containerd for CDI, so the v26 default stays."""
    spec = rendered.cluster_policy["spec"]
    assert spec["toolkit"]["enabled"] is True and spec["cdi"]["enabled"] is True


def test_the_kubernetes_check_refuses_a_misspelt_field(renderer: HelmRenderer) -> None:
    """The strict 1.33 schemas are not vacuous: a rendered DaemonSet with a misspelt key is reported."""
    pytest.importorskip("kubernetes_validate")
    chart = chart_folder("nvidia-device-plugin", defaults_for("device-plugin").chart.default_version)
    daemonset = named(renderer.render(chart, "nvidia-device-plugin", "nvidia-device-plugin", {}), "DaemonSet",
                      "nvidia-device-plugin")
    daemonset["spec"]["template"]["spec"]["tolerations"][0]["operater"] = "Exists"
    assert any("operater" in p for p in builtin_problems([daemonset]))


# --- 6. The hand-kept defaults table agrees with what the charts render --------------------------------------

# Table name -> rendered DaemonSet name for release R (the Pulumi Release is named after its chart).
RENDERED_NAMES = {
    "device-plugin": {"nvidia-device-plugin": "{r}", "gpu-feature-discovery": "{r}-gpu-feature-discovery",
                      "mps-control-daemon": "{r}-mps-control-daemon", "nfd-worker": "{r}-node-feature-discovery-worker"},
    "gpu-operator": {"node-feature-discovery-worker": "{r}-node-feature-discovery-worker"},
}
SWITCHES = {  # value sets that flip every enabled_by path of the table, on top of the chart defaults
    "device-plugin": [{}, {"gfd": {"enabled": True}}, {"gfd": {"enabled": True}, "nfd": {"enabled": False}},
                      {"devicePlugin": {"enabled": False}, "gfd": {"enabled": True}}],
    "gpu-operator": [{}, {"nfd": {"enabled": False}, "driver": {"enabled": False}, "toolkit": {"enabled": False},
                          "devicePlugin": {"enabled": False}, "gfd": {"enabled": False}, "migManager": {"enabled": False},
                          "dcgmExporter": {"enabled": False}}],
}


def _lookup(values: Any, path: str) -> Any:
    for part in path.split("."):
        values = values[part]
    return values


@pytest.mark.parametrize("installer", ["device-plugin", "gpu-operator"])
def test_defaults_table_matches_what_the_chart_renders(installer: str, renderer: HelmRenderer) -> None:
    """``charts/defaults.py`` (what the plan-time placement check merges our values over) against the real chart:
    which daemonsets each switch deploys, and the tolerations, nodeSelector and affinity their pods get."""
    from gpupools import scheduling

    table = defaults_for(installer)
    release = table.chart.name
    chart = chart_folder(release, table.chart.default_version)
    names = RENDERED_NAMES[installer]
    for values in SWITCHES[installer]:
        objects = renderer.render(chart, release, release, values)
        merged = scheduling._merge(table.values, values)
        helm_made = [ds for ds in table.daemonsets if ds.name in names]
        expected = {names[ds.name].format(r=release) for ds in helm_made if scheduling._deployed(ds, merged)}
        assert {ds["metadata"]["name"] for ds in of_kind(objects, "DaemonSet")} == expected, values
        for ds in helm_made:
            if names[ds.name].format(r=release) not in expected:
                continue
            pod = scheduling._pod_of(ds, merged)
            rendered_pod = pod_placement(named(objects, "DaemonSet", names[ds.name].format(r=release)))
            assert rendered_pod == (list(pod.tolerations), dict(pod.node_selector or {}), pod.affinity), (ds.name, values)
        if installer == "gpu-operator":  # operands: the operator reads their switches and tolerations from the policy
            spec = of_kind(objects, "ClusterPolicy")[0]["spec"]
            for ds in table.daemonsets:
                if ds.name in names:
                    continue
                assert _lookup(spec, ds.tolerations_at) == list(scheduling._pod_of(ds, merged).tolerations), ds.name
                if ds.enabled_by:
                    assert _lookup(spec, ds.enabled_by[0]) is scheduling._deployed(ds, merged), (ds.name, values)
