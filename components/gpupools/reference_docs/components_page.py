"""The component reference (``docs/reference/components.md``): each component's inputs and outputs as the package
schema other languages read (``provider.package_schema``: the typed args and outputs with their attribute
docstrings, the enums built from the catalog tables, secrets marked), beside the Python names of the same args.

Inputs only Python can pass (pulumi-eks objects, left out of the schema) are listed from the args' own TypedDict.
"""

from __future__ import annotations

import ast
import importlib
import sys
import inspect
from pathlib import Path
from typing import Any

from pydantic.alias_generators import to_camel

from ..untrusted.files import read_text
from ..provider import COMPONENTS, PACKAGE_NAME, package_schema
from .markdown import code, codes, link, prose, table

TYPE_PREFIX = f"#/types/{PACKAGE_NAME}:index:"


def components_page() -> str:
    schema = package_schema()
    parts = [
        "# Component reference",
        "",
        "The Pulumi components of gpupools, with their inputs and outputs as every language sees them: the name in "
        "TypeScript, Go, C#, Java and YAML (`pulumi package add`) and the Python name of the same argument. "
        "An input marked *plain* must be a known value while planning (it decides sizes, MIG layouts, labels or chart "
        "values); the others may be another resource's output. How to use them: [Reuse](../reuse.md).",
        "",
        table(
            ["component", "Python module", "what it is"],
            [
                [
                    link(code(cls.__name__), cls.__name__),
                    code(_public_module(cls)),
                    _first_paragraph(schema["resources"][_token(cls)].get("description", "")),
                ]
                for cls in COMPONENTS
            ],
        ),
    ]
    for cls in COMPONENTS:
        parts += _component(cls, schema["resources"][_token(cls)])
    parts += ["", "## Types", "", "Objects and enums the inputs above refer to."]
    for token in sorted(schema["types"]):
        parts += _type_section(token.rsplit(":", 1)[-1], schema["types"][token])
    return "\n".join(parts) + "\n"


def _token(cls: type) -> str:
    return f"{PACKAGE_NAME}:index:{cls.__name__}"


def _public_module(cls: type) -> str:
    """The shortest documented import path of a component (``gpupools``, ``gpupools.azure``...)."""
    parts = cls.__module__.split(".")
    for depth in range(1, len(parts) + 1):
        module = importlib.import_module(".".join(parts[:depth]))
        if getattr(module, cls.__name__, None) is cls:
            return module.__name__
    return cls.__module__


def _component(cls: type, resource: dict[str, Any]) -> list[str]:
    args_type = _args_type(cls)
    python_names = {to_camel(name): name for name in getattr(args_type, "__annotations__", {})}
    inputs = resource.get("inputProperties", {})
    required = set(resource.get("requiredInputs", []))
    parts = ["", f"## {cls.__name__}", "", prose(_first_paragraph(resource.get("description", "")))]
    if args_type is not None:
        parts += ["", f"Python: `{cls.__name__}(name, args: {args_type.__name__}, opts=None)`."]
    rows = [
        [
            code(name),
            code(python_names.get(name, name)),
            _kind(prop),
            _input_notes(prop, name in required),
            prop.get("description", ""),
        ]
        for name, prop in inputs.items()
    ]
    parts += ["", "### Inputs", "", table(["input", "Python", "type", "", "meaning"], rows)]
    only_python = [name for camel, name in python_names.items() if camel not in inputs]
    if only_python and args_type is not None:
        docs = _attribute_docs(args_type)
        parts += ["", "Python only (objects other languages cannot pass):", ""]
        parts += [f"- `{name}`: {prose(docs.get(name, ''))}" for name in only_python]
    outputs = resource.get("properties", {})
    output_names = {to_camel(name): name for name in getattr(cls, "__annotations__", {})}
    rows = [
        [
            code(name),
            code(output_names.get(name, name)),
            _kind(prop),
            "secret" if prop.get("secret") else "",
            prop.get("description", ""),
        ]
        for name, prop in outputs.items()
    ]
    parts += ["", "### Outputs", "", table(["output", "Python", "type", "", "meaning"], rows)]
    return parts


def _args_type(cls: type) -> type | None:
    """The TypedDict of a component's ``args``; its annotation may be a string (postponed annotations)."""
    annotation = inspect.signature(cls.__init__).parameters["args"].annotation  # type: ignore[misc]
    if isinstance(annotation, str):
        annotation = vars(sys.modules[cls.__module__]).get(annotation.split("|")[0].strip())
    return annotation if isinstance(annotation, type) else None


def _input_notes(prop: dict[str, Any], required: bool) -> str:
    return ", ".join(note for note, on in (("required", required), ("plain", prop.get("plain", False))) if on)


def _kind(prop: dict[str, Any]) -> str:
    """A schema type in words, with a link to an object or enum type of this package."""
    ref = prop.get("$ref")
    if isinstance(ref, str):
        if ref.startswith(TYPE_PREFIX):
            name = ref.removeprefix(TYPE_PREFIX)
            return link(name, name)
        return code(ref.rsplit("/", 1)[-1])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_kind(prop.get('items', {}))}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map of {_kind(prop['additionalProperties'])}"
    return str(kind)


def _type_section(name: str, spec: dict[str, Any]) -> list[str]:
    parts = ["", f"### {name}", ""]
    if spec.get("description"):
        parts += [prose(_first_paragraph(spec["description"])), ""]
    if "enum" in spec:
        parts.append(f"One of {codes(value['value'] for value in spec['enum'])}.")
        return parts
    rows = [
        [code(key), _kind(prop), "plain" if prop.get("plain") else "", prop.get("description", "")]
        for key, prop in spec.get("properties", {}).items()
    ]
    parts.append(table(["property", "type", "", "meaning"], rows))
    return parts


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n")[0].split())


def _attribute_docs(typed_dict: type) -> dict[str, str]:
    """The docstrings under a TypedDict's keys (PEP 257 attribute docstrings), read from its module's source."""
    source = sys.modules[typed_dict.__module__].__file__
    if source is None:
        return {}
    tree = ast.parse(read_text(Path(source), "module source"))
    docs: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == typed_dict.__name__:
            for first, second in zip(node.body, node.body[1:]):
                if (
                    isinstance(first, ast.AnnAssign)
                    and isinstance(first.target, ast.Name)
                    and isinstance(second, ast.Expr)
                    and isinstance(second.value, ast.Constant)
                    and isinstance(second.value.value, str)
                ):
                    docs[first.target.id] = " ".join(second.value.value.split())
    return docs
