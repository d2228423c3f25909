"""OR-Tools CP-SAT as the fit's independent exact oracle, run as its own process: ``ortools`` and ``highspy`` each
bundle a different ``libhighs.so.1`` and cannot share one process. ``optimum`` sends the program as JSON to
``python -m support.cpsat_oracle`` and reads back the lexicographic optimum (nodes, then GPUs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def optimum(fillings: list[tuple[int, ...]], demand: list[int], whole: int, per_node: int, per_pool: bool):
    """(nodes, GPUs without the whole ones): ``fillings`` are GPU configurations as counts per demanded profile."""
    problem = {"fillings": fillings, "demand": demand, "whole": whole, "perNode": per_node, "perPool": per_pool}
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    done = subprocess.run(
        [sys.executable, "-m", "support.cpsat_oracle"],
        input=json.dumps(problem),
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    nodes, gpus = json.loads(done.stdout)
    return nodes, gpus


def _solve(problem: dict) -> tuple[int, int]:
    from ortools.sat.python import cp_model

    fillings, demand, whole, per_node = problem["fillings"], problem["demand"], problem["whole"], problem["perNode"]
    most = sum(demand) + whole
    model = cp_model.CpModel()
    gpus = [model.new_int_var(0, most, f"g{i}") for i in range(len(fillings))]
    for p, wanted in enumerate(demand):
        model.add(sum(f[p] * g for f, g in zip(fillings, gpus)) >= wanted)
    if problem["perPool"]:  # every GPU of a pool's nodes cut alike; whole GPUs on nodes of their own
        nodes = [model.new_int_var(0, most, f"n{i}") for i in range(len(fillings))]
        for g, n in zip(gpus, nodes):
            model.add(g <= per_node * n)
        total_nodes = sum(nodes) + -(-whole // per_node)
    else:  # any GPUs share a node
        node_count = model.new_int_var(0, most, "nodes")
        model.add(sum(gpus) + whole <= per_node * node_count)
        total_nodes = node_count
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 120
    model.minimize(total_nodes)
    assert solver.solve(model) == cp_model.OPTIMAL
    best_nodes = round(solver.objective_value)
    model.add(total_nodes == best_nodes)
    model.minimize(sum(gpus))
    assert solver.solve(model) == cp_model.OPTIMAL
    return best_nodes, round(solver.objective_value)


if __name__ == "__main__":
    print(json.dumps(_solve(json.loads(sys.stdin.read()))))
