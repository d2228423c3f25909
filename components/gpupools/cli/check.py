"""``gpupools check``: validation and the capacity table, no Pulumi involved."""

from __future__ import annotations

from typing import TextIO

from ..domain.capacity import stack_capacity
from ..domain.capacity_inputs import stack_capacity_inputs
from ..fit.stack_demand import check_lines
from ..domain.mig_drawing import stack_picture
from ..resolve.stack_loader import load_stack
from ..config.loading import StackFile
from ..untrusted.text import json_text, markdown_safe, shown
from .pictures import print_layouts
from .render import capacity_lines, markdown_capacity


def print_lines(lines: list[str], file: TextIO | None = None) -> None:
    """A report (text or Markdown), each item one line: whatever a value holds (a line break, ESC, CR, U+202E) is
    shown escaped, so no value can forge a line, and a line longer than ``MAX_LINE_CHARS`` is cut saying so.
    ``file``: stdout when None (``fit --kueue`` sends its report to stderr)."""
    print("\n".join(shown(line, cut_values=False) for line in lines), file=file)


def run_check(stack_file: StackFile, output_format: str, ascii_only: bool = False) -> int:
    stack = load_stack(stack_file.config)
    capacity, inputs = stack_capacity(stack.pools), stack_capacity_inputs(stack)
    warnings = stack.warnings + check_lines(stack, stack_file, capacity)  # gpupools:demand, read as plan reads it
    if output_format == "json":
        print(
            json_text(
                {
                    "stack": stack_file.stack,
                    "cloud": stack.cloud,
                    "capacity": [pool.to_json() for pool in capacity],
                    "capacityInputs": [pool.to_json() for pool in inputs],
                    "warnings": warnings,
                },
            )
        )
    elif output_format == "markdown":
        print_lines(
            [f"### Stack `{markdown_safe(stack_file.stack)}` ({stack.cloud}): config valid", ""]
            + markdown_capacity(capacity, warnings, inputs)
        )
    else:
        print_lines(
            [f"stack {stack_file.stack} ({stack.cloud}): config valid"] + capacity_lines(capacity, warnings, inputs)
        )
        print_layouts(stack_picture(stack.pools), ascii_only, "MIG layouts (each distinct GPU layout once):")
    return 0
