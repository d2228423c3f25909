"""``gpupools fit DEMAND.yaml [--json]``: the lowest bill (nodes) and the cheapest size for a demand, as a report.

The work is in ``fit/`` (sizes, pools, stack) and ``domain/fit_solver`` (the exact program); this module reads the
arguments and prints: the demand, the pools, GPUs against the lower bound, the cost, the runner-up size, and the
greedy one-profile-per-pool baseline beside the optimum.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..config.demand import read_demand_file
from ..domain.cost import HOURS_PER_MONTH
from ..fit.answer import OUT_OF_SCOPE, FitAnswer, answer_json, fit_demand
from ..fit.kueue_quotas import fit_kueue
from ..fit.size_fit import SizeFit
from ..kueue import render_yaml
from .check import print_lines
from .help import Parser
from .pictures import add_picture_arguments, check_svg_path, print_layouts, write_svg
from ..pictures.from_fit import fit_picture
from ..untrusted.headroom import with_headroom
from ..untrusted.text import json_text


def add_fit_command(commands: argparse._SubParsersAction[Parser]) -> None:
    """Add ``fit`` to the CLI's subcommands."""
    command = commands.add_parser(
        "fit",
        help="from a demand (replicas per MIG slice, memory or whole GPU) to pools: the lowest bill, exactly",
        description="Read a demand file (cloud, region, optional size, workloads with slice, memory or gpu: whole "
        "and a count) and answer with the cheapest nodes whose per-GPU MIG layouts hold it (an exact integer "
        "program solved by HiGHS; NVIDIA's placement rules), then the fewest GPUs and layouts, the monthly list "
        "price, the lower bound from slices alone, each "
        "GPU's layout and replicas, the runner-up size, the greedy one-profile-per-pool baseline, and the "
        "gpuPools and gpuSoftware entries of a stack file that gpupools check accepts. Time-slicing and MPS are "
        "out of scope. With --stack or --config: day two, the cheapest change to that running stack (new nodes, then "
        "re-cut nodes), shown as plan --base shows a change. Example: gpupools fit examples/demand.yaml",
    )
    command.add_argument("demand", metavar="DEMAND.yaml", help="the demand file (see docs/fit.md)")
    command.add_argument(
        "--json", dest="format", action="store_const", const="json", default="text", help="the answer as JSON"
    )
    command.add_argument(
        "-o",
        "--output",
        dest="format",
        choices=("text", "json", "kueue"),
        help="text (default), json (as --json), or kueue (as --kueue)",
    )
    command.add_argument(
        "--kueue",
        action="store_true",
        help="print Kueue objects on stdout, for kubectl apply -f -: a ResourceFlavor per pool, a ClusterQueue and "
        "LocalQueue per team (nominal quota = the team's demand; see docs/kueue.md); the report goes to stderr. "
        "With --json: in the JSON",
    )
    command.add_argument(
        "--objective",
        choices=("bill", "gpus"),
        default="bill",
        help="bill (default): the lowest monthly cost, then fewest GPUs, then fewest layouts; gpus: fewest GPUs "
        "first, for those who buy GPUs rather than nodes",
    )
    command.add_argument(
        "--time-limit",
        type=_seconds,
        default=8.0,
        metavar="SECONDS",
        help="the solver's time for all sizes together (default 8); an answer cut short says it is not proven",
    )
    source = command.add_mutually_exclusive_group()
    source.add_argument(
        "--stack",
        metavar="NAME",
        help="day two: start from this stack's pools (Pulumi.NAME.yaml in the project root) and answer with the "
        "cheapest change that holds the demand (new nodes, then re-cut nodes), shown as plan --base shows a change",
    )
    source.add_argument("--config", metavar="PATH", help="day two from the stack file at PATH instead")
    add_picture_arguments(command, svg=True)


def _seconds(text: str) -> float:
    """A time limit argparse refuses with one line unless it is a finite number of seconds in 0.1..600."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text[:40]!r}") from None
    if not 0.1 <= value <= 600:  # also refuses nan and inf, which compare false
        raise argparse.ArgumentTypeError(f"expected 0.1 to 600 seconds, got {text[:40]!r}")
    return value


def run_fit(args: argparse.Namespace) -> int:
    from ..price_lists.book import current_price_book  # the local price cache, else the packaged snapshot

    demand = read_demand_file(args.demand)
    check_svg_path(args.svg)
    book = current_price_book()
    answer = with_headroom(
        lambda: fit_demand(demand, book, args.time_limit, args.objective), f"demand file {args.demand}"
    )
    # Drawn only where it is shown: --json and --kueue print none (a million replicas make 100,000 nodes).
    drawn = args.svg is not None or (args.format != "json" and not args.kueue and args.format != "kueue")
    picture = fit_picture(answer.chosen) if drawn else None
    if picture is not None and args.svg is not None:
        size = answer.chosen.request.size
        write_svg(args.svg, picture, f"gpupools fit: {size.name} ({size.gpus}x {size.gpu.name} per node)")
    kueue = fit_kueue(demand, answer.chosen) if args.kueue or args.format == "kueue" else None
    if args.format == "json":
        data = answer_json(answer)
        if kueue is not None:
            data = {**data, "kueue": kueue.objects, "kueueConfiguration": kueue.configuration}
        print(json_text(data))
        return 0
    if kueue is None:
        print_lines(report_lines(answer))
        if picture is not None:
            print_layouts(picture, args.ascii, "MIG layouts (each distinct GPU layout once):")
        return 0
    lines = report_lines(answer) + _configuration_lines(kueue.configuration)
    print_lines(lines, file=sys.stderr)
    sys.stdout.write(render_yaml(kueue.objects))
    return 0


def _configuration_lines(configuration: dict[str, Any] | None) -> list[str]:
    """The Configuration stanza, for the report: it is Kueue's own file, not an object kubectl applies."""
    if configuration is None:
        return []
    lines = ["", "# Merge its resources into Kueue's Configuration (kueue-manager-config,"]
    lines.append("# controller_manager_config.yaml) before applying the queues: it charges each MIG slice as its")
    lines.append("# GB of GPU memory (docs/kueue.md).")
    return lines + render_yaml([configuration]).rstrip("\n").split("\n")


def report_lines(answer: FitAnswer) -> list[str]:
    """The short text report."""
    demand, chosen = answer.demand, answer.chosen
    size = chosen.request.size
    lines = [f"demand ({demand.cloud}, {demand.region}):"]
    for workload in demand.workloads:
        asked = workload.slice or (f"memory {workload.memory}" if workload.memory else "a whole GPU")
        profile = chosen.request.profile_of.get(workload.name)
        shown = f" -> {profile}" if profile and profile != workload.slice else ""
        team = f" (team {workload.team})" if workload.team else ""
        lines.append(f"  {workload.name}: {workload.count}x {asked}{shown}{team}")
    lines += ["", f"size {size.name}: {size.gpus}x {size.gpu.name} per node"]
    lines += _pool_lines(chosen)
    lines.append(_gpus_line(chosen))
    lines.append(f"cost: {_money(chosen, answer.currency)}")
    runner = answer.runner_up
    if runner is not None:
        lines.append(
            f"runner-up: {runner.request.size.name}, {_count(runner.gpus, 'GPU')} on {_count(runner.nodes, 'node')}, "
            f"{_money(runner, answer.currency)}"
        )
    elif demand.size is None:
        lines.append("runner-up: none (no other size of the catalog can serve this demand here)")
    lines.append(
        f"greedy (one profile per pool, all-<profile> GPUs): {_count(chosen.greedy_gpus, 'GPU')} on "
        f"{_count(chosen.greedy_nodes, 'node')}; optimum: {_count(chosen.gpus, 'GPU')} on "
        f"{_count(chosen.nodes, 'node')}"
    )
    lines += [f"note: {note}" for note in chosen.notes]
    lines.append(f"note: {OUT_OF_SCOPE}")
    lines.append(f"prices: {answer.price_origin}; the stack's gpuPools and gpuSoftware: gpupools fit --json")
    return lines


def _pool_lines(fit: SizeFit) -> list[str]:
    lines = []
    for pool in fit.pools:
        per_node = "; ".join(_group_text(config, gpus) for config, gpus in pool.groups)
        spare = f", {pool.spare} spare" if pool.spare else ""
        lines.append(
            f"  pool {pool.name}: {_count(pool.nodes, 'node')} of [{per_node}]; {_count(pool.gpus, 'GPU')} used{spare}"
        )
    return lines


def _group_text(config, gpus: int) -> str:
    if config is None:
        return f"{gpus} whole"
    return f"{gpus}x " + "{" + ", ".join(f"{name} x{count}" for name, count in config) + "}"


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _gpus_line(fit: SizeFit) -> str:
    """Nodes and GPUs, and what is proven: "proven" only on the solver's certificate (``domain.lexicographic_mip``),
    otherwise the bounds it proved."""
    solution = fit.solution
    if fit.proven:
        proof = f"proven minimal ({solution.certificate})"
    else:
        proof = (
            f"best found, not proven (time limit): at least {solution.bound_nodes} nodes, {solution.bound_gpus} GPUs"
        )
    layouts = len([config for config, _ in solution.configs])
    fewest = "fewest" if solution.proven_layouts else "fewest found"
    return (
        f"nodes: {fit.nodes}, GPUs: {fit.gpus} (lower bound from slices {fit.lower_bound}); {proof}; "
        f"{_count(layouts, 'per-GPU layout')} ({fewest})"
    )


def _money(fit: SizeFit, currency: str) -> str:
    if fit.price is None or fit.monthly is None:
        return f"no list price for {fit.request.size.name} in this region"
    return (
        f"{fit.monthly:,.2f} {currency}/month ({_count(fit.nodes, 'node')} x {fit.price.per_hour:g} "
        f"{currency}/hour on demand x {HOURS_PER_MONTH} h)"
    )
