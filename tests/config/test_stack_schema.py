"""The stack files' JSON Schema (``gpupools schema``, committed as schema/stack.schema.json): every shipped and test
stack validates against it, a typo does not, the shipped stacks name it on their first line, and the committed
copy is what the models generate today."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from gpupools.config.schema import SCHEMA_PATH, schema_text
from support.base_configs import AWS, AZURE, PINNED_AWS, PINNED_AZURE, VALID_AWS
from support.chart_variants import MODE_VARIANTS, REPO, STACK_FILES, variant_stack_file
from support.cli import run_cli

SCHEMA_FILE = REPO / SCHEMA_PATH
FIRST_LINE = "# yaml-language-server: $schema=./schema/stack.schema.json"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _errors(validator: Draft202012Validator, document: object) -> list[str]:
    return [error.message for error in validator.iter_errors(document)]


def test_committed_schema_is_current() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "schema/stack.schema.json is stale: run gpupools schema > schema/stack.schema.json"
    )


def test_command_prints_the_schema() -> None:
    run = run_cli("schema")
    assert run.code == 0 and run.err == ""
    assert json.loads(run.out)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("stack", STACK_FILES)
def test_shipped_stack_validates_and_names_the_schema(validator: Draft202012Validator, stack: str) -> None:
    path = REPO / f"Pulumi.{stack}.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == FIRST_LINE
    assert (path.parent / "schema" / "stack.schema.json").is_file()
    assert _errors(validator, yaml.safe_load(text)) == []


@pytest.mark.parametrize("variant", MODE_VARIANTS, ids=lambda variant: variant.id)
def test_variant_stacks_validate(validator: Draft202012Validator, variant) -> None:
    assert _errors(validator, {"config": variant_stack_file(variant).config}) == []


@pytest.mark.parametrize("config", [AZURE, AWS, PINNED_AZURE, PINNED_AWS, VALID_AWS])
def test_test_stacks_validate(validator: Draft202012Validator, config: dict) -> None:
    assert _errors(validator, {"config": config}) == []


def test_key_typo_is_refused(validator: Draft202012Validator) -> None:
    document = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    software = document["config"]["gpupools:gpuSoftware"]
    software["migStratgy"] = software.pop("migStrategy")
    errors = _errors(validator, document)
    assert len(errors) == 1 and "migStratgy" in errors[0]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("gpupools:cloud", "gcp"),
        ("gpupools:gpuPools", []),
        ("gpupools:clutser", {"name": "x"}),
    ],
)
def test_bad_values_are_refused(validator: Draft202012Validator, key: str, value: object) -> None:
    assert _errors(validator, {"config": {**AZURE, key: value}})


def test_other_namespaces_stay_open_and_secure_strings_pass(validator: Draft202012Validator) -> None:
    cluster = {**AZURE["gpupools:cluster"], "resourceGroup": {"secure": "v1:abc"}}
    config = {**AZURE, "azure-native:location": "eastus", "gpupools:cluster": cluster}
    assert _errors(validator, {"config": config}) == []
    assert _errors(validator, {"config": {**AZURE, "gpupools:cloud": {"secure": "v1:abc"}}})


def test_check_jsonschema_accepts_the_shipped_stacks_and_refuses_a_typo(tmp_path: Path) -> None:
    """Through check-jsonschema's own command, run in this process by click's runner (two interpreter starts and
    imports of the tool were most of this module's time)."""
    check_jsonschema = pytest.importorskip("check_jsonschema", reason="check-jsonschema is in requirements-dev.txt")
    from click.testing import CliRunner

    def check(*files: str):
        return CliRunner().invoke(check_jsonschema.main, ["--schemafile", str(SCHEMA_FILE), *files])

    good = check(*(str(REPO / f"Pulumi.{stack}.yaml") for stack in STACK_FILES))
    assert good.exit_code == 0, good.output
    typo = tmp_path / "Pulumi.typo.yaml"
    typo.write_text((REPO / "Pulumi.dev.yaml").read_text(encoding="utf-8").replace("migStrategy", "migStratgy"))
    bad = check(str(typo))
    assert bad.exit_code == 1 and "migStratgy" in bad.output
