"""``gpupools fit DEMAND.yaml [--json]``: the fewest MIG GPUs and the cheapest size for a demand, as a short report.

The work is in ``fit/`` (sizes, pools, stack) and ``domain/fit_solver`` (the exact search); this module reads the
arguments and prints: the demand, the pools, GPUs against the lower bound, the cost, the runner-up size, and the
greedy one-profile-per-pool baseline beside the optimum.
"""

from __future__ import annotations

import argparse

from ..config.demand import read_demand_file
from ..domain.cost import HOURS_PER_MONTH
from ..fit.answer import OUT_OF_SCOPE, FitAnswer, answer_json, fit_demand
from ..fit.kueue_quotas import fit_kueue_objects
from ..kueue import render_yaml
from ..fit.size_fit import SizeFit
from .check import print_lines
from .help import Parser
from ..untrusted.headroom import with_headroom
from ..untrusted.text import json_text


def add_fit_command(commands: argparse._SubParsersAction[Parser]) -> None:
    """Add ``fit`` to the CLI's subcommands."""
    command = commands.add_parser(
        "fit",
        help="from a demand (replicas per MIG slice, memory or whole GPU) to pools: fewest GPUs, cheapest size",
        description="Read a demand file (cloud, region, optional size, workloads with slice, memory or gpu: whole "
        "and a count) and answer with the fewest GPUs whose per-GPU MIG layouts hold it (exact search; "
        "NVIDIA's placement rules), its nodes and monthly list price, the lower bound from slices alone, each "
        "GPU's layout and replicas, the runner-up size, the greedy one-profile-per-pool baseline, and the "
        "gpuPools and gpuSoftware entries of a stack file that gpupools check accepts. Time-slicing and MPS are "
        "out of scope. Example: gpupools fit examples/demand.yaml",
    )
    command.add_argument("demand", metavar="DEMAND.yaml", help="the demand file (see docs/fit.md)")
    command.add_argument(
        "--json", dest="format", action="store_const", const="json", default="text", help="the answer as JSON"
    )
    command.add_argument(
        "--kueue",
        action="store_true",
        help="also print Kueue objects: a ResourceFlavor per pool, a ClusterQueue and LocalQueue per team "
        "(nominal quota = the team's demand; see docs/kueue.md)",
    )
    command.add_argument(
        "--time-limit",
        type=_seconds,
        default=8.0,
        metavar="SECONDS",
        help="the solver's time for all sizes together (default 8); an answer cut short says it is not proven",
    )


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
    book = current_price_book()
    answer = with_headroom(lambda: fit_demand(demand, book, args.time_limit), f"demand file {args.demand}")
    objects = fit_kueue_objects(demand, answer.chosen) if args.kueue else None
    if args.format == "json":
        data = answer_json(answer)
        print(json_text(data if objects is None else {**data, "kueue": objects}))
        return 0
    print_lines(report_lines(answer))
    if objects is not None:
        print_lines(["", "# Kueue objects (kubectl apply -f -); workloads without a team get no ClusterQueue"])
        print_lines(render_yaml(objects).rstrip("\n").split("\n"))
    return 0


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
        f"greedy (one profile per pool, all-<profile> GPUs): {chosen.greedy_gpus} GPUs on {chosen.greedy_nodes} "
        f"nodes; optimum: {chosen.gpus} GPUs on {chosen.nodes} nodes"
    )
    lines += [f"note: {note}" for note in chosen.notes]
    lines.append(f"note: {OUT_OF_SCOPE}")
    lines.append(f"prices: {answer.price_origin}; the stack's gpuPools and gpuSoftware: gpupools fit --json")
    return lines


def _pool_lines(fit: SizeFit) -> list[str]:
    lines = []
    for pool in fit.pools:
        what = (
            "no MIG"
            if pool.layout is None
            else ", ".join(f"{name} x{count}" for name, count in pool.layout) + " per GPU"
        )
        spare = f", {pool.spare} spare" if pool.spare else ""
        lines.append(f"  pool {pool.name}: {what}; {_count(pool.gpus, 'GPU')} on {_count(pool.nodes, 'node')}{spare}")
    return lines


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _gpus_line(fit: SizeFit) -> str:
    solution = fit.solution
    if fit.proven:
        proof = "proven minimal"
    elif solution is not None and solution.proven_gpus:
        proof = "GPUs proven minimal; nodes not proven (time limit)"
    else:
        proof = "not proven: the time limit stopped the search"
    return f"GPUs: {fit.gpus} (lower bound from slices {fit.lower_bound}), nodes: {fit.nodes}; {proof}"


def _money(fit: SizeFit, currency: str) -> str:
    if fit.price is None or fit.monthly is None:
        return f"no list price for {fit.request.size.name} in this region"
    return (
        f"{fit.monthly:,.2f} {currency}/month ({_count(fit.nodes, 'node')} x {fit.price.per_hour:g} "
        f"{currency}/hour on demand x {HOURS_PER_MONTH} h)"
    )
