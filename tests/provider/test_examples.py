"""The TypeScript and Pulumi YAML examples use the component package as the schema the provider serves describes it:
every resource type exists, every property is an input of its type (nested types included), values have the
schema's types and enum values, required inputs are given, and every output read exists. Their ``GpuPlatform``
args also pass the stack rules (``gpupools check``'s), so an example that type-checks but would be refused fails.

There is no Pulumi CLI or TypeScript toolchain here: ``index.ts`` is read by ``support.ts_literals`` (strict: it
refuses TypeScript it does not understand) and ``Pulumi.yaml`` by the project's safe YAML reader.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from support.schema_usage import Output, check_resource, output_of
from support.ts_literals import Ref, TsSyntaxError, read_program

pytest.importorskip("pulumi_azure_native")
pytest.importorskip("pulumi_eks")

ROOT = Path(__file__).resolve().parents[2]
TYPESCRIPT = ROOT / "examples" / "typescript-aks" / "index.ts"
YAML = ROOT / "examples" / "yaml-eks" / "Pulumi.yaml"
SDK_MODULE = "@pulumi/gpupools"  # the module `pulumi package add` generates for the package named gpupools
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\}")


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    from gpupools._version import __version__
    from gpupools.provider import COMPONENTS, PACKAGE_NAME, GpuPoolsProvider

    return json.loads(GpuPoolsProvider(COMPONENTS, PACKAGE_NAME, __version__).schema or "{}")


def _token(component: str) -> str:
    return f"gpupools:index:{component}"


# --- TypeScript -------------------------------------------------------------------------------------------------


def typescript_problems(text: str, schema: dict[str, Any]) -> tuple[list[str], dict[str, tuple[str, dict]]]:
    """Problems of a TypeScript program, and its resources (variable -> (type token, args))."""
    program = read_program(text)
    packages = {alias for alias, module in program.imports.items() if module == SDK_MODULE}
    problems: list[str] = [] if packages else [f"no `import * as ... from {SDK_MODULE!r}`"]
    types: dict[str, str] = {}
    resources: dict[str, tuple[str, dict]] = {}

    def resolved(value: Any, where: str) -> Any:
        if isinstance(value, Ref):
            prop = output_of(schema, types.get(value.resource, ""), value.output)
            if prop is None:
                problems.append(f"{where}: {value.resource}.{value.output} is not an output of an earlier resource")
                return Output({}, f"{value.resource}.{value.output}")
            return Output(prop, f"{value.resource}.{value.output}")
        if isinstance(value, dict):
            return {key: resolved(item, f"{where}.{key}") for key, item in value.items()}
        if isinstance(value, list):
            return [resolved(item, f"{where}[{i}]") for i, item in enumerate(value)]
        return value

    for new in program.resources:
        where = f"{new.variable} (line {new.line})"
        if new.module not in packages:
            problems.append(f"{where}: {new.module}.{new.component} is not from {SDK_MODULE}")
            continue
        args = resolved(new.args, where)
        problems += check_resource(schema, _token(new.component), args, where)
        types[new.variable] = _token(new.component)
        resources[new.variable] = (_token(new.component), args)
    for name, ref in program.exports.items():
        resolved(ref, f"export {name}")
    return problems, resources


def test_the_typescript_example_matches_the_schema(schema: dict[str, Any]) -> None:
    problems, resources = typescript_problems(TYPESCRIPT.read_text(encoding="utf-8"), schema)
    assert problems == []
    assert {token for token, _ in resources.values()} == {_token("GpuPlatform")}


# --- Pulumi YAML ------------------------------------------------------------------------------------------------


def yaml_problems(text: str, schema: dict[str, Any]) -> tuple[list[str], dict[str, tuple[str, dict]], dict[str, Any]]:
    """Problems of a Pulumi YAML program, its resources (name -> (type token, properties)) and its config defaults."""
    from gpupools.untrusted.safe_yaml import load_yaml

    program = load_yaml(text)
    problems: list[str] = []
    unknown = set(program) - {"name", "description", "runtime", "packages", "config", "resources", "outputs"}
    problems += [f"top level: {key!r} is not read by this check" for key in sorted(unknown)]
    config: dict[str, dict[str, Any]] = {}
    defaults: dict[str, Any] = {}
    for key, spec in (program.get("config") or {}).items():
        if ":" not in key:  # the program's own config; namespaced keys are providers' settings
            config[key] = {"type": spec["type"]}
            defaults[key] = spec.get("default")
    types = {name: body.get("type", "") for name, body in (program.get("resources") or {}).items()}

    def resolved(value: Any, where: str) -> Any:
        if isinstance(value, dict):
            return {key: resolved(item, f"{where}.{key}") for key, item in value.items()}
        if isinstance(value, list):
            return [resolved(item, f"{where}[{i}]") for i, item in enumerate(value)]
        if not isinstance(value, str) or "${" not in value:
            return value
        found = None
        for match in INTERPOLATION.finditer(value):
            name, output = match.groups()
            if output is None:
                found = config.get(name)
            else:
                found = output_of(schema, types.get(name, ""), output)
            if found is None:
                problems.append(f"{where}: {match.group()} names no config value or resource output")
        whole = INTERPOLATION.fullmatch(value)
        return Output(found or {}, value) if whole else value

    resources: dict[str, tuple[str, dict]] = {}
    for name, body in (program.get("resources") or {}).items():
        extra = set(body) - {"type", "properties"}
        problems += [f"{name}: {key!r} is not read by this check" for key in sorted(extra)]
        properties = resolved(body.get("properties") or {}, name)
        problems += check_resource(schema, body.get("type", ""), properties, name)
        resources[name] = (body.get("type", ""), properties)
    for name, value in (program.get("outputs") or {}).items():
        resolved(value, f"outputs.{name}")
    return problems, resources, defaults


def test_the_yaml_example_matches_the_schema(schema: dict[str, Any]) -> None:
    problems, resources, _ = yaml_problems(YAML.read_text(encoding="utf-8"), schema)
    assert problems == []
    assert {token for token, _ in resources.values()} == {_token("GpuPlatform")}


# --- The same rules as a stack file ------------------------------------------------------------------------------


def _python_args(schema: dict[str, Any], prop: dict[str, Any], value: Any, defaults: dict[str, Any]) -> Any:
    """Schema-named args as the Python component takes them: object keys in snake_case (map keys kept), config
    values by their default."""
    if isinstance(value, Output):
        return defaults[value.text[2:-1]]
    ref = prop.get("$ref", "")
    kind = schema["types"].get(ref.removeprefix("#/types/"), {}) if ref.startswith("#/types/") else prop
    if isinstance(value, dict) and "properties" in kind:
        return {
            _snake(key): _python_args(schema, kind["properties"][key], item, defaults) for key, item in value.items()
        }
    if isinstance(value, dict):
        extra = kind.get("additionalProperties", {})
        return {key: _python_args(schema, extra, item, defaults) for key, item in value.items()}
    if isinstance(value, list):
        return [_python_args(schema, kind.get("items", {}), item, defaults) for item in value]
    return value


def _snake(name: str) -> str:
    return re.sub(r"[A-Z]", lambda upper: "_" + upper.group().lower(), name)


def _platform_stack(schema: dict[str, Any], properties: dict[str, Any], defaults: dict[str, Any]):
    from gpupools.platform.component import validated_stack

    inputs = {"properties": schema["resources"][_token("GpuPlatform")]["inputProperties"]}
    stack, _ = validated_stack("example", _python_args(schema, inputs, properties, defaults))
    return stack


def test_the_typescript_platform_passes_the_stack_rules(schema: dict[str, Any]) -> None:
    _, resources = typescript_problems(TYPESCRIPT.read_text(encoding="utf-8"), schema)
    stack = _platform_stack(schema, resources["platform"][1], {})
    assert stack.cloud == "azure" and [pool.name for pool in stack.pools] == ["mig1g"]


def test_the_yaml_platform_passes_the_stack_rules(schema: dict[str, Any]) -> None:
    _, resources, defaults = yaml_problems(YAML.read_text(encoding="utf-8"), schema)
    stack = _platform_stack(schema, resources["platform"][1], defaults)
    assert stack.cloud == "aws" and stack.config.cluster.name == defaults["clusterName"]


# --- The checks fail on a mistake ---------------------------------------------------------------------------------

# (text in the example, its replacement, what the problem names)
MISTAKES = [
    ("migStrategy:", "migStratgy:", "unknown property 'migStratgy'"),
    ("installer: ", "instaler: ", "the required property 'installer' is missing"),
    ("GpuPlatform", "GpuPlatfrom", "is not a resource of the package"),
    ("count: 2", "count: true", "is not a integer"),
]


TYPESCRIPT_MISTAKES = [*MISTAKES, ("platform.clusterName", "platform.clusterNaem", "is not an output")]


def _broken(text: str, old: str, new: str) -> str:
    assert old in text, f"the example no longer has {old!r}: update the mistake"
    return text.replace(old, new, 1)


@pytest.mark.parametrize("old, new, named", TYPESCRIPT_MISTAKES, ids=[new for _, new, _ in TYPESCRIPT_MISTAKES])
def test_a_mistake_in_the_typescript_example_is_found(schema: dict[str, Any], old: str, new: str, named: str) -> None:
    problems, _ = typescript_problems(_broken(TYPESCRIPT.read_text(encoding="utf-8"), old, new), schema)
    assert any(named in problem for problem in problems), problems


YAML_MISTAKES = [
    *MISTAKES,
    ("installer: gpu-operator", "installer: gpu-operater", "'gpu-operater' is not one of"),
    ('kubernetesVersion: "1.35"', "kubernetesVersion: 1.35", "is not a string"),
    ("${platform.clusterName}", "${platform.clusterNaem}", "names no config value or resource output"),
]


@pytest.mark.parametrize("old, new, named", YAML_MISTAKES, ids=[new for _, new, _ in YAML_MISTAKES])
def test_a_mistake_in_the_yaml_example_is_found(schema: dict[str, Any], old: str, new: str, named: str) -> None:
    problems, _, _ = yaml_problems(_broken(YAML.read_text(encoding="utf-8"), old, new), schema)
    assert any(named in problem for problem in problems), problems


def test_an_output_in_a_plain_input_is_found(schema: dict[str, Any]) -> None:
    """Only names, ids and counts may be outputs: an AKS pool's own name taken from another resource is refused,
    its cluster's name is not."""
    extra = (
        'const extra = new gpupools.AksGpuPool("extra", {clusterName: platform.clusterName, '
        'resourceGroupName: "gpu-ts-rg", poolName: platform.clusterName, vmSize: "Standard_ND96asr_v4", count: 1});\n'
    )
    text = TYPESCRIPT.read_text(encoding="utf-8")
    problems, _ = typescript_problems(text + extra, schema)
    line = len(text.splitlines()) + 1
    assert problems == [f"extra (line {line}).poolName: must be a plain value, not the output platform.clusterName"]


def test_the_typescript_reader_refuses_what_it_does_not_read() -> None:
    with pytest.raises(TsSyntaxError, match="line 2"):
        read_program('import * as gpupools from "@pulumi/gpupools";\nconst x = gpupools.make();\n')
    with pytest.raises(TsSyntaxError, match="not a literal"):
        read_program('import * as g from "@pulumi/gpupools";\nconst p = new g.GpuPlatform("p", {cloud: cloudName});')


def test_a_config_the_rules_refuse_fails_the_example(schema: dict[str, Any]) -> None:
    """The schema takes any string as a MIG profile; the stack rules do not take one the size lacks."""
    from gpupools.component_args.fields import ComponentArgsError

    text = _broken(TYPESCRIPT.read_text(encoding="utf-8"), 'profile: "MIG1g"', 'profile: "MIG9g"')
    problems, resources = typescript_problems(text, schema)
    assert problems == []
    with pytest.raises(ComponentArgsError, match="MIG9g"):
        _platform_stack(schema, resources["platform"][1], {})


def test_the_examples_consume_the_package_the_readme_names() -> None:
    """Both projects name the package as `pulumi package add` records it, from the source the docs give; the
    TypeScript one depends on the SDK it generates and compiles index.ts."""
    from gpupools.untrusted.safe_yaml import load_yaml
    from gpupools.untrusted.strict_json import strict_loads

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    said = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    source = re.search(r"`pulumi package add (https://\S+)`", said)
    assert source, "neither the README nor docs/ says how to add the package"
    typescript = TYPESCRIPT.parent
    project = load_yaml((typescript / "Pulumi.yaml").read_text(encoding="utf-8"))
    assert project["runtime"] == "nodejs" and project["packages"] == {"gpupools": source.group(1)}
    assert load_yaml(YAML.read_text(encoding="utf-8"))["packages"] == {"gpupools": source.group(1)}
    package = strict_loads((typescript / "package.json").read_text(encoding="utf-8"))
    assert package["dependencies"][SDK_MODULE] == "file:sdks/gpupools" and "@pulumi/pulumi" in package["dependencies"]
    assert strict_loads((typescript / "tsconfig.json").read_text(encoding="utf-8"))["files"] == ["index.ts"]
