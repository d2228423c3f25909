"""``gpupools check``: validation and the capacity table, no Pulumi involved."""

from __future__ import annotations

import json

from ..domain.capacity import stack_capacity
from ..domain.capacity_inputs import stack_capacity_inputs
from ..fit.stack_demand import check_lines
from ..domain.mig_drawing import stack_picture
from ..resolve.stack_loader import load_stack
from ..config.loading import StackFile
from ..untrusted.text import terminal_safe
from .pictures import print_layouts
from .render import capacity_lines, markdown_capacity


def print_lines(lines: list[str]) -> None:
    """Text output, one line per line: whatever a value holds (ESC, CR, U+202E) is shown escaped."""
    print("\n".join(terminal_safe(line) for line in "\n".join(lines).split("\n")))


def run_check(stack_file: StackFile, output_format: str, ascii_only: bool = False) -> int:
    stack = load_stack(stack_file.config)
    capacity, inputs = stack_capacity(stack.pools), stack_capacity_inputs(stack)
    warnings = stack.warnings + check_lines(stack, stack_file, capacity)  # gpupools:demand, read as plan reads it
    if output_format == "json":
        print(
            json.dumps(
                {
                    "stack": stack_file.stack,
                    "cloud": stack.cloud,
                    "capacity": [pool.to_json() for pool in capacity],
                    "capacityInputs": [pool.to_json() for pool in inputs],
                    "warnings": warnings,
                },
                indent=2,
                allow_nan=False,  # a number that is not finite is a bug to report, not JSON to print
            )
        )
    elif output_format == "markdown":
        print_lines(
            [f"### Stack `{stack_file.stack}` ({stack.cloud}): config valid", ""]
            + markdown_capacity(capacity, warnings, inputs)
        )
    else:
        print_lines(
            [f"stack {stack_file.stack} ({stack.cloud}): config valid"] + capacity_lines(capacity, warnings, inputs)
        )
        print_layouts(stack_picture(stack.pools), ascii_only, "MIG layouts (each distinct GPU layout once):")
    return 0
