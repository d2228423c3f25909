"""MkDocs hook: publish the stack files' JSON Schema (schema/stack.schema.json, written by `gpupools schema`) at the
same path in the site, so an editor outside this repository can point `# yaml-language-server: $schema=` at it."""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File, Files

SCHEMA = "schema/stack.schema.json"


def on_files(files: Files, config) -> Files:
    source = Path(config["config_file_path"]).parent / SCHEMA
    files.append(File.generated(config, SCHEMA, abs_src_path=str(source)))
    return files
