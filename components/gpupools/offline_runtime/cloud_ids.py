"""The ids and ARNs an offline run hands back, in the shapes the real providers give, so a plan never shows a
value the cloud could not have (``arn:aws:iam:us-east-1:...:gpu-eks-nodes-role`` is no ARN).

Shapes: the IAM User Guide's "IAM identifiers" (``arn:aws:iam::<account>:role/<name>``: IAM is global, so the
region field is empty), the EKS API reference's ``cluster/<name>`` and ``nodegroup/<cluster>/<name>/<uuid>``,
EC2's ``<type>/<id>``; pulumi-aws gives an IAM role the id of its name; the engine gives a provider a UUID id.
Everything is derived from the resource's name, so two runs give the same bytes.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

_NAMESPACE = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")  # RFC 4122's URL namespace
_GLOBAL_SERVICES = frozenset({"iam"})  # their ARNs have no region
_RESOURCE_PATHS = {"aws:eks/nodeGroup:NodeGroup": "nodegroup"}  # ARN resource types not the kebab-cased token
_ID_IS_NAME = frozenset({"aws:iam/role:Role", "aws:iam/policy:Policy", "aws:iam/instanceProfile:InstanceProfile"})


def stable_uuid(name: str) -> str:
    """A UUID made from ``name`` (version 5): the same on every run."""
    return str(uuid.uuid5(_NAMESPACE, name))


def aws_arn(type_: str, name: str, inputs: dict[str, Any], account: str, region: str) -> str:
    """The ARN of an ``aws:<service>/<resource>:<Class>`` resource called ``name`` (its ``name`` input if set)."""
    module, _, _ = type_.partition(":")[2].partition(":")
    service, _, resource = module.partition("/")
    physical = inputs.get("name") if isinstance(inputs.get("name"), str) else name
    path = _RESOURCE_PATHS.get(type_) or re.sub(r"(?<!^)(?=[A-Z])", "-", resource).lower()
    where = "" if service in _GLOBAL_SERVICES else region
    if type_ == "aws:eks/nodeGroup:NodeGroup":
        cluster = inputs.get("clusterName", "cluster")
        physical = f"{cluster}/{inputs.get('nodeGroupName', name)}/{stable_uuid(name)}"
    return f"arn:aws:{service}:{where}:{account}:{path}/{physical}"


def resource_id(type_: str, name: str, inputs: dict[str, Any]) -> str:
    """The id the engine would record: a UUID for a provider, the name for IAM roles and policies, else
    ``<name>-id`` (the shape tests and users' programs may match on)."""
    if type_.startswith("pulumi:providers:"):
        return stable_uuid(name)
    if type_ in _ID_IS_NAME:
        physical = inputs.get("name")
        return physical if isinstance(physical, str) else name
    return f"{name}-id"
