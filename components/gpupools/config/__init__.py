"""The stack file: reading it safely, its shape as pydantic models, and one error type for every bad input.

This package only parses. What a stack means (the catalog rules, sizing, the placement check) is
``gpupools.resolve``; ``load_stack`` there turns what this package reads into a ``Stack``.
"""

from .errors import ConfigError, Findings, Problem
from .loading import read_stack_file, stack_file_path
from .models import GpuPoolConfig, GpuSoftware, StackConfig

__all__ = [
    "ConfigError",
    "Findings",
    "GpuPoolConfig",
    "GpuSoftware",
    "Problem",
    "StackConfig",
    "read_stack_file",
    "stack_file_path",
]
