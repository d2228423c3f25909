"""What ``verify`` reads from the API server, as typed models with limits: a server's JSON is untrusted input.

Only the fields verify uses are modelled (the rest is ignored); each has a type and a bound, so a list where
an object belongs, ``items`` as a string, a 1 MB node name or a million labels is one error naming the object
and field, never an internal error. Lengths follow Kubernetes' own limits
(https://kubernetes.io/docs/concepts/overview/working-with-objects/names/, .../labels/#syntax-and-character-set):
names at most 253 characters, label keys a 253-character prefix and a 63-character name, values 63.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, create_model, model_validator

from ..catalog.dra_driver import DRA_DRIVER_NAME

MAX_ITEMS = 5000  # objects in one list (all pages together); AKS and EKS clusters hold at most 5,000 nodes
MAX_LABELS = 1000  # per object; ours: far above what clouds and operators set (about 60 on a GPU node)
MAX_ENTRIES = 1000  # allocatable resources, owner references, conditions per object
# The device attributes verify reads (resource_slices._attribute): bare, as the driver serialises them, or qualified.
READ_ATTRIBUTES = ("type", "profile", f"{DRA_DRIVER_NAME}/type", f"{DRA_DRIVER_NAME}/profile")

Name = Annotated[str, StringConstraints(min_length=1, max_length=253)]
LabelKey = Annotated[str, StringConstraints(min_length=1, max_length=317)]
LabelValue = Annotated[str, StringConstraints(max_length=63)]
Short = Annotated[str, StringConstraints(max_length=316)]
Token = Annotated[str, StringConstraints(max_length=4096)]


class _Model(BaseModel):
    # strict: a number is not a string, a list is not an object; extra: fields verify does not use are ignored
    model_config: ClassVar[ConfigDict] = ConfigDict(strict=True, extra="ignore", frozen=True)


class OwnerReference(_Model):
    kind: Short = ""
    name: Short = ""


class ObjectMeta(_Model):
    name: Name
    labels: dict[LabelKey, LabelValue] | None = Field(default=None, max_length=MAX_LABELS)
    ownerReferences: list[OwnerReference] | None = Field(default=None, max_length=MAX_ENTRIES)  # noqa: N815
    deletionTimestamp: Short | None = None  # noqa: N815


class NodeStatus(_Model):
    # values stay strings here: untrusted.quantity reads the ones it compares, by the quantity grammar
    allocatable: dict[LabelKey, Short] | None = Field(default=None, max_length=MAX_ENTRIES)


class Node(_Model):
    metadata: ObjectMeta
    status: NodeStatus | None = None


class PodCondition(_Model):
    type: Short = ""
    status: Short = ""


class PodSpec(_Model):
    nodeName: Name | None = None  # noqa: N815


class PodStatus(_Model):
    phase: Short | None = None
    conditions: list[PodCondition] | None = Field(default=None, max_length=MAX_ENTRIES)


class Pod(_Model):
    metadata: ObjectMeta
    spec: PodSpec | None = None
    status: PodStatus | None = None


class DaemonSet(_Model):
    metadata: ObjectMeta


class ListMeta(_Model):
    continue_: Token | None = Field(default=None, alias="continue")


def _list_of(item: type[_Model], name: str) -> type[_Model]:
    fields: Any = {
        "metadata": (ListMeta | None, None),
        "items": (list[item] | None, Field(default=None, max_length=MAX_ITEMS)),
    }  # type: ignore[valid-type]
    return create_model(name, __base__=_Model, **fields)


class DeviceAttribute(_Model):
    # resource.k8s.io/v1 DeviceAttribute: one of string, int, bool, version; verify reads the strings
    string: Short | None = None


class Device(_Model):
    name: Name
    attributes: dict[LabelKey, DeviceAttribute] | None = Field(default=None, max_length=MAX_ENTRIES)

    @model_validator(mode="before")
    @classmethod
    def _what_verify_reads(cls, data: Any) -> Any:
        """Only the attributes verify reads are modelled (``type``, ``profile``, bare or qualified): a node's slice
        lists a dozen per device, and a cluster's thousands of devices made validating the rest most of the work.
        Too many attributes, or attributes that are not an object, are still refused."""
        attributes = data.get("attributes") if isinstance(data, dict) else None
        if isinstance(attributes, dict) and len(attributes) <= MAX_ENTRIES:
            kept = {key: attributes[key] for key in READ_ATTRIBUTES if key in attributes}
            return {**data, "attributes": kept}
        return data


class ResourcePool(_Model):
    name: Name
    generation: Annotated[int, Field(ge=0, le=2**63 - 1)] = 0
    resourceSliceCount: Annotated[int, Field(ge=1, le=MAX_ITEMS)] = 1  # noqa: N815


class ResourceSliceSpec(_Model):
    driver: Name
    nodeName: Name | None = None  # noqa: N815
    pool: ResourcePool
    devices: list[Device] | None = Field(default=None, max_length=MAX_ENTRIES)


class ResourceSlice(_Model):
    metadata: ObjectMeta
    spec: ResourceSliceSpec


class KarpenterNodePool(_Model):
    """A karpenter.sh/v1 NodePool: verify reads only that it is there."""

    metadata: ObjectMeta


class NodeClaimCondition(_Model):
    type: Short = ""
    status: Short = ""


class NodeClaimStatus(_Model):
    nodeName: Name | None = None  # noqa: N815
    conditions: list[NodeClaimCondition] | None = Field(default=None, max_length=MAX_ENTRIES)


class NodeClaim(_Model):
    """A karpenter.sh/v1 NodeClaim: its NodePool (label ``karpenter.sh/nodepool``) and the node it became."""

    metadata: ObjectMeta
    status: NodeClaimStatus | None = None


NodeList: type[_Model] = _list_of(Node, "NodeList")
KarpenterNodePoolList: type[_Model] = _list_of(KarpenterNodePool, "NodePoolList")
NodeClaimList: type[_Model] = _list_of(NodeClaim, "NodeClaimList")
ResourceSliceList: type[_Model] = _list_of(ResourceSlice, "ResourceSliceList")
PodList: type[_Model] = _list_of(Pod, "PodList")
DaemonSetList: type[_Model] = _list_of(DaemonSet, "DaemonSetList")


class Version(_Model):
    gitVersion: Annotated[str, StringConstraints(max_length=100)] = "unknown"  # noqa: N815


def problem(error: ValidationError, document: Any, kind: str) -> str:
    """The first thing wrong, as ``items[3] (node 'x').metadata.labels: Input should be a valid dictionary``."""
    first = error.errors(include_url=False)[0]
    where = ""
    for part in first["loc"]:
        if isinstance(part, int):
            where += f"[{part}]"
            if where.startswith("items[") and where.count("[") == 1:
                where += _named(document, part, kind)
        else:
            where += f".{part}" if where else str(part)
    more = error.error_count() - 1
    return f"{where or 'the response'}: {first['msg']}" + (f" (and {more} more)" if more else "")


def _named(document: Any, index: int, kind: str) -> str:
    try:
        name = document["items"][index]["metadata"]["name"]
    except (KeyError, IndexError, TypeError):
        return ""
    return f" ({kind} {name[:253]!r})" if isinstance(name, str) else ""
