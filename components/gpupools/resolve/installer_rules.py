"""Each installer's stack-file rules, attached to its ``Installer`` object (``catalog.installers``).

``config_findings`` asks the chosen installer for its rules, so a new installer brings its own (or fails with
"stack-file rules is not supported by installer <name>") instead of running another installer's.
"""

from __future__ import annotations

from typing import Callable

from ..catalog.installers import DEVICE_PLUGIN, DRA_DRIVER, GPU_OPERATOR, Capability
from ..config.errors import Findings
from ..config.models import StackConfig
from . import dra_rules

StackRules = Callable[[StackConfig], Findings]
STACK_RULES: Capability[StackRules] = Capability("stack-file rules")

DEVICE_PLUGIN.attach(STACK_RULES, dra_rules.gates_elsewhere_findings)
GPU_OPERATOR.attach(STACK_RULES, dra_rules.gates_elsewhere_findings)
DRA_DRIVER.attach(STACK_RULES, dra_rules.config_findings)


def config_findings(config: StackConfig) -> Findings:
    """The findings of the stack's installer's own rules."""
    return config.gpu_software.chosen_installer.facet(STACK_RULES)(config)
