"""The offline plan: the real stack program run under Pulumi's mock runtime, with what it registered.

Config is validated first, so bad input exits before any resource is registered. The program is the one
``pulumi up`` would run (``project.program_location``): the project's own when a ``Pulumi.yaml`` is at or above
the stack file, the packaged one (``gpupools.platform.program``) for a lone stack file.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from typing import Any

from ..catalog.clock import PlanDate
from ..catalog.extras import require_extra
from ..domain.node_templates import AutoscaledPool, autoscaled_pools
from ..domain.capacity import PoolCapacity, stack_capacity
from ..domain.capacity_inputs import CapacityInputs, stack_capacity_inputs
from ..domain.cost import StackCost, stack_cost
from ..domain.dra import DraDevice, published_by_pool
from ..domain.mig_drawing import Picture, stack_picture
from ..resolve.stack_loader import validated_once
from ..config.errors import NAMESPACE, ConfigError
from ..config.loading import StackFile
from ..domain.stack import Placement
from .project import program_location

__all__ = ["Plan", "plan_stack", "program_location", "pulumi_config_values"]


@dataclass(frozen=True)
class Plan:
    """What a stack would create: resources (type, name, parent, inputs), capacity, warnings, outputs."""

    stack: str
    cloud: str
    resources: list[dict[str, Any]]
    capacity: list[PoolCapacity]
    warnings: list[str]
    outputs: dict[str, Any]
    placements: list[Placement]
    autoscaling: list[AutoscaledPool] = field(default_factory=list)
    cost: StackCost | None = None
    # installer dra-driver only: per pool, the devices NVIDIA's DRA driver publishes on each node.
    dra_devices: dict[str, list[DraDevice]] = field(default_factory=dict)
    capacity_inputs: list[CapacityInputs] = field(default_factory=list)
    on: PlanDate | None = None  # the date dated facts were compared with (catalog/clock.py)
    picture: Picture = field(default_factory=lambda: Picture(()))  # every pool's GPUs and MIG layouts, to draw

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "cloud": self.cloud,
            **({"planDate": self.on.to_json()} if self.on else {}),
            "resources": self.resources,
            "capacity": [pool.to_json() for pool in self.capacity],
            "capacityInputs": [pool.to_json() for pool in self.capacity_inputs],
            "warnings": self.warnings,
            "placements": [
                {
                    "pool": p.pool,
                    "daemonset": p.daemonset,
                    "schedules": p.schedules,
                    "expected": p.expected,
                    "reason": p.reason,
                }
                for p in self.placements
            ],
            "autoscaling": [row.to_json() for row in self.autoscaling],
            **({"draDevices": self.dra_devices_json()} if self.dra_devices else {}),
            "outputs": self.outputs,
            **({"cost": self.cost.to_json()} if self.cost else {}),
            "gpuLayouts": [pool.to_json() for pool in self.picture.pools],
        }

    def dra_devices_json(self) -> dict[str, list[dict[str, Any]]]:
        return {pool: [device.to_json() for device in devices] for pool, devices in self.dra_devices.items()}


def plan_stack(stack_file: StackFile) -> Plan:
    """Validate, then run the program offline; raises ``ConfigError`` before running it on bad config."""
    # Also refuses a stack whose NVIDIA daemonsets would be misplaced. The program validates its config with
    # load_stack too: inside this block that is this very Stack, so a plan validates its config once.
    with validated_once(stack_file.config) as stack:
        require_extra(stack.cloud, f"stack {stack_file.stack} on {stack.cloud}")
        from ..offline_runtime.runner import dump_resources, run_program  # loads Pulumi only once config is known good

        project, program = program_location(stack_file.path)
        with _without_engine_environment(), redirect_stdout(sys.stderr):  # the program's print() is not the plan
            try:
                run = run_program(
                    program,
                    project=project,
                    stack=stack_file.stack,
                    config=pulumi_config_values(stack_file.config),
                    secret_keys=stack_file.secret_keys,
                )
            except Exception as error:
                if callable(program) or isinstance(error, ConfigError):
                    raise  # the packaged program's failure is gpupools'; a config error is already the user's
                from ..offline_runtime.program_errors import program_failed

                raise program_failed(error, program) from error
    from ..price_lists.book import current_price_book  # the local price cache, else the packaged snapshot

    capacity = stack_capacity(stack.pools)
    book = current_price_book()
    demand: list[str] = []
    if stack.config.demand is not None:  # gpupools:demand: do the pools still hold it, and what is optimal
        from ..fit.stack_demand import demand_lines

        demand = demand_lines(stack, stack_file, capacity, book)
    return Plan(
        stack_file.stack,
        stack.cloud,
        dump_resources(run),
        capacity,
        stack.warnings + demand,
        run.outputs,
        stack.placements,
        autoscaled_pools(stack),
        stack_cost(stack, capacity, book),
        published_by_pool(stack),
        stack_capacity_inputs(stack),
        stack.on,
        stack_picture(stack.pools),
    )


# Set by the Pulumi engine for a real deployment; an offline plan takes its config from the stack file alone.
ENGINE_VARIABLES = ("PULUMI_CONFIG", "PULUMI_CONFIG_SECRET_KEYS")


@contextmanager
def _without_engine_environment() -> Iterator[None]:
    """The engine's config variables hidden while the program runs under mocks, then restored."""
    saved = {name: os.environ.pop(name) for name in ENGINE_VARIABLES if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def pulumi_config_values(config: dict[str, Any]) -> dict[str, str]:
    """Config as the Pulumi CLI hands it to a program: strings as they are, everything else as JSON text.

    Only ``gpupools:`` values (already validated) are passed whole. Other namespaces belong to providers
    that do not run offline: their plain scalars pass as text (``azure-native:location``, ``aws:region``)
    and their objects and lists are left out, so nothing this program does not own is serialised.
    """
    values: dict[str, str] = {}
    for key, value in config.items():
        if key.startswith(f"{NAMESPACE}:") or ":" not in key:
            values[key] = value if isinstance(value, str) else json.dumps(value)
        elif isinstance(value, str):
            values[key] = value
        elif isinstance(value, (bool, int, float)):
            values[key] = json.dumps(value)  # the text Pulumi gives a program for an unquoted YAML scalar
    return values
