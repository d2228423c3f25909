"""``gpupools sizes [--cloud C] [--size S] [--json]``: what each catalog size is and how it can be cut
(``facts/sizes.py``), so a newcomer need not read an error message to learn the sizes."""

from __future__ import annotations

import argparse

from ..catalog.cloud_registry import cloud_names
from ..config.errors import ConfigError, Problem
from ..facts.sizes import SizeRow, size_rows
from ..untrusted.lookup import did_you_mean
from .check import print_lines
from .help import Parser
from ..untrusted.text import json_text


def add_sizes_command(commands: argparse._SubParsersAction[Parser]) -> None:
    """Add ``sizes`` to the CLI's subcommands."""
    command = commands.add_parser(
        "sizes",
        help="list the catalog's node sizes: GPU, MIG profiles and their spellings, layouts, sharing, priced regions",
        description="Each catalog node size: its GPU model and count, its MIG profiles (slices, per GPU, the AKS "
        "name, NVIDIA's layout, the device plugin resource), the named layouts, the sharing modes that apply, and "
        "the regions where the packaged price snapshot has a price.",
    )
    command.add_argument("--cloud", choices=cloud_names(), help="only this cloud's sizes")
    command.add_argument("--size", metavar="S", help="only this size")
    command.add_argument("--json", dest="format", action="store_const", const="json", default="text")


def run_sizes(args: argparse.Namespace) -> int:
    rows = size_rows(args.cloud, args.size)
    if args.size is not None and not rows:
        where = f" on {args.cloud}" if args.cloud else ""
        known = [row.size.name for row in size_rows(args.cloud, None)]
        meant = did_you_mean(args.size, known)
        raise ConfigError([Problem("--size", f"{args.size!r} is not a catalog size{where}; {meant}see gpupools sizes")])
    if args.format == "json":
        print(json_text({"sizes": [row.to_json() for row in rows]}))
        return 0
    lines: list[str] = []
    for row in rows:
        lines += _lines(row)
    print_lines(lines)
    return 0


def _lines(row: SizeRow) -> list[str]:
    size = row.size
    lines = [
        f"{size.name} ({size.cloud}): {size.gpus}x {size.gpu.name}",
        f"  sharing: {', '.join(row.sharing)}",
    ]
    for profile in row.profiles:
        aks = f"{profile.aks_name} = " if profile.aks_name else ""
        lines.append(
            f"  MIG {aks}{profile.profile.name}: {profile.profile.compute_slices} compute / "
            f"{profile.profile.memory_slices} memory slices, {profile.profile.max_instances} per GPU "
            f"({profile.profile.max_instances * size.gpus} per node); layout {profile.layout}; "
            f"mixed: {profile.resource}; DRA: {profile.spelling.dra_device}"
        )
    for name, devices in row.layouts.items():
        if name == "all-balanced":
            lines.append(f"  layout {name}: " + ", ".join(f"{device} x{count}" for device, count in devices.items()))
    for capacity, regions in row.price_regions.items():
        lines.append(f"  priced ({capacity}): {', '.join(regions)}")
    if not row.price_regions:
        lines.append("  priced: no region in the packaged snapshot")
    return [*lines, ""]
