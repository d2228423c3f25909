"""Pulumi mocks that record every resource and function call a program makes, with plausible fake outputs.

``RecordingMocks`` answers the engine's questions (ids, outputs, function results) the way the real
providers would, closely enough for programs that read outputs (cluster names, kubeconfigs, ARNs) to run.
``SafeMockMonitor`` fixes what the stock ``MockMonitor`` gets wrong for this project. It turns off
resource references and output values: with references on, ``ManagedNodeGroup(cluster=cluster)``
fails now and then with "Future ... attached to a different loop", because resource objects rebuilt on an
executor thread bind futures to that thread's event loop. With them off, references reach the mocks as
URNs (components) or ids (custom resources). It answers resource methods such as
``eks.Cluster.get_kubeconfig()`` (``Call``, which the stock monitor lacks) and tells the mocks each
resource's URN and parent.
"""

from __future__ import annotations

import base64
import functools
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import pulumi
from google.protobuf import json_format
from pulumi.runtime import MockCallArgs, MockResourceArgs

from ..pulumi_internals import (
    MockMonitorBase,
    from_wire,
    is_secret,
    is_unknown,
    provider_pb2,
    resolve_callbacks,
    resource_pb2,
    to_wire,
)

SECRET = "[secret]"
UNKNOWN = "[unknown]"

MOCK_ACCOUNT_ID = "123456789012"
MOCK_REGION = "us-east-1"
MOCK_AZURE_LOCATION = "eastus"
# An existing EKS cluster's network as aws.eks.get_cluster reports it (well-formed ids, no real resource).
MOCK_SUBNET_IDS = ("subnet-0000000000000000a", "subnet-0000000000000000b")
MOCK_VPC_ID = "vpc-0000000000000000a"
MOCK_SECURITY_GROUP_ID = "sg-0000000000000000a"
MOCK_KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters:
- name: mock
  cluster: {server: "https://mock-cluster.invalid:443"}
contexts:
- name: mock
  context: {cluster: mock, user: mock}
current-context: mock
users:
- name: mock
  user: {token: mock-token}
"""

# The input holding the physical name, for types whose ``name`` output is not the logical name.
_NAME_INPUTS = {
    "azure-native:resources:ResourceGroup": "resourceGroupName",
    "azure-native:containerservice:ManagedCluster": "resourceName",
    "azure-native:containerservice:AgentPool": "agentPoolName",
}


@dataclass(frozen=True)
class RecordedResource:
    """One ``RegisterResource`` (or ``ReadResource``) as the engine would have seen it.

    ``inputs`` are the wire form: camelCase keys, numbers as floats, and resource references as URNs
    or ids. Each secret becomes ``"[secret]"`` where it sits, and each preview unknown becomes
    ``"[unknown]"``. ``parent`` is the parent's URN, or None for resources parented by the stack.
    ``options`` holds the resource options the request carried that decide what ``pulumi up`` may do
    (see ``resource_options``); options left at their defaults are absent.
    """

    type: str
    name: str
    urn: str
    parent: str | None
    inputs: dict[str, Any]
    provider: str | None
    custom: bool
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RecordedCall:
    """One provider function invoke or resource method call, with its arguments sanitised like inputs."""

    token: str
    args: dict[str, Any]
    provider: str | None


class ParentedResourceArgs(MockResourceArgs):
    """``MockResourceArgs`` plus what the stock monitor drops: the URN, the parent's URN and the options."""

    def __init__(self, *, urn: str, parent: str | None, options: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urn = urn
        self.parent = parent
        self.options: dict[str, Any] = options or {}


def resource_options(request: Any) -> dict[str, Any]:
    """The options of a ``RegisterResource`` (or ``ReadResource``) request that matter for safety, non-default only.

    ``replaceOnChanges``, ``ignoreChanges``, ``additionalSecretOutputs`` and ``dependencies`` (URNs) are
    lists; ``deleteBeforeReplace``, ``protect`` and ``retainOnDelete`` are bools (present when set, even
    to false); ``deletedWith`` is a URN; ``provider`` is a provider reference (``<urn>::<id>``) and
    ``providers`` maps packages to references (components).
    """
    options: dict[str, Any] = {}
    fields = _field_names(request.DESCRIPTOR)
    for name in ("replaceOnChanges", "ignoreChanges", "additionalSecretOutputs"):
        if name in fields and list(getattr(request, name)):
            options[name] = list(getattr(request, name))
    if request.dependencies:  # the SDK gathers them in a set: sorted, so dumps are stable run to run
        options["dependencies"] = sorted(request.dependencies)
    if "deleteBeforeReplace" in fields and (request.deleteBeforeReplace or request.deleteBeforeReplaceDefined):
        options["deleteBeforeReplace"] = bool(request.deleteBeforeReplace)
    for name in ("protect", "retainOnDelete"):
        if name in fields and request.HasField(name):
            options[name] = bool(getattr(request, name))
    if "deletedWith" in fields and request.deletedWith:
        options["deletedWith"] = request.deletedWith
    if request.provider:
        options["provider"] = request.provider
    if "providers" in fields and request.providers:
        options["providers"] = dict(request.providers)
    if "aliases" in fields and request.aliases:  # the earlier names this resource answers to (plan/aliases.py)
        options["aliases"] = [_alias(alias) for alias in request.aliases]
    return options


def _alias(alias: Any) -> dict[str, Any]:
    """An alias as the request carries it: a URN, or the spec's parts that are set (name, type, parent...)."""
    if alias.WhichOneof("alias") == "urn":
        return {"urn": alias.urn}
    spec = alias.spec
    return {name: value for name, value in ((f.name, getattr(spec, f.name)) for f in spec.DESCRIPTOR.fields) if value}


@functools.cache
def _field_names(descriptor: Any) -> frozenset[str]:
    """The fields a request message has (``ReadResourceRequest`` lacks some of ``RegisterResourceRequest``'s)."""
    return frozenset(field.name for field in descriptor.fields)


def sanitize(value: Any) -> Any:
    """Replaces secrets with ``"[secret]"`` and preview unknowns with ``"[unknown]"``, deeply."""
    kind = type(value)  # the wire form's own types first: every input of every resource passes here
    if kind is str:
        return UNKNOWN if is_unknown(value) else value
    if kind is dict:
        return SECRET if is_secret(value) else {key: sanitize(item) for key, item in value.items()}
    if kind is list:
        return [sanitize(item) for item in value]
    if is_secret(value):
        return SECRET
    if is_unknown(value):
        return UNKNOWN
    if isinstance(value, dict):
        return {key: sanitize(item) for key, item in value.items()}
    if isinstance(value, list):
        return [sanitize(item) for item in value]
    return value


def computed_outputs(type_: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Outputs a real provider would compute, for the few that programs commonly read."""
    physical = inputs.get(_NAME_INPUTS.get(type_, ""), name)
    if type_ == "azure-native:containerservice:ManagedCluster":
        location = inputs.get("location", MOCK_AZURE_LOCATION)
        return {
            "name": physical,
            "fqdn": f"{physical}-dns.hcp.{location}.azmk8s.io",
            "nodeResourceGroup": f"MC_{inputs.get('resourceGroupName', 'rg')}_{physical}_{location}",
            "provisioningState": "Succeeded",
            **_cluster_identity(inputs.get("identity")),
        }
    if type_ == "azure-native:managedidentity:UserAssignedIdentity":
        return {"name": physical, "principalId": f"{name}-principal", "clientId": f"{name}-client"}
    if type_.startswith("azure-native:"):
        return {"name": physical}
    if type_ == "eks:index:Cluster":
        return {"kubeconfigJson": json.dumps({"mock": MOCK_KUBECONFIG}), "kubeconfig": {"mock": MOCK_KUBECONFIG}}
    if type_.startswith("aws:"):
        service = type_.split(":")[1].split("/")[0]
        return {"arn": f"arn:aws:{service}:{MOCK_REGION}:{MOCK_ACCOUNT_ID}:{name}", "name": inputs.get("name", name)}
    if type_.startswith("kubernetes:") and isinstance(inputs.get("metadata", {}), dict):
        return {"metadata": {"name": name, **inputs.get("metadata", {})}}
    return {}


def _cluster_identity(identity: Any) -> dict[str, Any]:
    """The identity output: the provider takes user-assigned identities as a list of ids and returns a map by id."""
    if not isinstance(identity, dict) or not isinstance(identity.get("userAssignedIdentities"), list):
        return {}
    ids = identity["userAssignedIdentities"]
    return {"identity": {**identity, "userAssignedIdentities": {i: {"principalId": f"{i}-principal"} for i in ids}}}


def call_result(token: str, args: dict[str, Any]) -> dict[str, Any]:
    """Fake results for the provider functions this project calls; ``{}`` for anything else."""
    if token == "azure-native:containerservice:listManagedClusterUserCredentials":
        kubeconfig = base64.b64encode(MOCK_KUBECONFIG.encode()).decode()
        return {"kubeconfigs": [{"name": "clusterUser", "value": kubeconfig}]}
    if token == "azure-native:containerservice:getManagedCluster":
        name = args.get("resourceName", "cluster")
        return {
            "name": name,
            "location": MOCK_AZURE_LOCATION,
            "fqdn": f"{name}-dns.hcp.{MOCK_AZURE_LOCATION}.azmk8s.io",
            "kubernetesVersion": "1.33",
            "agentPoolProfiles": [],
        }
    if token == "aws:index/getCallerIdentity:getCallerIdentity":
        return {
            "accountId": MOCK_ACCOUNT_ID,
            "arn": f"arn:aws:iam::{MOCK_ACCOUNT_ID}:user/mock",
            "userId": "AIDAMOCK",
            "id": MOCK_ACCOUNT_ID,
        }
    if token == "aws:index/getRegion:getRegion":
        return {
            "name": MOCK_REGION,
            "region": MOCK_REGION,
            "id": MOCK_REGION,
            "endpoint": f"ec2.{MOCK_REGION}.amazonaws.com",
        }
    if token == "aws:iam/getPolicyDocument:getPolicyDocument":
        return {"json": "{}", "minifiedJson": "{}"}
    if token == "aws:eks/getCluster:getCluster":
        name = args.get("name", "cluster")
        return {
            "name": name,
            "id": name,
            "endpoint": f"https://{name}.gr7.{MOCK_REGION}.eks.amazonaws.com",
            "arn": f"arn:aws:eks:{MOCK_REGION}:{MOCK_ACCOUNT_ID}:cluster/{name}",
            "certificateAuthorities": [{"data": base64.b64encode(b"mock-ca").decode()}],
            "version": "1.33",
            # What a team stack's node groups take from an existing cluster: its subnets, VPC and security group.
            "vpcConfig": {
                "subnetIds": list(MOCK_SUBNET_IDS),
                "vpcId": MOCK_VPC_ID,
                "clusterSecurityGroupId": MOCK_SECURITY_GROUP_ID,
            },
            "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.{MOCK_REGION}.amazonaws.com/id/MOCK"}]}],
        }
    if token == "eks:index:Cluster/getKubeconfig":
        return {"result": MOCK_KUBECONFIG}
    return {}


class RecordingMocks(pulumi.runtime.Mocks):
    """Records each resource and call; ids are ``"<name>-id"`` and state is the inputs plus computed outputs."""

    def __init__(self) -> None:
        self.resources: list[RecordedResource] = []
        self.calls: list[RecordedCall] = []

    def new_resource(self, args: MockResourceArgs) -> tuple[str, dict[str, Any]]:
        inputs = sanitize(args.inputs)
        self.resources.append(
            RecordedResource(
                type=args.typ,
                name=args.name,
                urn=getattr(args, "urn", ""),
                parent=getattr(args, "parent", None),
                inputs=inputs,
                provider=args.provider or None,
                custom=bool(args.custom),
                options=dict(getattr(args, "options", {})),
            )
        )
        # Secrets and unknowns stay as they are in the returned state, so the program sees them as such.
        return f"{args.name}-id", {**args.inputs, **computed_outputs(args.typ, args.name, inputs)}

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        self.calls.append(RecordedCall(token=args.token, args=sanitize(args.args), provider=args.provider or None))
        return call_result(args.token, args.args), []


class SafeMockMonitor(MockMonitorBase):
    """A ``MockMonitor`` that behaves more like the engine; see the module docstring.

    Beyond the stock monitor it computes URNs by the engine's rule (the parent's whole qualified type,
    without the root stack), fails on a duplicate URN as ``pulumi up`` would, and hands resource inputs
    to the mocks in wire form: secrets stay wrapped where they sit instead of making the whole top-level
    property secret, and preview unknowns are the ``rpc.UNKNOWN`` sentinel.
    """

    _DISABLED_FEATURES = frozenset({"outputValues", "resourceReferences"})

    def __init__(self, mocks: pulumi.runtime.Mocks) -> None:
        super().__init__(mocks)
        self._lock = threading.Lock()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        if self._parent(parent):
            type_ = f"{parent.split('::')[2]}${type_}"
        return f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::{type_}::{name}"

    def SupportsFeature(self, request: resource_pb2.SupportsFeatureRequest) -> Any:
        has_support = request.id not in self._DISABLED_FEATURES
        return type("SupportsFeatureResponse", (object,), {"hasSupport": has_support})

    def GetDeploymentInfo(self, request: Any) -> resource_pb2.DeploymentInfo:
        features = self.stock_features(request)
        return resource_pb2.DeploymentInfo(
            supportedFeatures=[f for f in features if f != resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES]
        )

    def Call(self, request: resource_pb2.ResourceCallRequest) -> provider_pb2.CallResponse:
        args = from_wire(request.args)
        answer = self.mocks.call(MockCallArgs(token=request.tok, args=args, provider=request.provider))
        result, failures = (answer, []) if isinstance(answer, dict) else answer
        return provider_pb2.CallResponse(
            **{
                "return": to_wire(result),
                "failures": [provider_pb2.CheckFailure(property=p, reason=r) for p, r in failures or []],
            }
        )

    def RegisterResource(self, request: resource_pb2.RegisterResourceRequest) -> resource_pb2.RegisterResourceResponse:
        urn = self.make_urn(request.parent, request.type, request.name)
        if request.type == "pulumi:pulumi:Stack":
            return resource_pb2.RegisterResourceResponse(urn=urn)
        with self._lock:
            if self.is_registered(urn):
                raise ValueError(f"Duplicate resource URN '{urn}'; try giving it a unique name")
            self.remember(urn, "", {})
        id_, state = self._new_resource(
            urn,
            request,
            request.object,
            request.importId,
            request.custom,
            transforms=resolve_callbacks(request.transforms),
        )
        # proto3: an unset id and "" are the same.
        return resource_pb2.RegisterResourceResponse(urn=urn, id=id_ or "", object=to_wire(state))

    def _new_resource(
        self, urn: str, request: Any, properties: Any, resource_id: str, custom: bool, **extra: Any
    ) -> tuple[str | None, dict[str, Any]]:
        """Asks the mocks for a registered or read resource's id and state, and remembers them (a mock may give
        None for the id, as ``pulumi.runtime.Mocks.new_resource`` allows)."""
        id_, state = self.mocks.new_resource(
            ParentedResourceArgs(
                urn=urn,
                parent=self._parent(request.parent),
                typ=request.type,
                name=request.name,
                options=resource_options(request),
                inputs=json_format.MessageToDict(properties),
                provider=request.provider,
                resource_id=resource_id,
                custom=custom,
                **extra,
            )
        )
        self.remember(urn, id_, state)
        return id_, state

    def ReadResource(self, request: resource_pb2.ReadResourceRequest) -> resource_pb2.ReadResourceResponse:
        urn = self.make_urn(request.parent, request.type, request.name)
        id_, state = self._new_resource(urn, request, request.properties, request.id, True)
        return resource_pb2.ReadResourceResponse(urn=urn, properties=to_wire(state))

    @staticmethod
    def _parent(parent_urn: str) -> str | None:
        """The stack is every resource's implicit root, so being its child counts as having no parent."""
        return None if not parent_urn or parent_urn.split("::")[2] == "pulumi:pulumi:Stack" else parent_urn
