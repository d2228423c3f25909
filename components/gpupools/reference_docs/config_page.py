"""The configuration reference (``docs/reference/configuration.md``): every key of a stack file, from the config
models' fields and their ``description`` (the same text the JSON Schema carries, ``config.schema``), with the allowed
values read from the models' types and bounds and from the catalog tables (sizes, MIG profiles, GPU models,
installers, Kubernetes minors, regions)."""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ..catalog.cloud import Cloud, KubernetesOffer
from ..catalog.cloud_registry import clouds
from ..catalog.gpus import GPU_MODELS
from ..catalog.installers import INSTALLERS
from ..catalog.regions import Places
from ..config.errors import NAMESPACE
from ..config.models import ClusterConfig, GpuPoolConfig, StackConfig
from ..config.schema import ENUMS, RESERVATION_MAPPINGS
from ..facts.sizes import size_rows
from .markdown import code, codes, link, table

SIZES = "Sizes"
GPU_MODELS_HEADING = "GPU models"
INSTALLERS_HEADING = "Installers"
MINORS = "Kubernetes minors"
# Fields whose allowed values are a catalog table, not a type: where the table is on this page.
FROM_CATALOG: dict[tuple[str, str], str] = {
    ("GpuPoolConfig", "size"): f"a {link('catalog size', SIZES)}, or a name declared in `customSizes`",
    ("MigConfig", "profile"): f"a MIG profile of the pool's size ({link('sizes', SIZES)})",
    ("MigConfig", "layout"): f"a named layout of the pool's GPU ({link('sizes', SIZES)}), a per-GPU mix, or "
    "entries whose `gpus` add up to the size's GPUs",
    ("CustomSize", "gpu"): f"a {link('catalog GPU model', GPU_MODELS_HEADING)}",
    ("ClusterConfig", "kubernetes_version"): f"a minor the cloud offers on the plan's date ({link(MINORS, MINORS)})",
    ("GpuSoftware", "version"): f"an exact chart version ({link('pinned defaults', INSTALLERS_HEADING)})",
}


def configuration_page() -> str:
    parts = [
        "# Configuration reference",
        "",
        f"Every key of a stack file lives under the `{NAMESPACE}:` namespace of `Pulumi.<stack>.yaml`'s `config:`. "
        "Unknown keys are errors (with the key they were probably meant to be), and values are not coerced "
        '(`count: "3"` is refused). The same models give the [JSON Schema](schema.md) editors use. Where each rule '
        "comes from: [Sources](../sources.md).",
    ]
    for heading, model, prefix in _sections():
        parts += ["", f"## {heading}", "", _first_paragraph(model.__doc__), "", _fields_table(model, prefix)]
    parts += ["", "## Catalog", "", "The tables the rules read, as this version of gpupools ships them."]
    parts += _catalog()
    return "\n".join(parts) + "\n"


def _sections() -> list[tuple[str, type[BaseModel], str]]:
    """Each mapping's heading, model and key path prefix: the top-level keys, then each nested mapping under its
    key path, depth first."""
    found: list[tuple[str, type[BaseModel], str]] = [("Top-level keys", StackConfig, "")]

    def visit(model: type[BaseModel], prefix: str) -> None:
        for name, info in model.model_fields.items():
            nested, container = _nested(info.annotation)
            if nested is None:
                continue
            key = _key(name, info)
            path = f"{prefix}{key}{container}"
            found.append((_heading(path), nested, path + "."))
            visit(nested, path + ".")

    visit(StackConfig, "")
    return found


def _heading(path: str) -> str:
    """``cluster`` -> ```gpupools:cluster```; ``gpuPools[].mig`` stays a path."""
    top = path.split(".")[0].removesuffix("[]").removesuffix(".<size>")
    return f"`{NAMESPACE}:{path}`" if path in (top, f"{top}[]", f"{top}.<size>") else f"`{path}`"


def _nested(annotation: Any) -> tuple[type[BaseModel] | None, str]:
    """The model inside a field's type, and how it is held: ``""`` as is, ``"[]"`` in a list, ``".<size>"`` in a map."""
    for inner in _options(annotation):
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return inner, ""
        origin, args = get_origin(inner), get_args(inner)
        if origin is list and args and isinstance(args[0], type) and issubclass(args[0], BaseModel):
            return args[0], "[]"
        if origin is dict and args and isinstance(args[1], type) and issubclass(args[1], BaseModel):
            return args[1], ".<size>"
    return None, ""


def _options(annotation: Any) -> list[Any]:
    if get_origin(annotation) in (Union, types.UnionType):
        return [arg for arg in get_args(annotation) if arg is not type(None)]
    return [annotation]


def _key(name: str, info: FieldInfo) -> str:
    return info.alias or name


def _first_paragraph(doc: str | None) -> str:
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def _fields_table(model: type[BaseModel], prefix: str) -> str:
    rows = []
    for name, info in model.model_fields.items():
        kind = _type(model, name, info.annotation)
        nested, container = _nested(info.annotation)
        if nested is not None:  # the object's own section
            kind = kind.replace("object", link("object", _heading(f"{prefix}{_key(name, info)}{container}")), 1)
        rows.append(
            [
                code(_key(name, info)),
                kind,
                _default(info),
                _allowed(model, name, info),
                info.description or "",
            ]
        )
    return table(["key", "type", "default", "allowed", "meaning"], rows)


def _type(model: type[BaseModel], name: str, annotation: Any) -> str:
    words = " or ".join(_type_word(option) for option in _options(annotation))
    mapping = RESERVATION_MAPPINGS.get(name) if model is GpuPoolConfig else None
    return words + (f" or `{{{', '.join(mapping)}}}`" if mapping else "")


def _type_word(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return "string" if all(isinstance(arg, str) for arg in args) else "value"
    if origin is list:
        return f"list of {_type_word(args[0])}"
    if origin is dict:
        return f"map of {_type_word(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    return {str: "string", int: "integer", bool: "boolean", float: "number"}.get(annotation, str(annotation))


def _default(info: FieldInfo) -> str:
    if info.default_factory is not None:
        value = info.default_factory()  # type: ignore[call-arg]
        return code("{}" if isinstance(value, (dict, BaseModel)) else "[]")
    if info.default is PydanticUndefined:
        return "required"
    if info.default is None:
        return "unset"
    if info.default == "":
        return "computed"
    if isinstance(info.default, bool):
        return code(str(info.default).lower())
    return code(info.default)


def _allowed(model: type[BaseModel], name: str, info: FieldInfo) -> str:
    said = []
    literals = [arg for option in _options(info.annotation) for arg in _literal_values(option)]
    if literals:
        said.append(codes(literals))
    if (model.__name__, _key(name, info)) in ENUMS:
        said.append(codes(ENUMS[(model.__name__, _key(name, info))]))
    if (model.__name__, name) in FROM_CATALOG:
        said.append(FROM_CATALOG[(model.__name__, name)])
    said += [
        f"{cloud.display_name}: {link('the catalog list', _places_heading(cloud))}"
        for cloud in clouds()
        if model is ClusterConfig and name == cloud.region_field
    ]
    if model is StackConfig and name == "custom_sizes":
        said.append(f"each: {link('gpu and gpus', _heading('customSizes.<size>'))}")
    said += _bounds(info)
    return "; ".join(said)


def _literal_values(annotation: Any) -> tuple[Any, ...]:
    if get_origin(annotation) is Literal:
        return get_args(annotation)
    if get_origin(annotation) is list:
        return _literal_values(get_args(annotation)[0])
    return ()


def _bounds(info: FieldInfo) -> list[str]:
    found: dict[str, Any] = {}
    for item in info.metadata:
        for attribute in ("ge", "gt", "le", "lt", "min_length", "max_length", "pattern"):
            value = getattr(item, attribute, None)
            if value is not None:
                found[attribute] = value
    said = []
    low = f"{found['ge']}" if "ge" in found else (f"above {found['gt']}" if "gt" in found else None)
    if low is not None and "le" in found:
        said.append(f"{low}..{found['le']}" if "ge" in found else f"{low}, at most {found['le']}")
    elif low is not None:
        said.append(f"at least {low}" if "ge" in found else low)
    if "max_length" in found:
        said.append(f"{found.get('min_length', 0)}..{found['max_length']} items")
    elif found.get("min_length") == 1:
        said.append("not empty")
    if "pattern" in found:
        said.append(f"matching `{found['pattern']}`")
    return said


def _catalog() -> list[str]:
    parts = ["", f"### {SIZES}", "", "`gpupools sizes` prints the same, with slices per GPU and priced regions.", ""]
    rows = []
    for row in (size.to_json() for size in size_rows()):
        profiles = [
            (f"{profile['aks']} = " if profile["aks"] else "") + profile["profile"] for profile in row["migProfiles"]
        ]
        mix = row["layouts"].get("all-balanced", {})
        rows.append(
            [
                code(row["size"]),
                row["cloud"],
                f"{row['gpus']}x {row['gpu']}",
                ", ".join(profiles) or "none",
                ", ".join(f"{profile} x{count}" for profile, count in mix.items()),
                ", ".join(row["sharing"]),
            ]
        )
    parts.append(table(["size", "cloud", "GPUs", "MIG profiles", "`all-balanced` per GPU", "sharing"], rows))
    parts += ["", f"### {GPU_MODELS_HEADING}", ""]
    parts.append(
        table(
            ["GPU", "memory (GB)", "MIG profiles"],
            [
                [code(gpu.name), str(gpu.memory_gb), codes(profile.name for profile in gpu.profiles) or "none"]
                for gpu in GPU_MODELS.values()
            ],
        )
    )
    parts += ["", f"### {INSTALLERS_HEADING}", ""]
    parts.append(
        table(
            ["installer", "chart", "repository", "pinned version"],
            [
                [code(name), code(item.chart.name), item.chart.repo, code(item.chart.default_version)]
                for name, item in INSTALLERS.items()
            ],
        )
    )
    parts += ["", f"### {MINORS}", "", "On the plan's date a minor must be generally available and in support."]
    for cloud in clouds():
        offer = cloud.facet(KubernetesOffer)
        parts += ["", f"{offer.service} ({code(cloud.name)}):", ""]
        parts.append(
            table(
                ["minor", "generally available", "end of standard support", f"end of {offer.long_term}"],
                [
                    [code(minor), str(window.ga or "not yet"), str(window.standard_end), str(window.end)]
                    for minor, window in offer.minors.items()
                ],
            )
        )
    for cloud in clouds():
        places = cloud.facet(Places)
        parts += ["", f"### {_places_heading(cloud)}", ""]
        parts.append(f"From {places.source}, read {places.read_on}: {codes(sorted(places.names))}.")
    return parts


def _places_heading(cloud: Cloud) -> str:
    return f"{cloud.display_name} `{cloud.region_field}`"
