"""``gpupools plan``: the offline plan as a resource tree, a capacity table and warnings (or JSON / Markdown)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..config.loading import StackFile
from ..plan.base import read_base_plan
from ..plan.diff import diff_plans
from ..plan.offline import Plan, plan_stack
from .check import print_lines
from .render import capacity_lines, diff_lines, markdown_capacity, markdown_diff, markdown_headline, placement_lines
from .cost_render import cost_diff_lines, cost_headline, cost_lines, markdown_cost, markdown_cost_diff
from ..plan.cost_diff import CostDiff, cost_diff
from ..plan.diff import CapacityDiff
from .markdown_parts import marks
from .pictures import check_svg_path, print_layouts, write_svg
from ..pictures.from_plan import plan_json_picture
from ..pictures.markdown import changed_layouts
from .dra_render import dra_device_lines, dra_diff_lines, markdown_dra_devices

# The inputs worth reading per resource type; JSON output keeps them all.
KEY_INPUTS: dict[str, tuple[str, ...]] = {
    "azure-native:resources:ResourceGroup": ("resourceGroupName", "location"),
    "azure-native:containerservice:ManagedCluster": ("resourceName", "kubernetesVersion", "agentPoolProfiles"),
    "azure-native:containerservice:AgentPool": (
        "agentPoolName",
        "resourceName",
        "vmSize",
        "count",
        "gpuInstanceProfile",
        "gpuProfile",
        "osSKU",
        "mode",
        "enableAutoScaling",
        "minCount",
        "maxCount",
        "nodeTaints",
        "nodeLabels",
    ),
    "eks:index:Cluster": ("name", "version", "createOidcProvider", "authenticationMode", "skipDefaultNodeGroup"),
    "eks:index:ManagedNodeGroup": (
        "nodeGroupName",
        "instanceTypes",
        "amiType",
        "scalingConfig",
        "diskSize",
        "taints",
        "labels",
    ),
    "kubernetes:core/v1:Namespace": ("metadata",),
    "kubernetes:helm.sh/v3:Release": ("chart", "version", "repositoryOpts", "namespace", "atomic", "values"),
    "kubernetes:batch/v1:Job": ("metadata", "spec"),
    "aws:iam/role:Role": ("name",),
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ("policyArn",),
}


def run_plan(
    stack_file: StackFile, output_format: str, base: str | None = None, ascii_only: bool = False, svg: str | None = None
) -> int:
    """Print the plan; with ``base`` (a plan JSON of the base branch), what it changes comes first; with ``svg``,
    write its picture there too."""
    base_plan = read_base_plan(Path(base)) if base is not None else None
    check_svg_path(svg)
    plan = plan_stack(stack_file)
    if svg is not None:
        write_svg(svg, plan.picture, f"gpupools plan: stack {plan.stack} ({plan.cloud})")
    head = plan.to_json()
    diff = diff_plans(base_plan, head) if base_plan is not None else None
    costs = cost_diff(base_plan, head, diff) if base_plan is not None and diff else None
    if output_format == "json":
        print(
            json.dumps(
                {
                    **head,
                    **(
                        {"diff": {**diff.to_json(), "cost": costs.to_json(), "costHeadline": cost_headline(costs)}}
                        if diff and costs
                        else {}
                    ),
                },
                indent=2,
                allow_nan=False,  # a number that is not finite is a bug to report, not JSON to print
            )
        )
    elif output_format == "markdown":
        print_lines(
            markdown_comment(plan, base_plan, diff, costs) if diff and costs and base_plan else markdown_plan(plan)
        )
    else:
        print_lines(
            (
                _with_cost(diff_lines(diff), costs) + cost_diff_lines(costs) + dra_diff_lines(diff.devices) + [""]
                if diff and costs
                else []
            )
            + text_plan(plan, base_plan, diff)
        )
        print_layouts(plan.picture, ascii_only, "MIG layouts (each distinct GPU layout once):")
    return 0


def _with_cost(lines: list[str], costs: CostDiff, bold: str = "") -> list[str]:
    """The diff's first line says what the change does to capacity, then what it adds or saves per month."""
    first = lines[0].removesuffix(bold) if bold else lines[0]
    return [f"{first}; {cost_headline(costs)}{bold}"] + lines[1:]


def text_plan(plan: Plan, base: dict[str, Any] | None = None, diff: CapacityDiff | None = None) -> list[str]:
    lines = [f"stack {plan.stack} ({plan.cloud}): {len(plan.resources)} resources"]
    lines += [plan.on.line(), ""] if plan.on else [""]
    lines += _tree(plan.resources, *marks(plan.resources, base, diff))
    lines += ["", "GPU resources advertised:"] + capacity_lines(plan.capacity, plan.warnings, plan.capacity_inputs)
    if plan.cost:
        lines += ["", "Cost:"] + cost_lines(plan.cost)
    lines += dra_device_lines(plan.dra_devices_json())
    lines += ["", "NVIDIA daemonset placement (chart values merged with the chart defaults):"]
    lines += placement_lines(plan.placements)
    if plan.autoscaling:
        lines += ["", "Autoscaling (the cluster autoscaler's node template per pool):"]
        lines += [f"  {row.line()}" for row in plan.autoscaling]
    lines += ["", "Outputs:"] + [f"  {key} = {_compact(value)}" for key, value in plan.outputs.items()]
    return lines


def markdown_comment(plan: Plan, base: dict[str, Any], diff: CapacityDiff, costs: CostDiff) -> list[str]:
    """One stack's part of the pull request comment: its heading first, which is the headline (what goes, what
    arrives, the money); an unchanged stack is that one line with its capacity and cost collapsed under it."""
    heading = f"### `{plan.stack}` ({plan.cloud}): {markdown_headline(diff)}; {cost_headline(costs)}"
    unchanged = not diff.changed and not costs.unknown and abs(costs.monthly.delta) < 0.005
    if unchanged:
        cost = None if costs.unpriced else plan.cost  # an unpriced stack said so in its heading, once
        summary = [f"<details><summary>capacity{' and cost' if cost else ''}</summary>", ""]
        summary += markdown_capacity(plan.capacity, [], plan.capacity_inputs)
        summary += (["", "Cost:", ""] + markdown_cost(cost)) if cost else []
        return [heading, ""] + summary + ["", "</details>"]
    lines = [heading] + markdown_diff(diff)[1:] + markdown_cost_diff(costs) + dra_diff_lines(diff.devices)
    lines += changed_layouts(
        plan_json_picture(base), plan.picture, [p.pool for p in diff.pools if p.change != "unchanged"]
    )
    return lines + [""] + markdown_plan(plan, base, diff, heading=False)


def markdown_plan(
    plan: Plan, base: dict[str, Any] | None = None, diff: CapacityDiff | None = None, heading: bool = True
) -> list[str]:
    lines = [f"### gpupools plan: stack `{plan.stack}` ({plan.cloud}), {len(plan.resources)} resources", ""]
    marked, gone = marks(plan.resources, base, diff)
    lines = lines if heading else [f"Plan: {_counts(marked, gone)}.", ""]
    lines += [f"_{plan.on.line()}_", ""] if plan.on else []
    lines += markdown_capacity(plan.capacity, plan.warnings, plan.capacity_inputs)
    if plan.cost:
        lines += ["", "Cost:", ""] + markdown_cost(plan.cost)
    lines += markdown_dra_devices(plan.dra_devices_json())
    if plan.autoscaling:
        lines += ["", "Autoscaling:", ""] + [f"- {row.line()}" for row in plan.autoscaling]
    lines += ["", "<details><summary>NVIDIA daemonset placement</summary>", "", "```"]
    lines += placement_lines(plan.placements) + ["```", "", "</details>"]
    title = (
        "Resources against the base plan (+ create, ~ update, - delete, +- replace, unmarked: same)"
        if base
        else "Resources"
    )
    lines += ["", f"<details><summary>{title} and key inputs</summary>", "", "```"]
    lines += _tree(plan.resources, marked, gone, _base_inputs(base))
    return lines + ["```", "", "</details>"]


def _base_inputs(base: dict[str, Any] | None) -> dict[tuple[str, str], dict[str, Any]]:
    """The base plan's inputs by resource, so an updated resource shows only the inputs that change."""
    resources = (base or {}).get("resources", [])
    return {(r["type"], r["name"]): r.get("inputs", {}) for r in resources if isinstance(r, dict) and "type" in r}


def _counts(marked: dict[tuple[str, str], str], gone: list[dict[str, Any]]) -> str:
    """``10 resources: 1 to replace, 1 to update, 8 unchanged``, as ``pulumi preview`` sums them up."""
    words = {"+": "to create", "~": "to update", "+-": "to replace", "  ": "unchanged"}
    signs = list(marked.values())
    parts = [f"{signs.count(sign)} {word}" for sign, word in words.items() if signs.count(sign)]
    parts += [f"{len(gone)} to delete"] if gone else []
    return f"{len(marked)} resources: {', '.join(parts)}"


def _tree(
    resources: list[dict[str, Any]],
    marked: dict[tuple[str, str], str] | None = None,
    gone: list[dict[str, Any]] | None = None,
    before: dict[tuple[str, str], dict[str, Any]] | None = None,
    changed_only: bool = False,
) -> list[str]:
    """The resource tree, each resource with its mark against the base (``+`` without one); with
    ``changed_only``, as ``pulumi preview`` shows it: what changes and the parents it sits under."""
    marked = marked or {}
    # Every mark takes the widest one's columns (``+-`` against a base), so ``~``, ``+-`` and unmarked lines align.
    width = max((len(sign) for sign in marked.values()), default=1) if marked else 1
    width = max(width, 2) if gone else width
    children: dict[str | None, list[dict[str, Any]]] = {}
    for resource in resources:
        children.setdefault(resource["parent"], []).append(resource)

    def mark(resource: dict[str, Any]) -> str:
        return marked.get((resource["type"], resource["name"]), "+")

    def shown(resource: dict[str, Any]) -> bool:
        kids = children.get(resource["name"], [])
        return not changed_only or mark(resource).strip() != "" or any(shown(kid) for kid in kids)

    lines: list[str] = []

    def walk(parent: str | None, depth: int) -> None:
        for resource in (r for r in children.get(parent, []) if shown(r)):
            indent = "  " * depth
            sign = mark(resource)
            lines.append(f"{indent}{sign.ljust(width)} {resource['type']}  {resource['name']}")
            if sign.strip() == "":
                walk(resource["name"], depth + 1)
                continue
            old = dict(
                _key_inputs({**resource, "inputs": (before or {}).get((resource["type"], resource["name"]), {})})
            )
            for key, value in _key_inputs(resource):
                if sign == "~" and old.get(key) == value:  # an update shows what changes, as pulumi preview does
                    continue
                if "\n" in value:  # embedded files (device plugin configs) keep their own layout
                    lines.append(f"{indent}    {key} = |")
                    lines.extend(f"{indent}        {line}" for line in value.rstrip().splitlines())
                else:
                    lines.append(f"{indent}    {key} = {value}")
            walk(resource["name"], depth + 1)

    walk(None, 0)
    return lines + [f"{'-'.ljust(width)} {resource['type']}  {resource['name']}" for resource in gone or []]


def _key_inputs(resource: dict[str, Any]) -> list[tuple[str, str]]:
    keys = KEY_INPUTS.get(resource["type"])
    inputs = resource["inputs"]
    selected = {key: inputs[key] for key in (keys or inputs) if key in inputs and key != "__self__"}
    return [(key, _compact(value)) for key, value in _flatten(selected)]


def _flatten(values: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Nested mappings as dotted keys, so chart values read like ``--set`` flags."""
    items: list[tuple[str, Any]] = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            items += _flatten(value, f"{path}.")
        else:
            items.append((path, value))
    return items


def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "))
