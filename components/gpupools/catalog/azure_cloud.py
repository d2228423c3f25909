"""Azure (AKS) as a ``Cloud``: the facts that differ from other clouds. Sources: ``docs/sources.md``."""

from __future__ import annotations

from .regions import AZURE_READ_ON, AZURE_SOURCE, Places, azure_locations
from .cloud import Cloud, Extra, FixedFields, KubernetesOffer, PoolNaming, SizeNaming, TagRules
from .clouds import AKS_RUNTIME_CLASS, SYSTEM_POOL_NAME
from .fixed_fields import AKS_AGENT_POOL
from .kubernetes_versions import AKS_LTS_FEE, AKS_MINORS
from .labels import AKS_GPU_LABELS, AKS_SPOT_TAINT
from .names import (
    AZURE_RESERVED_TAG_PREFIXES,
    AZURE_TAG_FORBIDDEN,
    AZURE_TAG_KEY_MAX,
    AZURE_TAG_VALUE_MAX,
    AZURE_VM_SIZE,
)


def _tag_key_problems(key: str) -> list[str]:
    problems = []
    bad = sorted({c for c in key if c in AZURE_TAG_FORBIDDEN})
    if bad:
        problems.append(f"key contains {' '.join(bad)}; Azure tag names cannot contain {AZURE_TAG_FORBIDDEN}")
    if key.lower().startswith(AZURE_RESERVED_TAG_PREFIXES):
        problems.append(f"key starts with a prefix Azure reserves ({', '.join(AZURE_RESERVED_TAG_PREFIXES)})")
    return problems


AZURE = Cloud(
    name="azure",
    display_name="Azure",
    region_field="location",
    provider_region_key="azure-native:location",
    pool_keys=(
        "osSku",
        "maxPods",
        "availabilityZones",
        "capacityReservationGroupId",
        "priority",
        "evictionPolicy",
        "spotMaxPrice",
    ),
    gpu_labels=AKS_GPU_LABELS,
    spot_taints=(AKS_SPOT_TAINT,),
    native_mig_profiles=True,
    preinstalled_runtime_class=AKS_RUNTIME_CLASS,
    facets=(
        # AKS: 12 lowercase letters and digits, no separator; the system pool gpupools creates is ``system``.
        PoolNaming(max_length=12, separator="", reserved=frozenset({SYSTEM_POOL_NAME})),
        SizeNaming(
            "Standard_",
            AZURE_VM_SIZE,
            "an Azure VM size, Standard_ and ASCII letters, digits, '_' and '-', e.g. Standard_ND96asr_v4",
        ),
        TagRules(AZURE_TAG_KEY_MAX, AZURE_TAG_VALUE_MAX, _tag_key_problems),
        KubernetesOffer(
            "AKS",
            AKS_MINORS,
            "LTS",
            long_term_opt_in=True,
            long_term_fee=AKS_LTS_FEE,
            long_term_note="LTS needs the Premium tier and the AKSLongTermSupport plan (aks-docs long-term-support.md)",
            confirm_command="az aks get-versions --location {region}",
        ),
        Places(azure_locations(), AZURE_SOURCE, AZURE_READ_ON),
        FixedFields(tuple(AKS_AGENT_POOL)),
        Extra("azure", "the Azure SDK", ("pulumi_azure_native",)),
    ),
)
