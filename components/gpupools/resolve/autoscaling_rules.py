"""Whether an autoscaled pool's node-template tags fit its cloud's tag limits (``domain.node_templates`` builds them).

Checked once by ``load_stack``, through each cloud's ``CloudRules.template_tag_problems``; the AKS and EKS
autoscaling rules proper live in ``azure_rules`` and ``aws_rules``.
"""

from __future__ import annotations

from typing import Mapping

from ..catalog.names import AWS_TAG_KEY_MAX, AZURE_TAG_KEY_MAX, MAX_TAGS
from ..domain.node_templates import (
    AWS_TEMPLATE_TAG_BUDGET,
    EKS_OWN_ASG_TAGS,
    aws_asg_tags,
    azure_vmss_tags,
    pool_node_template,
)
from ..domain.pools import ResolvedPool


def aws_template_tag_problems(pool: ResolvedPool, cluster: str, stack_tags: Mapping[str, str]) -> list[str]:
    """Why the pool's Auto Scaling group template tags cannot be set: a tag limit of AWS."""
    tags = aws_asg_tags(pool_node_template(pool), cluster)
    problems = [
        f"the autoscaler tag '{key[:60]}...' has {len(key)} characters; AWS allows {AWS_TAG_KEY_MAX} "
        "(shorten the label key)"
        for key in tags
        if len(key) > AWS_TAG_KEY_MAX
    ]
    if len(tags) > AWS_TEMPLATE_TAG_BUDGET:
        problems.append(
            f"needs {len(tags)} Auto Scaling group tags (2 for discovery, one per resource, "
            f"nvidia.com/gpu included, label and taint); AWS allows {MAX_TAGS} per group and EKS sets "
            f"{EKS_OWN_ASG_TAGS} itself: remove {len(tags) - AWS_TEMPLATE_TAG_BUDGET} labels"
        )
    return problems


def azure_template_tag_problems(pool: ResolvedPool, cluster: str, stack_tags: Mapping[str, str]) -> list[str]:
    """Why the pool's VMSS template tags cannot be set: a tag limit of Azure, or a name Azure cannot encode."""
    template = pool_node_template(pool)
    unencodable = [name for name in template.resources if "_" in name]
    if unencodable:
        return [f"resource {', '.join(unencodable)} has '_', which the Azure autoscaler decodes as '/'"]
    tags = {**stack_tags, **azure_vmss_tags(template)}
    problems = [
        f"the autoscaler tag '{key[:60]}...' has {len(key)} characters; Azure allows {AZURE_TAG_KEY_MAX}"
        for key in tags
        if len(key) > AZURE_TAG_KEY_MAX
    ]
    if len(tags) > MAX_TAGS:
        problems.append(
            f"needs {len(tags)} node pool tags (gpupools:tags plus one per template resource, label and "
            f"taint); Azure allows {MAX_TAGS} per resource: remove {len(tags) - MAX_TAGS} labels or tags"
        )
    return problems
