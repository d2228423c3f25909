"""The same stack plans to byte-identical text, JSON and Markdown, run after run and two processes at once;
and the real ``gpupools`` executable behaves on a closed pipe and on a FIFO.

Each process gets its own ``PYTHONHASHSEED``, so any order that depends on hashing (sets, protobuf maps in
the mock monitor) would show up as a difference.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STACKS = sorted(path.name for path in ROOT.glob("Pulumi.*.yaml"))
FORMATS = ("text", "json", "markdown")
GPUPOOLS = Path(sys.executable).parent / "gpupools"

# Plans every stack in every format twice in one process and prints the digests.
EVERY_FORMAT_TWICE = textwrap.dedent("""\
    import hashlib, io, json, sys
    from contextlib import redirect_stdout
    from gpupools.cli import main
    digests = {}
    for stack in sys.argv[1:]:
        for output in ("text", "json", "markdown"):
            for attempt in (0, 1):
                buffer = io.StringIO()
                with redirect_stdout(buffer):
                    assert main(["plan", "--config", stack, "--format", output]) == 0
                digests[f"{stack} {output} {attempt}"] = hashlib.sha256(buffer.getvalue().encode()).hexdigest()
    print(json.dumps(digests))
    """)


def _env(seed: int) -> dict[str, str]:
    return {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT / "components")}


@pytest.fixture(scope="module")
def repo_stacks() -> list[str]:
    if not STACKS:
        pytest.skip("no Pulumi.<stack>.yaml beside the tests")
    return STACKS


@pytest.fixture(scope="module")
def runs(repo_stacks) -> list[dict[str, str]]:
    """Two processes at once, each planning every stack and format twice: four runs per stack and format."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", EVERY_FORMAT_TWICE, *repo_stacks],
            cwd=ROOT,
            env=_env(seed),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in (1, 2)
    ]
    results = [process.communicate(timeout=240) for process in processes]
    for process, (_, err) in zip(processes, results):
        assert process.returncode == 0, err[-2000:]
    return [json.loads(out.splitlines()[-1]) for out, _ in results]


def test_every_stack_and_format_is_byte_identical_run_after_run_and_in_parallel(repo_stacks, runs):
    for stack in repo_stacks:
        for output in FORMATS:
            digests = {run[f"{stack} {output} {attempt}"] for run in runs for attempt in (0, 1)}
            assert len(digests) == 1, f"{stack} {output} differs between runs"


@pytest.mark.skipif(not GPUPOOLS.exists(), reason="the gpupools executable is not installed beside this Python")
def test_the_executable_gives_the_same_bytes_in_parallel(repo_stacks, runs):
    # One executable per stack, all at once, each in another format (every format is covered), under another hash
    # seed: each must print the bytes the in-process runs printed. One process per stack, not two: the pairs of
    # processes at once are the in-process runs' (the executables' start-up was most of this module's cost).
    jobs = [(stack, FORMATS[index % len(FORMATS)]) for index, stack in enumerate(repo_stacks)]
    processes = {
        (stack, output): subprocess.Popen(
            [str(GPUPOOLS), "plan", "--config", stack, "--format", output],
            cwd=ROOT,
            env=_env(3 + index),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for index, (stack, output) in enumerate(jobs)
    }
    outputs = {key: process.communicate(timeout=240) for key, process in processes.items()}
    for (stack, output), (out, err) in outputs.items():
        assert processes[(stack, output)].returncode == 0, err.decode()[-2000:]
        assert out and hashlib.sha256(out).hexdigest() == runs[0][f"{stack} {output} 0"], (
            f"{stack} {output}: the executable's bytes differ from the in-process plan's"
        )


@pytest.mark.skipif(not GPUPOOLS.exists(), reason="the gpupools executable is not installed beside this Python")
def test_a_closed_pipe_ends_quietly(repo_stacks):
    # gpupools plan --json | head -1: the reader leaves after one line.
    plan = subprocess.Popen(
        [str(GPUPOOLS), "plan", "--config", repo_stacks[0], "--json"],
        cwd=ROOT,
        env=_env(5),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert plan.stdout is not None
    first = plan.stdout.readline()
    plan.stdout.close()
    err = plan.stderr.read().decode() if plan.stderr else ""
    plan.wait(timeout=120)
    assert first.strip() == b"{"
    assert "BrokenPipe" not in err and "Traceback" not in err and "Exception ignored" not in err, err
    assert plan.returncode in (0, 141)  # as a shell reports SIGPIPE; 1 would say "a gpupools bug"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.skipif(not GPUPOOLS.exists(), reason="the gpupools executable is not installed beside this Python")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "Pulumi.fifo.yaml"
    os.mkfifo(fifo)  # nobody ever writes: a blocking open would hang forever
    start = time.monotonic()
    done = subprocess.run(
        [str(GPUPOOLS), "check", "--config", str(fifo)], env=_env(6), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: ") and "is a FIFO" in done.stderr and len(done.stderr.splitlines()) == 1
    assert time.monotonic() - start < 30
