"""A test double of the cluster autoscaler's scale-from-zero path: tags in, a template node out, does a pod fit.

Written from cluster-autoscaler 1.35.0's behaviour as documented and quoted in the research notes, never
from gpupools code:

* AWS (``aws_manager.go`` ``buildNodeFromTemplate``): the template node starts with ``nvidia.com/gpu`` = the
  instance type's GPU count (``resource.NewQuantity(template.InstanceType.GPU, ...)``), then every resource tag
  overrides capacity (``extractAllocatableResourcesFromAsg``). A group is discovered when it carries both tag keys
  ``k8s.io/cluster-autoscaler/enabled`` and ``k8s.io/cluster-autoscaler/<cluster>`` (values ignored).
  Keys are split on ``k8s.io/cluster-autoscaler/node-template/resources/``, ``.../label/``, ``.../taint/``;
  the rest of the key, slashes and dots included, is the name. A resource value goes through
  ``resource.ParseQuantity`` and is skipped when it does not parse. A taint value must match
  ``(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)``.
* Azure (``azure_template.go``): prefixes ``k8s.io_cluster-autoscaler_node-template_{label,taint,resources}_``.
  Labels and taints: ``_`` -> ``/`` then ``~2`` -> ``_``. Resources: both ``_`` and ``~2`` -> ``/``. The template
  also has ``nvidia.com/gpu`` = the SKU's GPU count and ``kubernetes.azure.com/accelerator=nvidia``
  (L272, L366-368); resource tags then override capacity.

A pod fits the template when its nodeSelector is a subset of the labels, it tolerates every
NoSchedule/NoExecute taint (``gpupools.resolve.scheduling.tolerates``, the Kubernetes rule) and each request is at
most the allocatable amount.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Mapping

from gpupools.catalog.labels import Taint
from gpupools.resolve.scheduling import tolerates

AWS = "k8s.io/cluster-autoscaler/node-template/"
AZURE = "k8s.io_cluster-autoscaler_node-template_"
TAINT_VALUE = re.compile(r"(.*):(NoSchedule|NoExecute|PreferNoSchedule)")
# resource.ParseQuantity: a signed decimal number and an optional binary (Ki..Ei), decimal (m, k, M..E) or
# exponent suffix.
QUANTITY = re.compile(r"([+-]?\d+(?:\.\d*)?|[+-]?\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\d+)?")
SUFFIX = {
    None: 1,
    "m": Decimal("0.001"),
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}


def parse_quantity(text: str) -> Decimal | None:
    match = QUANTITY.fullmatch(text)
    if match is None:
        return None
    number, suffix = match.groups()
    try:
        value = Decimal(number)
    except InvalidOperation:
        return None
    if suffix and suffix[0] in "eE" and suffix not in SUFFIX:
        return value * Decimal(10) ** int(suffix[1:])
    return value * Decimal(SUFFIX[suffix])


@dataclass
class TemplateNode:
    allocatable: dict[str, Decimal] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[Taint] = field(default_factory=list)


def aws_discovered(tags: Mapping[str, str], cluster: str) -> bool:
    return {"k8s.io/cluster-autoscaler/enabled", f"k8s.io/cluster-autoscaler/{cluster}"} <= set(tags)


def aws_template(tags: Mapping[str, str], *, instance_gpus: int) -> TemplateNode:
    node = TemplateNode({"nvidia.com/gpu": Decimal(instance_gpus)})
    for key, value in tags.items():
        if key.startswith(AWS + "resources/"):
            quantity = parse_quantity(value)
            if quantity is not None:
                node.allocatable[key.split(AWS + "resources/", 1)[1]] = quantity
        elif key.startswith(AWS + "label/"):
            node.labels[key.split(AWS + "label/", 1)[1]] = value
        elif key.startswith(AWS + "taint/"):
            match = TAINT_VALUE.fullmatch(value)
            if match:
                node.taints.append(Taint(key.split(AWS + "taint/", 1)[1], match.group(1), match.group(2)))
    return node


def azure_template(tags: Mapping[str, str], sku_gpus: int) -> TemplateNode:
    node = TemplateNode({"nvidia.com/gpu": Decimal(sku_gpus)}, {"kubernetes.azure.com/accelerator": "nvidia"})
    for key, value in tags.items():
        if key.startswith(AZURE + "resources_"):
            name = key.split(AZURE + "resources_", 1)[1].replace("_", "/").replace("~2", "/")
            quantity = parse_quantity(value)
            if quantity is not None:
                node.allocatable[name] = quantity
        elif key.startswith(AZURE + "label_"):
            node.labels[_azure_name(key.split(AZURE + "label_", 1)[1])] = value
        elif key.startswith(AZURE + "taint_"):
            match = TAINT_VALUE.fullmatch(value)
            if match:
                node.taints.append(
                    Taint(_azure_name(key.split(AZURE + "taint_", 1)[1]), match.group(1), match.group(2))
                )
    return node


def _azure_name(encoded: str) -> str:
    return encoded.replace("_", "/").replace("~2", "_")


def fits(
    node: TemplateNode,
    *,
    requests: Mapping[str, int],
    node_selector: Mapping[str, str],
    tolerations: list[Mapping[str, Any]],
) -> bool:
    return (
        all(node.labels.get(key) == value for key, value in node_selector.items())
        and tolerates(tolerations, node.taints)
        and all(node.allocatable.get(name, Decimal(0)) >= count for name, count in requests.items())
    )
