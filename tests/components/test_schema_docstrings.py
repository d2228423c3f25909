"""The typed args' docstrings become the multi-language schema: where a docstring lists the values a field
takes, it lists exactly the values the rules accept (the catalog's tables and the config's enums), names the
default the rules apply, and names no refused value as if it were allowed.

Docstrings are read from the source the way Pulumi's analyzer reads them: the string right after a field.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from typing import get_args

import pytest

from gpupools.catalog import clouds
from gpupools.catalog.chart_refs import CLUSTER_AUTOSCALER_EXPANDERS, DEFAULT_EXPANDER
from gpupools.catalog.installers import INSTALLERS
from gpupools.config.models import GpuPoolConfig, GpuSoftware, MigStrategy, Rotation


def _field_docs(cls: type) -> dict[str, str]:
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    docs = {}
    for field, doc in zip(body, body[1:]):
        if isinstance(field, ast.AnnAssign) and isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant):
            docs[field.target.id] = doc.value.value
    return docs


def _literal(model, name: str) -> tuple[str, ...]:
    """The values of an optional Literal field (``Literal[...] | None``)."""
    return tuple(
        value
        for member in get_args(model.model_fields[name].annotation)
        for value in get_args(member)
        if value is not None
    )


def _platform_pool():
    from gpupools.platform.args import GpuPoolArgs

    return GpuPoolArgs


def _platform_software():
    from gpupools.platform.args import GpuSoftwareArgs

    return GpuSoftwareArgs


def _platform_autoscaler():
    from gpupools.platform.args import ClusterAutoscalerSettingsArgs

    return ClusterAutoscalerSettingsArgs


def _aks_pool():
    pytest.importorskip("pulumi_azure_native")
    from gpupools.azure.gpu_pool import AksGpuPoolArgs

    return AksGpuPoolArgs


def _eks_group():
    pytest.importorskip("pulumi_eks")
    from gpupools.aws.gpu_node_group import EksGpuNodeGroupArgs

    return EksGpuNodeGroupArgs


def _autoscaler():
    from gpupools.kubernetes.cluster_autoscaler import ClusterAutoscalerArgs

    return ClusterAutoscalerArgs


# (args class, field, allowed values, default or None, refused values)
CASES = [
    (_platform_pool, "os_sku", clouds.OS_SKUS, clouds.DEFAULT_OS_SKU, tuple(clouds.REFUSED_OS_SKUS)),
    (_platform_pool, "ami_type", clouds.AMI_TYPES, clouds.DEFAULT_AMI_TYPE, tuple(clouds.REFUSED_AMI_TYPES)),
    (_platform_pool, "priority", _literal(GpuPoolConfig, "priority"), "Regular", ()),
    (_platform_pool, "eviction_policy", _literal(GpuPoolConfig, "eviction_policy"), "Delete", ()),
    (_platform_pool, "capacity_type", _literal(GpuPoolConfig, "capacity_type"), None, ()),
    (_platform_pool, "rotation", get_args(Rotation), None, ()),
    (_platform_software, "installer", tuple(INSTALLERS), None, ()),
    (_platform_software, "mig_strategy", get_args(MigStrategy), GpuSoftware.model_fields["mig_strategy"].default, ()),
    (_platform_software, "driver", _literal(GpuSoftware, "driver"), "preinstalled", ()),
    (_platform_autoscaler, "expander", CLUSTER_AUTOSCALER_EXPANDERS, DEFAULT_EXPANDER, ()),
    (_aks_pool, "os_sku", clouds.OS_SKUS, clouds.DEFAULT_OS_SKU, tuple(clouds.REFUSED_OS_SKUS)),
    (_aks_pool, "gpu_instance_profile", clouds.AKS_GPU_INSTANCE_PROFILES, None, ()),
    (_aks_pool, "scale_set_priority", _literal(GpuPoolConfig, "priority"), "Regular", ()),
    (_aks_pool, "scale_set_eviction_policy", _literal(GpuPoolConfig, "eviction_policy"), None, ()),
    (_eks_group, "ami_type", clouds.AMI_TYPES, clouds.DEFAULT_AMI_TYPE, tuple(clouds.REFUSED_AMI_TYPES)),
    (_eks_group, "capacity_type", _literal(GpuPoolConfig, "capacity_type"), None, ()),
    (_autoscaler, "expander", CLUSTER_AUTOSCALER_EXPANDERS, DEFAULT_EXPANDER, ()),
]


@pytest.mark.parametrize(
    "args, field, allowed, default, refused", CASES, ids=[f"{case[0].__name__.strip('_')}.{case[1]}" for case in CASES]
)
def test_a_docstring_lists_what_the_rules_accept(args, field, allowed, default, refused):
    doc = _field_docs(args())[field]
    words = set(re.findall(r"[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]", doc))
    assert set(allowed) <= words, f"{field}: {doc!r} does not list {sorted(set(allowed) - words)}"
    assert not words & set(refused), f"{field}: {doc!r} names refused {sorted(words & set(refused))}"
    if default is not None:
        assert f"{default} (default" in doc, f"{field}: {doc!r} does not name the default {default}"


def test_the_check_sees_a_wrong_docstring():
    """The helper reads docstrings the analyzer's way: a stale list would be caught."""

    class Stale:
        ami_type: str
        """AL2023_x86_64_NVIDIA (default) or AL2023_x86_64_STANDARD."""

    words = set(re.findall(r"[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]", _field_docs(Stale)["ami_type"]))
    assert words & set(clouds.REFUSED_AMI_TYPES) == {"AL2023_x86_64_STANDARD"}
