"""The provider's Construct with hostile args, as a command: ``python -m support.hostile_provider <case>``.

The provider has no command line of its own (the engine calls it over gRPC), so the hostile catalogue runs each
case through this driver: the component constructed by ``GpuPoolsProvider.construct`` under the offline runtime,
as the engine would send it (integers as floats, secrets and outputs where they sit). A refusal of ours
(``GpupoolsError``, the SDK's ``InputPropertyError``, a component's error in the schema's names) is one
``error:`` line and exit 2; anything else is ``internal error`` and exit 1, which the catalogue counts as a failure.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

ARGS_ERROR = re.compile(r"^[A-Z]\w+\('[^']*'\) ")  # ComponentArgsError's shape, after the provider renamed its fields


def _pool(**extra: Any) -> dict[str, Any]:
    return {
        "clusterName": "gpu-dev",
        "resourceGroupName": "gpu-dev-rg",
        "poolName": "mig1g",
        "vmSize": "Standard_ND96asr_v4",
        "count": 1.0,
        **extra,
    }


def _group(**extra: Any) -> dict[str, Any]:
    return {
        "clusterName": "gpu-eks",
        "subnetIds": ["subnet-0123456789abcdef0"],
        "nodeRoleArn": "arn:aws:iam::123456789012:role/gpu-eks-nodes",
        "nodeGroupName": "a100",
        "instanceType": "p4d.24xlarge",
        "desiredSize": 1.0,
        **extra,
    }


def _plugin(values: Any) -> dict[str, Any]:
    return {"version": "0.17.1", "namespace": "nvidia-device-plugin", "values": values}


def _deep(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def _secret(value: Any) -> Any:
    import pulumi

    return pulumi.Output.secret(value)


def _output(value: Any) -> Any:
    import pulumi

    return pulumi.Output.from_input(value)


def cases() -> dict[str, tuple[str, Callable[[], dict[str, Any]], frozenset[int]]]:
    """Case name -> (component, inputs made inside the program, the exits that are right). Imports no Pulumi."""
    refused, accepted = frozenset({2}), frozenset({0})
    return {
        "count output -1": ("AksGpuPool", lambda: _pool(count=_output(-1.0)), refused),
        "count secret 2": ("AksGpuPool", lambda: _pool(count=_secret(2.0)), accepted),
        "count 1.5": ("AksGpuPool", lambda: _pool(count=1.5), refused),
        "snake_case key": ("AksGpuPool", lambda: _pool(node_labels={"a": "b"}), refused),
        "unknown key": ("AksGpuPool", lambda: _pool(zzz=1), refused),
        "unknown type": ("AksGpuPol", lambda: {}, refused),
        "values 5000 deep": ("NvidiaDevicePlugin", lambda: _plugin(_deep(5000)), refused),
        "values NaN": ("NvidiaDevicePlugin", lambda: _plugin({"a": float("nan")}), refused),
        "p4d mig label": ("EksGpuNodeGroup", lambda: _group(labels={"nvidia.com/mig.config": "all-4g.40gb"}), refused),
        "p4d mig label secret": (
            "EksGpuNodeGroup",
            lambda: _group(labels={"nvidia.com/mig.config": _secret("all-4g.40gb")}),
            refused,
        ),
        "subnet output 5": (
            "EksGpuNodeGroup",
            lambda: _group(subnetIds=[_output("subnet-0123456789abcdef0"), _secret(5)]),
            refused,
        ),
        "taint secret list": (
            "EksGpuNodeGroup",
            lambda: _group(taints=_secret([{"key": "gpu", "value": "x", "effect": "Never"}])),
            refused,
        ),
        "good secrets nested": (
            "EksGpuNodeGroup",
            lambda: _group(
                labels={"team": _secret("ml")},
                taints=[_secret({"key": "gpu", "value": "x", "effect": "NoSchedule"})],
            ),
            accepted,
        ),
    }


def main(argv: list[str]) -> int:
    from gpupools._version import __version__
    from gpupools.errors import GpupoolsError
    from gpupools.provider import COMPONENTS, PACKAGE_NAME, GpuPoolsProvider
    from gpupools.pulumi_internals.provider_host import ComponentInitError, InputPropertyError
    from gpupools.testing import RecordingMocks, run_program
    from gpupools.untrusted.text import shown

    component, inputs, _ = cases()[argv[0]]
    provider = GpuPoolsProvider(COMPONENTS, PACKAGE_NAME, __version__)

    def program() -> None:
        provider.construct("gpu", f"{PACKAGE_NAME}:index:{component}", inputs())

    try:
        run_program(program, project="hostile", stack="test", config={}, mocks=RecordingMocks())
    except Exception as error:  # noqa: BLE001 (sorted below into ours and not ours)
        ours = _ours(error, (GpupoolsError, InputPropertyError), ComponentInitError)
        if ours is None:
            print(f"internal error: {type(error).__name__}: {shown(str(error))[:300]}", file=sys.stderr)
            return 1
        print(f"error: {shown(ours)}", file=sys.stderr)
        return 2
    return 0


def _ours(error: BaseException, kinds: tuple[type, ...], wrapper: type) -> str | None:
    """The text of our refusal anywhere in ``error``'s chain (Pulumi wraps a registration's error), as the engine
    would show it (an ``InputPropertyError``'s reason, a ``ComponentInitError``'s text), else None."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, wrapper):
            inner = getattr(seen, "inner", None)
            if isinstance(inner, kinds) or ARGS_ERROR.match(str(inner)):
                return str(seen).splitlines()[0]
        if isinstance(seen, kinds):
            return str(getattr(seen, "reason", None) or seen).splitlines()[0]
        if isinstance(seen, ValueError) and "is not a gpupools component" in str(seen):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    return None


if __name__ == "__main__":  # run as ``python -m support.hostile_provider`` with ``tests/`` on the path
    sys.exit(main(sys.argv[1:]))
