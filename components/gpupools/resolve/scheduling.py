"""Plan-time placement check: does each NVIDIA daemonset reach each GPU pool, and does nothing else?

A GPU pool is only useful if the device plugin (and, per pool, the MIG manager, the MPS daemon, ...)
runs on its nodes, and it is only *reserved* for GPU work if an ordinary pod cannot land there. Both
depend on the chart values, the chart defaults, the pool's labels and taint, so this module replays the
Kubernetes scheduling rules over them before anything is deployed:

* every ``NoSchedule``/``NoExecute`` taint of the node must be tolerated;
* every ``nodeSelector`` label must be on the node;
* one of the required node-affinity terms must match (all of its expressions).

The node taints are ours and the cloud's (AKS Spot pools' ``scalesetpriority`` taint). The node labels are
those a pool's nodes end up with, built in the order they appear: the cloud's, ours
(``ResolvedPool.labels``), NFD's GPU label if an NFD worker runs there,
the GPU Operator's deploy labels, GFD's labels if GFD and an NFD worker run there, the
operator's MIG manager label, which depends on GFD's ``nvidia.com/mig.capable``, and last, where the MIG manager
runs and cuts the pool's layout, its ``nvidia.com/mig.config.state=success``.

The DRA kubelet plugin reads MIG devices once, at start: on a pool whose layout the MIG manager cuts it must not
land before that state is ``success``. So for those pools the check also places it on the labels the node has
before (without the MIG state); landing there is a problem row of its own (``BEFORE_MIG``).
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..catalog.cloud_registry import cloud as cloud_named
from ..catalog.chart_defaults import ChartDefaults, DaemonSet
from ..catalog.labels import (
    GPU_PRESENT_LABEL,
    MIG_CAPABLE_LABEL,
    MIG_MANAGER_DEPLOY_LABEL,
    MPS_CAPABLE_LABEL,
    NFD_GPU_LABEL,
    Taint,
)
from ..charts.values import addon_chart_values
from ..domain.pools import ResolvedPool, node_labels
from ..domain.stack import PLAIN_POD, Placement, Stack

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")
BEFORE_MIG = " before the MIG layout is cut"  # suffix of the row of a daemonset that must wait for the MIG manager
MIG_WAITERS = ("dra-kubelet-plugin",)  # roles that read the MIG layout once, at start


@dataclass(frozen=True)
class _Pod:
    """The placement fields of a pod spec."""

    tolerations: tuple[Mapping[str, Any], ...] = ()
    node_selector: Mapping[str, str] | None = None
    affinity: Mapping[str, Any] | None = None


def tolerates(tolerations: Iterable[Mapping[str, Any]], taints: Iterable[Taint]) -> bool:
    """True when every ``NoSchedule``/``NoExecute`` taint is tolerated by at least one toleration."""
    return not _untolerated(list(tolerations), taints)


def matches_affinity(affinity: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """True when there is no required node affinity, or one of its terms matches every expression."""
    required = ((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return True
    # An empty list of terms, or a term without expressions, matches no node (Kubernetes NodeSelector).
    return any(
        term.get("matchExpressions") and all(_expression_matches(e, labels) for e in term["matchExpressions"])
        for term in required.get("nodeSelectorTerms") or []
    )


def placements(
    stack: Stack,
    values: Mapping[str, Any],
    addons: Sequence[tuple[ChartDefaults, Mapping[str, Any]]] | None = None,
) -> list[Placement]:
    """One row per pool and deployed NVIDIA daemonset, plus one per pool for a pod without tolerations.

    ``values`` are the Helm values of the stack's chart; they are merged over the chart defaults the way
    Helm does (mappings merge, anything else replaces). ``addons`` are the charts installed beside it,
    each with its defaults and values (default: those the stack installs, ``addon_chart_values``); they
    add no node labels, so the node labels come from the installer's chart alone. Where a daemonset belongs:

    * device plugin, GFD, NFD worker, driver, toolkit, validator, DCGM exporter (either chart's): every pool;
    * MPS control daemon: only pools sharing with MPS (it runs privileged with hostPID);
    * MIG manager: pools with MIG-capable GPUs, except those whose MIG profile AKS applied (it would
      reset them to the operator's default ``all-disabled``); on MIG-capable pools without MIG it keeps
      MIG disabled, so the advertised resources are whole GPUs;
    * the plain pod: no pool.
    """
    chart = stack.config.gpu_software.chosen_installer.defaults
    merged = _merge(chart.values, values)
    deployed = [ds for ds in chart.daemonsets if _deployed(ds, merged)]
    pods = {ds.name: _pod_of(ds, merged) for ds in deployed}
    extra: list[DaemonSet] = []
    for addon, addon_values in addon_chart_values(stack) if addons is None else addons:
        addon_merged = _merge(addon.values, addon_values)
        for ds in addon.daemonsets:
            if _deployed(ds, addon_merged):
                extra.append(ds)
                pods[ds.name] = _pod_of(ds, addon_merged)
    # The chart that labels GPU nodes: the installer's, or the GPU Operator beside the DRA driver.
    labeler = next((a for a, _ in (addon_chart_values(stack) if addons is None else addons) if a.deploy_labels), chart)
    rows = []
    for pool in stack.pools:
        labels = _node_labels(stack, pool, labeler, [*deployed, *extra], pods)
        before = {key: value for key, value in labels.items() if key not in pool.readiness_labels}
        for ds in [*deployed, *extra]:
            schedules, reason = _fits(pods[ds.name], labels, pool.node_taints)
            waits = ds.role in MIG_WAITERS and before != labels
            if waits and schedules:
                early, why = _fits(pods[ds.name], before, pool.node_taints)
                if early:  # it would publish whole GPUs (or nothing) and never see the layout
                    rows.append(Placement(pool.name, ds.name + BEFORE_MIG, True, False, why))
                else:
                    reason += ", once " + ", ".join(f"{k}={v}" for k, v in pool.readiness_labels.items())
            rows.append(Placement(pool.name, ds.name, schedules, _belongs(ds, pool), reason))
        schedules, reason = _fits(_Pod(), labels, pool.node_taints)
        rows.append(Placement(pool.name, PLAIN_POD, schedules, False, reason))
    return rows


def placement_problems(
    stack: Stack,
    values: Mapping[str, Any],
    addons: Sequence[tuple[ChartDefaults, Mapping[str, Any]]] | None = None,
) -> list[str]:
    """One message per pool and daemonset placed wrongly; empty when every pool is served and reserved."""
    return [row.problem for row in placements(stack, values, addons) if not row.ok]


def _belongs(ds: DaemonSet, pool: ResolvedPool) -> bool:
    if ds.role == "mps-daemon":
        return pool.sharing is not None and pool.sharing.mps is not None
    if ds.role == "mig-manager":
        return pool.gpu.mig_capable and not (pool.mig is not None and pool.mig.applied_by == "aks")
    return True


def _node_labels(
    stack: Stack, pool: ResolvedPool, chart: ChartDefaults, deployed: list[DaemonSet], pods: Mapping[str, _Pod]
) -> dict[str, str]:
    """The labels the pool's nodes end up with, added in the order the cloud, NFD, the operator and GFD add them."""
    labels = {**cloud_named(stack.cloud).gpu_labels, **node_labels(pool)}

    def runs(role: str) -> bool:
        return any(ds.role == role and _fits(pods[ds.name], labels, pool.node_taints)[0] for ds in deployed)

    nfd_here = runs("nfd-worker")
    if nfd_here:
        labels[NFD_GPU_LABEL] = "true"
    operator_labels = bool(chart.deploy_labels) and "true" in (labels.get(GPU_PRESENT_LABEL), labels.get(NFD_GPU_LABEL))
    if operator_labels:  # the operator's GPU node test: our label, or NFD's
        labels[GPU_PRESENT_LABEL] = "true"
        for key in chart.deploy_labels:
            labels.setdefault(key, "true")
    if nfd_here and runs("gfd"):  # GFD writes feature files that the NFD worker publishes
        labels[MIG_CAPABLE_LABEL] = str(pool.gpu.mig_capable).lower()
        labels[MPS_CAPABLE_LABEL] = str(pool.sharing is not None and pool.sharing.mps is not None).lower()
    if operator_labels and labels.get(MIG_CAPABLE_LABEL) == "true":
        labels.setdefault(MIG_MANAGER_DEPLOY_LABEL, "true")
    if pool.readiness_labels and runs("mig-manager"):  # it writes the state last, once the layout is cut
        labels.update(pool.readiness_labels)
    return labels


def _fits(pod: _Pod, labels: Mapping[str, str], taints: Iterable[Taint]) -> tuple[bool, str]:
    """Whether the scheduler may place the pod on a node with these labels and taints, and why."""
    taints = list(taints)
    untolerated = _untolerated(pod.tolerations, taints)
    if untolerated:
        return False, "does not tolerate taint " + ", ".join(map(str, untolerated))
    missing = {key: value for key, value in (pod.node_selector or {}).items() if labels.get(key) != value}
    if missing:
        return False, "nodeSelector " + ", ".join(
            f"{key}={value} (node has {labels[key]!r})" if key in labels else f"{key}={value} (label absent)"
            for key, value in missing.items()
        )
    if not matches_affinity(pod.affinity, labels):
        return False, "no required node affinity term matches the node labels"
    blocking = [t for t in taints if t.effect in BLOCKING_EFFECTS]
    if not blocking:
        return True, "the nodes carry no NoSchedule/NoExecute taint"
    selected = " and matches its node selector/affinity" if pod.node_selector or pod.affinity else ""
    return True, "tolerates " + ", ".join(map(str, blocking)) + selected


def _untolerated(tolerations: Iterable[Mapping[str, Any]], taints: Iterable[Taint]) -> list[Taint]:
    tolerations = list(tolerations)
    return [
        taint
        for taint in taints
        if taint.effect in BLOCKING_EFFECTS and not any(_toleration_matches(t, taint) for t in tolerations)
    ]


def _toleration_matches(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """Kubernetes ``Toleration.ToleratesTaint``: effect (empty = all), key (empty + Exists = all), value."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    operator = toleration.get("operator") or "Equal"
    key = toleration.get("key") or ""
    if not key:
        return operator == "Exists"
    if key != taint.key:
        return False
    return operator == "Exists" or (toleration.get("value") or "") == taint.value


def _expression_matches(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    raise ValueError(f"node selector operator {operator!r} is not supported by the placement check")


def _pod_of(ds: DaemonSet, values: Mapping[str, Any]) -> _Pod:
    """A daemonset's pod placement as its chart renders it from the merged values."""
    from_values = _get(values, ds.node_selector_at) if ds.node_selector_at else None
    return _Pod(
        tolerations=tuple(_get(values, ds.tolerations_at) or ()),
        node_selector={**ds.node_selector, **(from_values or {})},
        affinity=_get(values, ds.affinity_at) if ds.affinity_at else None,
    )


def _deployed(ds: DaemonSet, values: Mapping[str, Any]) -> bool:
    """Helm ``condition``: the first of the paths that is set decides; none set means deployed."""
    for path in ds.enabled_by:
        found, value = _lookup(values, path)
        if found:
            return bool(value)
    return True


def _get(values: Mapping[str, Any], path: str) -> Any:
    return _lookup(values, path)[1]


def _lookup(values: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    node: Any = values
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _merge(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's merge of user values over chart values: mappings merge key by key, anything else replaces."""
    merged = deepcopy(dict(defaults))
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = deepcopy(value)
    return merged
