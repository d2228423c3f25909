"""Comparing what the nodes show with what the plan promised, and printing the result as text, JSON or Markdown.

Pure: the input is the expectation per pool and the node states ``cluster.observe`` read. Each mismatch
knows whether it may still resolve by itself (a MIG layout being applied, a device plugin not yet
advertising), which is what ``--timeout`` waits for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..untrusted.text import markdown_safe, shown
from .cluster import NodeState
from ..catalog.labels import (
    MIG_CONFIG_LABEL,
    MIG_CONFIG_STATE_FAILED,
    MIG_CONFIG_STATE_LABEL,
    MIG_CONFIG_STATE_READY,
    MIG_CONFIG_STATES_IN_PROGRESS,
)
from .expected import DevicePluginTarget, PoolExpectation
from .recut import failed_recut


@dataclass(frozen=True)
class Mismatch:
    """One difference between plan and cluster, printed as one line."""

    pool: str
    node: str | None
    subject: str
    expected: str
    got: str
    # Still settling (MIG manager at work, device plugin not advertising yet): worth polling again.
    in_progress: bool = False

    def __str__(self) -> str:
        where = f"pool {self.pool}, node {self.node}" if self.node else f"pool {self.pool}"
        return f"{where}: {self.subject} expected {self.expected}, got {self.got}"


@dataclass(frozen=True)
class PoolResult:
    expectation: PoolExpectation
    nodes: list[NodeState]
    mismatches: list[Mismatch]
    # DRA stacks: per node, the devices its ResourceSlices list (``verify.resource_slices``).
    published: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        dra = bool(self.expectation.devices)
        found: dict[str, Any] = {
            "pool": self.expectation.pool,
            "expected": dict(self.expectation.devices if dra else self.expectation.per_node),
        }
        if dra:
            found["expectedIn"] = DRA_SLICES
        found["nodes"] = [
            {
                "name": node.name,
                "allocatable": dict(node.allocatable),
                **({"devices": dict(self.published.get(node.name, {}))} if dra else {}),
                "migConfig": node.mig_config,
                "migConfigState": node.mig_config_state,
                "devicePluginReady": node.device_plugin_ready,
            }
            for node in self.nodes
        ]
        found.update(ok=self.ok, mismatches=[str(mismatch) for mismatch in self.mismatches])
        return found


@dataclass(frozen=True)
class VerifyReport:
    stack: str
    server: str
    version: str
    pools: list[PoolResult] = field(default_factory=list)
    publisher: str = "device plugin"  # what must run on every GPU node, by the name reports use

    @property
    def mismatches(self) -> list[Mismatch]:
        return [mismatch for pool in self.pools for mismatch in pool.mismatches]

    @property
    def ok(self) -> bool:
        return not self.mismatches

    @property
    def in_progress(self) -> bool:
        """Some node is still being set up (the MIG state or allocatable has not settled)."""
        return any(mismatch.in_progress for mismatch in self.mismatches)

    def to_json(self) -> dict[str, Any]:
        return {"stack": self.stack, "pools": [pool.to_json() for pool in self.pools], "ok": self.ok}


def compare(
    stack: str,
    server: str,
    version: str,
    pools: list[PoolExpectation],
    observed: dict[str, list[NodeState]],
    target: DevicePluginTarget,
) -> VerifyReport:
    results = []
    for pool in pools:
        nodes = observed.get(pool.pool, [])
        mismatches = []
        if not nodes and pool.nodes > 0:
            mismatches.append(
                Mismatch(pool.pool, None, "nodes", f"{pool.nodes} with {pool.label_selector}", "no nodes")
            )
        for node in nodes:
            mismatches += node_mismatches(pool, node, target)
        results.append(PoolResult(pool, nodes, mismatches))
    return VerifyReport(stack, server, version, results, target.kind)


def node_mismatches(pool: PoolExpectation, node: NodeState, target: DevicePluginTarget) -> list[Mismatch]:
    """MIG state first (it explains the rest), then each planned resource, unplanned ones, the device plugin."""
    found = []
    mismatch = lambda subject, expected, got, in_progress=False: found.append(  # noqa: E731
        Mismatch(pool.pool, node.name, subject, str(expected), str(got), in_progress)
    )
    # Until the MIG manager gives up, missing or zero slices are the layout still being applied.
    may_settle = node.mig_config_state != MIG_CONFIG_STATE_FAILED
    if pool.mig_by_operator and pool.mig_layout and node.mig_config not in (None, pool.mig_layout):
        mismatch(MIG_CONFIG_LABEL, pool.mig_layout, node.mig_config)  # the layout asked of the node is another
    if pool.mig_by_operator and node.mig_config_state != MIG_CONFIG_STATE_READY:
        state = node.mig_config_state
        got = failed_recut(node.name, node.mig_config or pool.mig_layout) if state == MIG_CONFIG_STATE_FAILED else state
        mismatch(
            MIG_CONFIG_STATE_LABEL, MIG_CONFIG_STATE_READY, got or "no label", state in MIG_CONFIG_STATES_IN_PROGRESS
        )
    for resource, expected in sorted(pool.per_node.items()):
        got = node.allocatable.get(resource)
        if got != expected:
            mismatch(resource, expected, "missing" if got is None else got, may_settle and not got)
    for resource, got in sorted(node.allocatable.items()):
        if resource not in pool.per_node and got:
            mismatch(resource, 0, got)
    if not node.device_plugin_ready:
        mismatch(f"{target.kind} pod ({target.namespace}/{target.daemonset})", "ready", node.device_plugin)
    return found


def render_text(report: VerifyReport) -> str:
    lines = [f"stack {report.stack}: cluster {report.server} (Kubernetes {report.version})"]
    for pool in report.pools:
        count = len(pool.nodes)
        lines.append(
            f"pool {pool.expectation.pool}: {count} node{'s' if count != 1 else ''} "
            f"(planned {pool.expectation.nodes}), per node {_planned(pool.expectation)}"
        )
        for node in pool.nodes:
            mig = _mig_state(pool, node)
            lines.append(f"  {node.name}: {_observed(pool, node)}{mig}, {report.publisher} {node.device_plugin}")
    for mismatch in report.mismatches:
        lines.append(f"mismatch: {mismatch}")
    count = len(report.mismatches)
    lines.append(
        "ok: every pool advertises what the plan promised"
        if report.ok
        else f"{count} mismatch{'es' if count != 1 else ''}"
    )
    # Node names, label values, resource names and the version come from the server: escaped like config errors.
    return "\n".join(shown(line) for line in lines)


def render_json(report: VerifyReport) -> str:
    return json.dumps(report.to_json(), indent=2)


def render_markdown(report: VerifyReport) -> str:
    verdict = "every pool matches the plan" if report.ok else f"{len(report.mismatches)} mismatch(es)"
    lines = [
        f"### Stack `{report.stack}` on Kubernetes {_md(report.version)}: {verdict}",
        "",
        f"| pool | node | allocatable | planned | MIG state | {report.publisher} |",
        "|---|---|---|---|---|---|",
    ]
    for pool in report.pools:
        planned = _md(_planned(pool.expectation))
        for node in pool.nodes or [None]:
            if node is None:
                lines.append(f"| {_md(pool.expectation.pool)} | (no nodes) | | {planned} | | |")
                continue
            lines.append(
                f"| {_md(pool.expectation.pool)} | {_md(node.name)} | {_md(_observed(pool, node))} | "
                f"{planned} | {_md(node.mig_config_state or '')} | {_md(node.device_plugin)} |"
            )
    if report.mismatches:
        lines += ["", *(f"- {_md(str(mismatch))}" for mismatch in report.mismatches)]
    return "\n".join(lines)


def _md(text: str) -> str:
    """Server text as a Markdown table cell: no ``|``, link or code syntax, so a node name cannot close the table."""
    return markdown_safe(text)


RENDERERS = {"text": render_text, "json": render_json, "markdown": render_markdown}


def _resources(resources: dict[str, int]) -> str:
    return ", ".join(f"{count}x {name}" for name, count in sorted(resources.items()))


DRA_SLICES = "ResourceSlices (gpu.nvidia.com)"


def _planned(expectation: PoolExpectation) -> str:
    """What each node must offer: its allocatable, or for DRA the devices its ResourceSlices list."""
    if expectation.devices:
        return f"{_resources(expectation.devices)} in {DRA_SLICES}"
    return _resources(expectation.per_node)


def _mig_state(pool: PoolResult, node: NodeState) -> str:
    """``, MIG all-balanced: success``: where the MIG manager cuts the pool, every node's layout label and state."""
    if pool.expectation.mig_by_operator:
        return f", MIG {node.mig_config or 'no layout label'}: {node.mig_config_state or 'no state label'}"
    return f", MIG {node.mig_config_state}" if node.mig_config_state else ""


def _observed(pool: PoolResult, node: NodeState) -> str:
    if pool.expectation.devices:
        devices = _resources(pool.published.get(node.name, {})) or "none"
        extra = f", allocatable {_resources(node.allocatable)}" if node.allocatable else ""
        return f"{devices} in {DRA_SLICES}{extra}"
    return _resources(node.allocatable) or "no nvidia.com resources"
