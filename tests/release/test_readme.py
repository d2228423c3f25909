"""README.md is the five-minute read (issue 28): at most 250 lines, the two commands as the quick start has always
given them, one complete stack per cloud that is the stack file itself, and links that lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP_AND_PLAN = (
    "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/gpupools plan --stack dev"
)
TESTS = ".venv/bin/pip install -r requirements-dev.txt && .venv/bin/python -m pytest"
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= 250


def test_the_first_two_commands_are_setup_with_plan_then_the_tests() -> None:
    shell = [body.strip() for kind, body in FENCE.findall(README) if kind == "sh"]
    assert shell[:2] == [SETUP_AND_PLAN, TESTS]


def test_each_cloud_has_a_stack_inline_and_it_is_the_stack_file() -> None:
    """A YAML block is the whole stack file the sentence before it names, byte for byte."""
    shown = {}
    for match in FENCE.finditer(README):
        if match.group(1) != "yaml":
            continue
        named = re.findall(r"`(Pulumi\.[\w-]+\.yaml)`", README[: match.start()].rstrip().rsplit("\n\n", 1)[-1])
        assert named, f"no stack file named before the block at {match.start()}"
        shown[named[-1]] = match.group(2)
    assert set(shown) == {"Pulumi.dev.yaml", "Pulumi.eks.yaml"}
    for name, block in shown.items():
        assert block == (ROOT / name).read_text(encoding="utf-8"), name
    clouds = {re.search(r"gpupools:cloud: (\w+)", block).group(1) for block in shown.values()}
    assert clouds == {"azure", "aws"}


def test_every_relative_link_leads_to_a_file() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    relative = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/reference/") for link in relative)
    missing = [link for link in relative if not (ROOT / link).is_file()]
    assert not missing, missing
