"""Hostile stack files and command lines, generated per category: the CLI answers each with exit 2 and one
``error:`` line per problem (or with a plan when the input is merely odd), fast, with no traceback and no
character that could repaint a terminal.

Expectations come from the YAML spec and Pulumi's documented behaviour: config keys are
``<namespace>:<name>`` (Pulumi's ``config.ParseKey``), stack names are letters, digits, ``-``, ``_`` and ``.``
(pulumi.com/docs/iac/concepts/stacks), and go-yaml hands timestamp-looking scalars to a program as text.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpupools.cli import main
from gpupools.untrusted import files as loading, limits
from gpupools.untrusted.limits import MAX_DEPTH, MAX_NODES
from support.cli import CliRun as Outcome, run_cli as run

VALID = """\
config:
  aws:region: us-east-1
  gpupools:cloud: aws
  gpupools:cluster:
    name: gpu-eks
    region: us-east-1
    systemPool:
      size: m6i.large
  gpupools:gpuPools:
    - name: p4d
      size: p4d.24xlarge
      count: 2
      mig:
        layout: all-2g.10gb
  gpupools:gpuSoftware:
    installer: gpu-operator
    version: v26.7.0
    migStrategy: mixed
"""
VALID_LINES = VALID.count("\n")
# A hang guard, not a speed target: a hostile example that loops or blows up would pass any shorter bound only by
# luck on a loaded machine, and speed is benchmarks/' business. The refusals themselves are structural (libyaml's
# event count, the nesting depth, the byte size), so none of them depends on this bound.
EXAMPLE_SECONDS = 30.0
HOSTILE = settings(max_examples=25, deadline=4000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

other_namespaces = st.sampled_from(["myapp", "aws", "azure-native", "kubernetes", "x"])
plain_names = st.from_regex(r"[a-z][a-zA-Z0-9]{0,11}", fullmatch=True)


def assert_safe(outcome: Outcome) -> None:
    text = outcome.out + outcome.err
    assert "Traceback" not in text
    assert all(char.isprintable() for line in text.split("\n") for char in line), ascii(text[:400])
    assert outcome.seconds < EXAMPLE_SECONDS, outcome.seconds


def assert_refused(outcome: Outcome, *needles: str) -> None:
    assert_safe(outcome)
    assert outcome.code == 2, (outcome.out[:300], outcome.err[:300])
    assert outcome.out == ""
    assert outcome.lines and all(line.startswith("error: ") for line in outcome.lines), outcome.err[:600]
    for needle in needles:
        assert needle in outcome.err, (needle, outcome.err[:600])


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hostile")


_counter = iter(range(10**9))


def stack_file(folder: Path, content: str | bytes) -> str:
    path = folder / f"Pulumi.h{next(_counter)}.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return str(path)


def with_extra(extra: str) -> str:
    """The valid stack with more config lines (each indented by two spaces under ``config:``)."""
    return VALID + extra


# --- encodings ---------------------------------------------------------------------------------------


@HOSTILE
@given(data=st.binary(min_size=1, max_size=3000))
def test_binary_files_are_refused(folder, data):
    outcome = run("check", "--config", stack_file(folder, b"\x00\xff" + data))
    assert_refused(outcome, "UTF")


@HOSTILE
@given(encoding=st.sampled_from(["utf-16", "utf-16-le", "utf-16-be", "utf-32"]))
def test_utf16_and_utf32_stack_files_are_refused_with_their_encoding(folder, encoding):
    outcome = run("check", "--config", stack_file(folder, VALID.encode(encoding)))
    assert_refused(outcome, "UTF-8")
    assert len(outcome.lines) == 1


@HOSTILE
@given(
    offset=st.integers(0, len(VALID)),
    junk=st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]),
)
def test_invalid_utf8_is_refused_with_its_line(folder, offset, junk):
    data = VALID.encode()
    outcome = run("check", "--config", stack_file(folder, data[:offset] + junk + data[offset:]))
    line = data.count(b"\n", 0, offset) + 1
    assert_refused(outcome, "not valid UTF-8", f"line {line}")


# --- depth -------------------------------------------------------------------------------------------


def nested(depth: int, style: str) -> str:
    return {"list": "[" * depth + "]" * depth, "map": "{a: " * depth + "x" + "}" * depth}[style]


@HOSTILE
@given(
    depth=st.integers(MAX_DEPTH + 1, 5000),
    style=st.sampled_from(["list", "map"]),
    where=st.sampled_from(["other", "outside", "gpupools", "key"]),
    namespace=other_namespaces,
)
def test_deep_nesting_anywhere_is_refused_quickly(folder, depth, style, where, namespace):
    deep = nested(depth, style)
    document = {
        "other": with_extra(f"  {namespace}:deep: {deep}\n"),
        "outside": VALID + f"extra: {deep}\n",
        "gpupools": with_extra(f"  gpupools:tags: {{team: {deep}}}\n"),
        "key": with_extra(f"  ? {deep}\n  : x\n"),
    }[where]
    assert_refused(run("plan", "--config", stack_file(folder, document)), f"deeper than {MAX_DEPTH} levels")


@HOSTILE
@given(depth=st.integers(1, MAX_DEPTH - 2), style=st.sampled_from(["list", "map"]), namespace=other_namespaces)
def test_nesting_within_the_limit_is_fine_in_other_namespaces(folder, depth, style, namespace):
    outcome = run("check", "--config", stack_file(folder, with_extra(f"  {namespace}:deep: {nested(depth, style)}\n")))
    assert_safe(outcome)
    assert outcome.code == 0, outcome.err


# --- aliases -----------------------------------------------------------------------------------------


def alias_bomb(width: int, levels: int) -> str:
    lines = [f"    l0: &l0 [{', '.join(['lol'] * width)}]"]
    lines += [f"    l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@HOSTILE
@given(
    width=st.integers(2, 10),
    levels=st.integers(4, 30),
    namespace=other_namespaces,
    where=st.sampled_from(["other", "outside"]),
)
def test_alias_bombs_are_refused_before_they_expand(folder, width, levels, namespace, where):
    if width**levels <= MAX_NODES:
        levels = next(n for n in range(levels, 60) if width**n > MAX_NODES)
    bomb = alias_bomb(width, levels)
    document = with_extra(f"  {namespace}:bomb:\n{bomb}") if where == "other" else VALID + "extra:\n" + bomb
    assert_refused(run("plan", "--config", stack_file(folder, document)), f"more than {MAX_NODES} values")


@HOSTILE
@given(width=st.integers(1, 3), levels=st.integers(1, 4), namespace=other_namespaces)
def test_small_anchors_and_aliases_are_fine(folder, width, levels, namespace):
    outcome = run(
        "check", "--config", stack_file(folder, with_extra(f"  {namespace}:anchors:\n{alias_bomb(width, levels)}"))
    )
    assert_safe(outcome)
    assert outcome.code == 0, outcome.err


@HOSTILE
@given(
    shape=st.sampled_from(["&r [*r]", "&r {a: *r}", "&r [a, [b, {c: *r}]]", "&r {a: [*r]}"]), namespace=other_namespaces
)
def test_recursive_aliases_are_refused(folder, shape, namespace):
    outcome = run("check", "--config", stack_file(folder, with_extra(f"  {namespace}:loop: {shape}\n")))
    assert_refused(outcome, "recursive alias", f"{namespace}:loop")


def test_undefined_alias_is_refused(folder):
    assert_refused(run("check", "--config", stack_file(folder, with_extra("  myapp:x: *nowhere\n"))), "*nowhere")


# --- duplicate, bare and non-string keys -------------------------------------------------------------


@HOSTILE
@given(
    depth=st.integers(0, 5),
    key=plain_names,
    first=st.integers(0, 99),
    second=st.integers(0, 99),
    namespace=st.sampled_from(["gpupools", "myapp"]),
)
def test_duplicate_keys_at_any_depth_name_the_key_and_both_lines(folder, depth, key, first, second, namespace):
    indent = "    " + "  " * depth
    lines = [f"  {namespace}:dup:"] + [f"    {'  ' * level}n{level}:" for level in range(depth)]
    lines += [f"{indent}{key}: {first}", f"{indent}other: 1", f"{indent}{key}: {second}"]
    first_line = VALID_LINES + len(lines) - 2
    outcome = run("check", "--config", stack_file(folder, with_extra("\n".join(lines) + "\n")))
    path = f"{namespace}:dup" + "".join(f".n{level}" for level in range(depth)) + f".{key}"
    assert_refused(outcome, f"error: {path}: is defined twice, at line {first_line} and line {first_line + 2}")


def test_a_duplicated_count_is_an_error_not_the_last_value(folder):
    # The tester's case: count: 1 then count: 7 planned 7 nodes.
    text = VALID.replace("      count: 2\n", "      count: 1\n      count: 7\n")
    assert_refused(run("plan", "--config", stack_file(folder, text)), "gpupools:gpuPools[0].count: is defined twice")


@HOSTILE
@given(key=plain_names)
def test_keys_without_a_namespace_are_refused(folder, key):
    outcome = run("check", "--config", stack_file(folder, with_extra(f"  {key}: azure\n")))
    assert_refused(outcome, f"error: {key}: is not a config key", "<namespace>:<name>")
    assert len(outcome.lines) == 1


@HOSTILE
@given(
    key=st.sampled_from(["1", "null", "~", "true", "false", "3.5", "0x10", "[a, b]", "{a: b}"]),
    where=st.sampled_from(["config", "gpupools", "other", "outside"]),
)
def test_non_string_keys_are_refused_not_stringified(folder, key, where):
    entry = f"? {key}\n" if key[0] in "[{" else f"{key}:"
    document = {
        "config": with_extra(f"  {entry} x\n" if not entry.startswith("?") else f"  {entry}  : x\n"),
        "gpupools": with_extra(
            f"  gpupools:tags:\n    {entry} x\n"
            if not entry.startswith("?")
            else f"  gpupools:tags:\n    {entry}    : x\n"
        ),
        "other": with_extra(
            f"  myapp:m:\n    {entry} x\n" if not entry.startswith("?") else f"  myapp:m:\n    {entry}    : x\n"
        ),
        "outside": VALID + (f"{entry} x\n" if not entry.startswith("?") else f"{entry}: x\n"),
    }[where]
    assert_refused(run("check", "--config", stack_file(folder, document)), "which is not a string")


# --- values YAML turns into non-JSON types -----------------------------------------------------------


@HOSTILE
@given(
    namespace=other_namespaces,
    name=plain_names,
    value=st.sampled_from(["2025-01-01", "2001-12-14t21:59:43.10-05:00", "2002-12-14 21:59:43", "=", "<<"]),
)
def test_dates_and_timestamps_in_other_namespaces_stay_text(folder, namespace, name, value):
    outcome = run(
        "check",
        "--config",
        stack_file(folder, with_extra(f"  {namespace}:{name}: {value}\n  {namespace}:obj: {{when: {value}}}\n")),
    )
    assert_safe(outcome)
    assert outcome.code == 0, outcome.err


# A date in another namespace that plans: tests/plan/test_hostile_input_plans.py (it runs the program).


@HOSTILE
@given(
    namespace=st.sampled_from(["myapp", "gpupools"]),
    name=plain_names,
    value=st.sampled_from(
        [
            "!!set {a, b}",
            "!!binary aGVsbG8=",
            "!!omap [{a: 1}]",
            "!!pairs [{a: 1}]",
            "!!timestamp 2025-01-01",
            "!!python/tuple [1, 2]",
            "!custom x",
            ".inf",
            "-.Inf",
            ".nan",
            "!!int notanumber",
        ]
    ),
)
def test_non_json_values_are_refused_in_any_namespace(folder, namespace, name, value):
    outcome = run("plan", "--config", stack_file(folder, with_extra(f"  {namespace}:{name}: {value}\n")))
    assert_refused(outcome, f"{namespace}:{name}")


# --- control characters, bidi overrides and long values ----------------------------------------------

hostile_text = (
    st.lists(
        st.sampled_from(
            ["\x1b", "\r", "\x07", "\x9b", "\u202e", "\u2066", "\u200f", "\u2028", "\ufeff", "a", "[2J", ";", " "]
        ),
        min_size=1,
        max_size=20,
    )
    .map("".join)
    .filter(lambda text: text.strip() and not text.isprintable())
)


def quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (escapes for everything outside printable ASCII)."""
    return (
        '"'
        + "".join(char if " " <= char <= "~" and char not in '"\\' else f"\\U{ord(char):08x}" for char in text)
        + '"'
    )


@HOSTILE
@given(text=hostile_text, where=st.sampled_from(["cloud", "poolName", "labelKey", "unknownKey", "configKey", "size"]))
def test_control_and_bidi_characters_are_shown_escaped(folder, text, where):
    value = quoted(text)
    document = {
        "cloud": VALID.replace("gpupools:cloud: aws", f"gpupools:cloud: {value}"),
        "poolName": VALID.replace("- name: p4d", f"- name: {value}"),
        "labelKey": VALID.replace("      count: 2\n", f"      count: 2\n      labels: {{{value}: x}}\n"),
        "unknownKey": VALID.replace("      count: 2\n", f"      count: 2\n      {value}: x\n"),
        "configKey": with_extra(f"  {value}: x\n"),
        "size": VALID.replace("size: p4d.24xlarge", f"size: {value}"),
    }[where]
    outcome = run("plan", "--config", stack_file(folder, document))
    assert_safe(outcome)  # nothing unprintable reaches the terminal, in errors or in a plan
    assert outcome.code in (0, 2), outcome.err
    if outcome.code == 2:
        assert all(line.startswith("error: ") for line in outcome.lines)


@HOSTILE
@given(length=st.integers(200, 200_000), where=st.sampled_from(["cloud", "size", "version", "configKey"]))
def test_long_values_are_cut_with_their_length(folder, length, where):
    value = "x" * length
    document = {
        "cloud": VALID.replace("gpupools:cloud: aws", f"gpupools:cloud: {value}"),
        "size": VALID.replace("size: p4d.24xlarge", f"size: {value}"),
        "version": VALID.replace("version: v26.7.0", f"version: {value}"),
        "configKey": with_extra(f"  {value[:1000]}: 1\n"),  # YAML caps implicit keys at 1024 characters
    }[where]
    length = min(length, 1000) if where == "configKey" else length
    outcome = run("check", "--config", stack_file(folder, document))
    assert_refused(outcome, f"({length} characters)")
    assert all(len(line) < 1200 for line in outcome.lines)
    assert "x" * 200 not in outcome.err


# --- odd command lines -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["check", "--stack", ""], "--stack: '' is not a stack name"),
        (["check", "--stack", "org/proj/dev"], "short name"),
        (["check", "--stack", "../etc/passwd"], "is not a stack name"),
        (["check", "--stack", "dev\x1b[2J"], "'dev\\x1b[2J'"),
        (["check", "--stack", "dev\u202eyaml"], "\\u202e"),
        (["check", "--stack", "x" * 101], "is not a stack name"),
        (["check", "--config", ""], "--config: is empty"),
        (["plan", "--config", "bad\x00dir/Pulumi.x.yaml"], "NUL"),
        (["check"], "required"),
        (["check", "--stack", "dev", "--config", "x"], "not allowed with"),
        (["check", "--stack", "dev", "--format", "xml"], "invalid choice"),
        (["launch"], "invalid choice"),
        (["check", "--bogus"], "unrecognized arguments"),
    ],
    ids=lambda value: ascii(value)[:30] if isinstance(value, list) else None,
)
def test_odd_command_lines(argv, needle):
    try:
        outcome = run(*argv)
    except SystemExit as exited:  # argparse usage errors
        outcome = None
        assert exited.code == 2
        return
    assert_refused(outcome, needle)


def test_usage_errors_are_one_error_line(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["check", "--stack", "dev", "--format", "xml"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.splitlines()) == 1 and "invalid choice" in err


@pytest.mark.parametrize("kind", ["directory", "through-a-file", "symlink-loop", "fifo", "missing", "too-big"])
def test_config_paths_that_are_not_stack_files(tmp_path, kind):
    target = tmp_path / "Pulumi.x.yaml"
    if kind == "directory":
        target.mkdir()
    elif kind == "through-a-file":
        (tmp_path / "Pulumi.f.yaml").write_text(VALID)
        target = tmp_path / "Pulumi.f.yaml" / "Pulumi.x.yaml"
    elif kind == "symlink-loop":
        os.symlink(tmp_path / "Pulumi.y.yaml", target)
        os.symlink(target, tmp_path / "Pulumi.y.yaml")
    elif kind == "fifo":
        os.mkfifo(target)  # no writer: a blocking open would never return
    elif kind == "too-big":
        target.write_text(VALID + "# " + "x" * (limits.MAX_FILE_BYTES) + "\n")
    needle = {
        "directory": "is a directory",
        "through-a-file": "not a directory",
        "symlink-loop": "symlink loop",
        "fifo": "is a FIFO",
        "missing": "no such stack file",
        "too-big": "the limit for a stack file is 1048576",
    }[kind]
    assert_refused(run("plan", "--config", str(target)), needle)


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs /proc")
def test_proc_self_mem_is_refused():
    assert_refused(run("check", "--config", "/proc/self/mem"), "/proc/self/mem")


@pytest.mark.parametrize("failure", [RecursionError("deep"), MemoryError()])
def test_running_out_of_room_is_the_inputs_one_line_and_status_2(folder, monkeypatch, failure):
    """Issue 36: deep or large input that passed its bounds and still ran out of frames or memory names the file
    it came from, as bad input (exit 2), never as internal error."""
    import gpupools.cli.check as check

    def broken(*_args):
        raise failure

    monkeypatch.setattr(check, "run_check", broken)
    path = stack_file(folder, VALID)
    outcome = run("check", "--config", path)
    assert_safe(outcome)
    assert outcome.code == 2 and len(outcome.lines) == 1
    assert outcome.err.startswith(f"error: stack file {path}: too large to process") and "internal" not in outcome.err


def test_unreadable_file(folder, monkeypatch):
    # Tests run as root, which reads any file whatever its mode: make the open itself fail.
    path = stack_file(folder, VALID)

    def denied(_path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(loading, "_open_nonblocking", denied)
    assert_refused(run("check", "--config", path), "cannot be read: Permission denied")


@pytest.mark.parametrize("failure", [RuntimeError("boom \x1b[2J"), KeyError("k")])
def test_an_unexpected_failure_is_one_error_line_with_status_1(folder, monkeypatch, failure):
    import gpupools.cli.check as check

    def broken(*_args):
        raise failure

    monkeypatch.setattr(check, "run_check", broken)
    monkeypatch.delenv("GPUPOOLS_DEBUG", raising=False)
    outcome = run("check", "--config", stack_file(folder, VALID))
    assert_safe(outcome)
    assert outcome.code == 1 and len(outcome.lines) == 1
    assert (
        outcome.err.startswith(f"error: internal error: {type(failure).__name__}") and "GPUPOOLS_DEBUG" in outcome.err
    )
