"""The CLI's ``plan`` with one program run per exact stack file, for tests that print one stack in several formats."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def one_program_run_per_stack_file() -> Iterator[None]:
    """Inside, ``gpupools plan`` runs the program once per exact stack file (path, stack, config, secret keys) and
    prints a copy of that one plan in each format asked for (text, ``--json``, ``--format markdown``, with or without
    ``--base``): what each format prints is still the CLI's; that the program gives the same plan every run is
    tests/plan/test_determinism.py's."""
    from gpupools.cli import plan as plan_command

    planned = plan_command.plan_stack
    plans: dict[tuple[str, ...], object] = {}

    def plan_once(stack_file):
        key = (str(stack_file.path), stack_file.stack, repr(stack_file.config), repr(sorted(stack_file.secret_keys)))
        if key not in plans:
            plans[key] = planned(stack_file)
        return copy.deepcopy(plans[key])

    plan_command.plan_stack = plan_once
    try:
        yield
    finally:
        plan_command.plan_stack = planned
