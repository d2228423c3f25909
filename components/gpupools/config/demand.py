"""The demand file ``gpupools fit`` reads: which workloads need how much GPU, on which cloud and in which region.

It is a file a user names, so it is read like a stack file: through the untrusted kit (a bounded regular file,
safe YAML), then a strict pydantic model whose errors become one ``Problem`` per field (``workloads[1].memory``).
What a workload asks for is exactly one of a MIG profile (``slice``), the memory one replica needs (``memory``, a
Kubernetes quantity such as ``18Gi``, read by ``untrusted.quantity``), or a whole GPU (``gpu: whole``). Whether a
profile exists on a size is the fit's question (``fit/``), not the shape's.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import Field, field_validator, model_validator

from ..catalog.cloud_registry import cloud_names
from ..catalog.gpus import GPU_MODELS
from ..catalog.names import DNS1123_LABEL
from ..untrusted.files import FileRefused, read_text
from ..untrusted.lookup import did_you_mean
from ..untrusted.quantity import QuantityError, parse_quantity
from ..untrusted.safe_yaml import YamlRefused, load_yaml
from .errors import ConfigError, Problem
from .loading import OUTSIDE_FLAG, find_project_root
from .models import Strict
from .shape import choice_hint

MAX_DEMAND_BYTES = 256 * 1024
# The fit answers 200 workloads of 10,000 replicas (2 million) in about a second across every AWS size
# (benchmarks/fit.py): the integer program's size depends on the GPU model, not on replicas, so these limits are
# about the file, not the solver.
MAX_WORKLOADS = 200
MAX_REPLICAS = 10_000  # per workload: far above any one cluster's GPUs
DEFAULT_TEAM = "default"  # whose Kueue queue holds the workloads without a team
GIB = Decimal(2**30)
GB = Decimal(10**9)


class Workload(Strict):
    """One workload: a name, what one replica needs, how many replicas, and the team whose quota holds it."""

    name: str = Field(min_length=1, max_length=63)
    slice: str | None = Field(default=None, min_length=1, max_length=40)
    memory: str | None = Field(default=None, min_length=1)
    gpu: Literal["whole"] | None = None
    count: int = Field(ge=1, le=MAX_REPLICAS)
    team: str | None = Field(default=None, min_length=1, max_length=63)

    @field_validator("name", "team")
    @classmethod
    def _dns_label(cls, value: str | None) -> str | None:
        if value is not None and not DNS1123_LABEL.fullmatch(value):
            raise ValueError(f"'{value}' is not a DNS label; allowed: lowercase letters, digits and '-'")
        return value

    @field_validator("slice")
    @classmethod
    def _known_profile(cls, value: str | None) -> str | None:
        """A profile no GPU of the catalog has is refused once here, not once per size the fit tries."""
        known = [profile.name for gpu in GPU_MODELS.values() for profile in gpu.profiles]
        if value is not None and value not in known:
            raise ValueError(
                f"'{value}' is not a MIG profile of any GPU gpupools knows; {did_you_mean(value, known)}"
                "see gpupools sizes"
            )
        return value

    @field_validator("memory")
    @classmethod
    def _quantity(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                amount = parse_quantity(value)
            except QuantityError as error:
                raise ValueError(str(error)) from None
            if amount <= 0:
                raise ValueError(f"{value!r} is not a positive amount of memory")
            largest = max(
                (profile for gpu in GPU_MODELS.values() for profile in gpu.profiles), key=lambda p: p.memory_gb
            )
            if amount / GB > largest.memory_gb:  # refused once here, not once per size the fit tries
                raise ValueError(
                    f"{value!r} is more than any MIG profile gpupools knows holds (the largest is {largest.name}, "
                    f"{largest.memory_gb} GB); ask for gpu: whole"
                )
        return value

    @model_validator(mode="after")
    def _exactly_one(self) -> "Workload":
        asked = [key for key in ("slice", "memory", "gpu") if getattr(self, key) is not None]
        if len(asked) != 1:
            raise ValueError(f"set exactly one of slice, memory or gpu (got {', '.join(asked) or 'none'})")
        return self

    @property
    def memory_gb(self) -> Decimal | None:
        """The memory one replica needs in GB (10^9 bytes), the unit NVIDIA's profile names use."""
        return None if self.memory is None else parse_quantity(self.memory) / GB


class TeamLimits(Strict):
    """How much a team's Kueue queue may borrow from the cohort and lend to it, per pool and resource."""

    borrowing_limit: int | None = Field(default=None, ge=0, le=MAX_REPLICAS)
    lending_limit: int | None = Field(default=None, ge=0, le=MAX_REPLICAS)


class Demand(Strict):
    """The whole demand file."""

    cloud: str = Field(min_length=1, max_length=20)
    region: str = Field(min_length=1, max_length=40)
    size: str | None = Field(default=None, min_length=1, max_length=80)
    # Who cuts the GPUs: the GPU Operator's MIG manager (per-GPU layouts), or the cloud itself where it can
    # (AKS gpuInstanceProfile: one profile per pool).
    mig_manager: Literal["operator", "cloud"] = "operator"
    workloads: list[Workload] = Field(min_length=1, max_length=MAX_WORKLOADS)
    # Kueue limits per team (``default``: the workloads without a team); only ``fit --kueue`` reads them.
    teams: dict[str, TeamLimits] = Field(default_factory=dict, max_length=MAX_WORKLOADS + 1)

    @field_validator("cloud")
    @classmethod
    def _known_cloud(cls, value: str) -> str:
        if value not in cloud_names():
            raise ValueError(
                f"'{value}' is not a cloud gpupools knows; {did_you_mean(value, cloud_names())}"
                f"allowed: {', '.join(cloud_names())}"
            )
        return value

    @field_validator("teams")
    @classmethod
    def _team_names(cls, value: dict[str, TeamLimits]) -> dict[str, TeamLimits]:
        for name in value:
            if not DNS1123_LABEL.fullmatch(name) or len(name) > 63:
                raise ValueError(f"{name[:63]!r} is not a DNS label; allowed: lowercase letters, digits and '-'")
        return value

    @model_validator(mode="after")
    def _unique_names(self) -> "Demand":
        names = [workload.name for workload in self.workloads]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"workload names must be unique; repeated: {', '.join(twice)}")
        known = {workload.team or DEFAULT_TEAM for workload in self.workloads}
        unknown = sorted(set(self.teams) - known)
        if unknown:
            raise ValueError(f"teams: {', '.join(unknown)[:200]} has no workload; allowed: {', '.join(sorted(known))}")
        return self


STACK_KEY = "gpupools:demand"


def stack_demand_path(stack_path: Path, relative: str, outside_allowed: bool = False) -> Path:
    """A stack's ``gpupools:demand``, resolved against the stack file's folder: the one place its path is checked.
    Where it ends (symlinks followed) must be inside the project (the folder holding ``Pulumi.yaml``, else the stack
    file's), unless ``outside_allowed`` (``--demand-outside-project``); the file itself is then checked by the
    kit's reader (a regular file of bounded size: no FIFO, device or ``/proc`` file)."""
    try:
        folder = stack_path.resolve().parent
        path = folder / relative
        real = Path(os.path.realpath(path))
    except (OSError, ValueError, RuntimeError):
        raise ConfigError([Problem(STACK_KEY, f"{relative!r} cannot be resolved from {stack_path}")]) from None
    project = find_project_root(folder)
    if not outside_allowed and not real.is_relative_to(project):
        raise ConfigError(
            [
                Problem(
                    STACK_KEY,
                    f"{relative!r} leads outside the project folder {project} (to {real}); a demand file lives in "
                    f"the project, or pass {OUTSIDE_FLAG} to read it there",
                )
            ]
        )
    return path


def read_demand_file(path: Path | str) -> Demand:
    """The demand file at ``path``, or a ``ConfigError`` with one problem per field (or per file problem)."""
    where = str(path)
    try:
        raw = load_yaml(read_text(Path(path), "demand file", MAX_DEMAND_BYTES))
    except FileRefused as refused:
        raise ConfigError([Problem(refused.where, refused.message)]) from None
    except YamlRefused as refused:
        raise ConfigError([Problem(f"{where}: {_dotted(issue.path)}", issue.message) for issue in refused.issues])
    return parse_demand(raw, where)


def parse_demand(raw: Any, where: str = "demand") -> Demand:
    if not isinstance(raw, dict):
        raise ConfigError([Problem(where, f"must be a mapping with cloud, region and workloads, got {_kind(raw)}")])
    try:
        return Demand.model_validate(raw)
    except pydantic.ValidationError as error:
        raise ConfigError(_problems(error)) from None


def _problems(error: pydantic.ValidationError) -> list[Problem]:
    """Pydantic's errors as one line per field, with the field's path as the user wrote it."""
    merged: dict[str, list[str]] = {}
    for item in error.errors(include_url=False):
        path = _dotted(item["loc"]) or "demand"
        if item["type"] == "extra_forbidden":
            message = f"unknown key {str(item['loc'][-1])!r}"
        elif item["type"] == "missing":
            message = "is required"
        else:
            message = item["msg"].removeprefix("Value error, ") + choice_hint(item)
        if message not in merged.setdefault(path, []):
            merged[path].append(message)
    return [Problem(path, "; ".join(messages)) for path, messages in merged.items()]


def _dotted(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _kind(value: Any) -> str:
    return "nothing" if value is None else type(value).__name__
