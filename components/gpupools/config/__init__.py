"""Stack configuration: pydantic models for its shape, catalog rules for its meaning, one error for both."""

from .errors import ConfigError, Problem
from .loading import read_stack_file, stack_file_path
from .models import GpuPoolConfig, GpuSoftware, StackConfig
from .mig_rules import layout_fit_problems
from .rules import Stack, load_stack

__all__ = [
    "ConfigError", "GpuPoolConfig", "GpuSoftware", "Problem", "Stack", "StackConfig",
    "layout_fit_problems", "load_stack", "read_stack_file", "stack_file_path",
]
