"""From a parsed stack file to a validated ``Stack``: every rule, the placement check and sizing, in one place.

``check``, ``plan``, the stack program and the components all call ``load_stack`` (or, for a component's own
arguments, the rule functions of this package), so they refuse the same configs.
"""

# Each cloud's rules attach to its ``Cloud`` here (``cloud_rules.CloudRules``), before any rule can ask for them.
from . import aws_rules, azure_rules  # noqa: F401

# Each node provisioner's own rules attach to it (``provisioner_rules``).
from . import karpenter_rules  # noqa: F401
from .stack_loader import load_stack

__all__ = ["load_stack"]
