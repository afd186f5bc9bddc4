"""Reference pages built from the code (never copied by hand).

``write_reference.py`` writes what these functions return into docs/, where they are committed (a test fails,
naming it, when they go stale); ``gen_pages.py`` (run by mkdocs-gen-files) writes the root files' copies; the tests
(tests/test_docs_reference.py) call the same functions, so a command, option or result field
without help text fails the suite, not only the site.
"""

from __future__ import annotations

import ast
import html
import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src" / "forgegate"


# ---------------------------------------------------------------- helpers


def cell(text: object) -> str:
    """Text safe inside a Markdown table cell: HTML escaped, pipes escaped, one line."""
    out = html.escape(" ".join(str(text).split()), quote=False)
    return out.replace("|", "\\|")


def prose(text: str) -> str:
    """A help text as a paragraph: HTML escaped (``<kind>`` is not a tag), lines kept."""
    return html.escape(text.strip(), quote=False)


# ---------------------------------------------------------------- CLI


@dataclass(frozen=True)
class CommandDoc:
    path: tuple[str, ...]
    help: str
    usage: str
    params: list[dict[str, str]]
    is_group: bool


def cli_root() -> Any:
    """The click command behind the typer app (typer vendors click: duck-typed, not isinstance)."""
    import typer

    from forgegate.cli.main import app

    return typer.main.get_command(app)


def walk_commands(cmd: Any | None = None, path: tuple[str, ...] = ("forgegate",)) -> Iterator[CommandDoc]:
    """Every command and group of the CLI, depth first, in registration order."""
    cmd = cli_root() if cmd is None else cmd
    ctx_cls = type(cmd).context_class
    ctx = ctx_cls(cmd, info_name=" ".join(path))
    params = []
    for p in cmd.params:
        if getattr(p, "hidden", False):
            continue
        if p.param_type_name == "option":
            names = ", ".join(f"`{o}`" for o in [*p.opts, *p.secondary_opts])
            kind = "flag" if getattr(p, "is_flag", False) else _type_name(p, ctx)
        else:
            names = f"`{(p.metavar or p.name).upper()}`"
            kind = "argument"
        default = p.default
        shown = "" if default is None or callable(default) or p.required else repr(default)
        params.append({"names": names, "kind": kind, "required": "yes" if p.required else "",
                       "default": shown, "help": (getattr(p, "help", None) or "").strip(),
                       "name": p.name or ""})
    subcommands = getattr(cmd, "commands", None)
    usage = re.sub(r"\{(\w+)\}", lambda m: m.group(1).upper(), " ".join(cmd.collect_usage_pieces(ctx)))
    yield CommandDoc(path, (cmd.help or cmd.short_help or "").strip(), usage,
                     params, subcommands is not None)
    for name, sub in (subcommands or {}).items():
        if not getattr(sub, "hidden", False):
            yield from walk_commands(sub, (*path, name))


def cli_missing_help(root: Any | None = None) -> list[str]:
    """Commands and options with no help text: what the reference could not explain."""
    missing = []
    for doc in walk_commands(root):
        if not doc.help:
            missing.append(" ".join(doc.path))
        missing.extend(f"{' '.join(doc.path)} {p['names']}" for p in doc.params if not p["help"])
    return missing


def _type_name(param: Any, ctx: Any) -> str:
    """The value's type as --help shows it (click's ``type.name``; typer >= 0.29's ``display_type``)."""
    click_type = getattr(param, "type", None)
    if click_type is not None:
        return str(click_type.name).upper()
    try:
        return str(param.display_type(ctx)).strip("<>").upper()
    except Exception:  # noqa: BLE001 - the type is decoration; the help text is what the page needs
        return "VALUE"


def cli_page() -> str:
    docs = list(walk_commands())
    out = ["# Command line", "",
           "Generated from the typer app (`forgegate.cli.main.app`) each time the site is built: every command and",
           "option below is what `forgegate COMMAND --help` prints. Exit codes: [Exit codes](exit-codes.md).", ""]
    for doc in docs[1:]:
        name = " ".join(doc.path)
        out += [f"## `{name}`" if len(doc.path) == 2 else f"### `{name}`", "", prose(doc.help), ""]
        out += ["```text", f"{name} {doc.usage}".rstrip(), "```", ""]
        if doc.is_group:
            subs = [d for d in docs if d.path[:-1] == doc.path]
            out += ["| command | what it does |", "|---|---|"]
            out += [f"| `{' '.join(s.path)}` | {cell(s.help.splitlines()[0] if s.help else '')} |" for s in subs]
            out.append("")
        if doc.params:
            out += ["| option | type | default | help |", "|---|---|---|---|"]
            for p in doc.params:
                req = " (required)" if p["required"] else ""
                out.append(f"| {p['names']}{req} | {cell(p['kind'])} | {cell(p['default'])} | {cell(p['help'])} |")
            out.append("")
    root = docs[0]
    out += ["## Global options", "", "| option | help |", "|---|---|"]
    out += [f"| {p['names']} | {cell(p['help'])} |" for p in root.params]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- exit codes


def exit_codes_page() -> str:
    from forgegate.core.verdict import Gate

    out = ["# Exit codes", "",
           "Generated from `forgegate.core.verdict`: `Gate.exit_code` for the five verdict words, the `EXIT_*`",
           "constants for everything else. Every command exits by one of these.", "",
           "| exit code | meaning |", "|---|---|"]
    by_code: dict[int, list[str]] = {}
    for gate in Gate:
        by_code.setdefault(gate.exit_code, []).append(f"`{gate.value}`")
    out += [f"| `{code}` | verdict {' or '.join(words)} |" for code, words in sorted(by_code.items())]
    tree = ast.parse((SRC / "core" / "verdict.py").read_text(encoding="utf-8"))
    body = tree.body
    for i, node in enumerate(body):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id.startswith("EXIT_") and isinstance(node.value, ast.Constant)):
            doc = ""
            nxt = body[i + 1] if i + 1 < len(body) else None
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
                doc = str(nxt.value.value)
            out.append(f"| `{node.value.value}` | {cell(doc)} (`{node.targets[0].id}`) |")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- models (results, file formats)


def _type_of(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "const" in prop:
        return json.dumps(prop["const"], ensure_ascii=False)
    if "enum" in prop:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return " or ".join(_type_of(p) for p in prop[key])
    kind = prop.get("type", "any")
    if kind == "array":
        if "prefixItems" in prop:
            return "[" + ", ".join(_type_of(p) for p in prop["prefixItems"]) + "]"
        return f"list of {_type_of(prop.get('items', {}))}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map to {_type_of(prop['additionalProperties'])}"
    return str(kind)


def _models_of(schema: dict[str, Any], title: str) -> list[tuple[str, dict[str, Any]]]:
    return [(title, schema), *sorted(schema.get("$defs", {}).items())]


def schema_tables(schema: dict[str, Any], title: str, level: int = 2) -> list[str]:
    """One table per model of a JSON Schema: field, type, required, default, description."""
    out: list[str] = []
    for name, model in _models_of(schema, title):
        if "properties" not in model:
            if "enum" in model:
                out += [f"{'#' * level} {name}", "", prose(model.get("description", "")), "",
                        "One of: " + ", ".join(f"`{v}`" for v in model["enum"]), ""]
            continue
        required = set(model.get("required", []))
        out += [f"{'#' * level} {name}", ""]
        if model.get("description"):
            out += [prose(model["description"]), ""]
        out += ["| field | type | required | default | description |", "|---|---|---|---|---|"]
        for field, prop in model["properties"].items():
            default = json.dumps(prop["default"], ensure_ascii=False) if "default" in prop else ""
            needed = "yes" if field in required else ""
            out.append(f"| `{field}` | {cell(_type_of(prop))} | {needed} | {cell(default)} | "
                       f"{cell(prop.get('description', ''))} |")
        out.append("")
    return out


def undescribed_fields(schema: dict[str, Any], title: str) -> list[str]:
    """``Model.field`` for every property of the schema with no description."""
    return [f"{name}.{field}" for name, model in _models_of(schema, title)
            for field, prop in model.get("properties", {}).items() if not prop.get("description")]


def result_schemas() -> dict[str, dict[str, Any]]:
    """Each result kind's JSON Schema, from the same function ``forgegate schema KIND`` prints."""
    from forgegate.results import MODELS, json_schema

    return {name: json_schema(name) for name in MODELS}


def results_index_page(schemas: dict[str, dict[str, Any]]) -> str:
    from forgegate.core.kinds import RESULT_KINDS

    out = ["# Result files (`--json`)", "",
           "Every command that writes `--json` writes one of these. Each result carries `kind` and",
           "`schema_version`; `forgegate schema KIND` prints the JSON Schema these pages are generated from.",
           "`live` results use the `eval` schema.", "", "| kind | schema page |", "|---|---|"]
    for kind in RESULT_KINDS:
        name = "eval" if kind == "live" else kind
        out.append(f"| `{kind}` | [{name}]({name}.md) |")
    return "\n".join(out) + "\n"


def result_page(name: str, schema: dict[str, Any]) -> str:
    out = [f"# `{name}` result", "", prose(schema.get("description", "")), "",
           f"Generated from `forgegate schema {name}`. Fields, model by model:", ""]
    out += schema_tables(schema, schema.get("title", name))
    out += ["## JSON Schema", "", f'??? note "forgegate schema {name}"', "", "    ```json"]
    out += ["    " + line for line in json.dumps(schema, indent=2, ensure_ascii=False).splitlines()]
    out += ["    ```", ""]
    return "\n".join(out) + "\n"


FILE_FORMATS: dict[str, tuple[str, str, str]] = {
    "battery": ("forgegate.battery.item", "BatteryItem",
                "A battery is JSONL: one JSON object a line, each an item with these fields. Unknown fields are "
                "refused, values are read strictly, and every error names the file, the line and the field."),
    "gate-config": ("forgegate.gate.gloss_config", "GateConfig",
                    "A GLOSS gate config is a TOML file (`--gate-config`); the bundled preset is "
                    "`src/forgegate/data/gates/gloss-v2.toml`."),
    "plan": ("forgegate.plan.plan_file", "Plan",
             "A plan is a TOML file (`forgegate plan lock`, `forgegate run`): arms, fixture, seeds, sampling, "
             "comparisons and instruments, frozen by its lock before anything is generated."),
}


def attribute_docstrings(cls: type) -> dict[str, str]:
    """The docstring under each field of a class (``x: int`` then ``\"\"\"why\"\"\"``), read from its source.

    User-file models carry these docstrings but not pydantic's ``use_attribute_docstrings`` (it would change
    their behaviour for no one but the docs), so the format pages read them here."""
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    out = {}
    for node, nxt in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)):
            out[node.target.id] = inspect.cleandoc(nxt.value.value)
    return out


def _model_classes(model: type) -> dict[str, type]:
    """The model and every pydantic model its fields hold, by name (as the JSON Schema's ``$defs`` name them)."""
    import typing

    from pydantic import BaseModel

    found: dict[str, type] = {}

    def visit(tp: Any) -> None:
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            if tp.__name__ in found:
                return
            found[tp.__name__] = tp
            for field in tp.model_fields.values():
                visit(field.annotation)
        for arg in typing.get_args(tp):
            visit(arg)

    visit(model)
    return found


def file_format_schema(key: str) -> dict[str, Any]:
    """The model's JSON Schema, with each field's attribute docstring as its description where it has none."""
    import importlib

    module, cls, _ = FILE_FORMATS[key]
    model = getattr(importlib.import_module(module), cls)
    schema: dict[str, Any] = model.model_json_schema(mode="validation")
    classes = _model_classes(model)
    for name, part in _models_of(schema, cls):
        docs = attribute_docstrings(classes[name]) if name in classes else {}
        for field, prop in part.get("properties", {}).items():
            alias_of = next((f for f, info in classes[name].model_fields.items() if info.alias == field), field) \
                if name in classes else field
            if not prop.get("description") and docs.get(alias_of):
                prop["description"] = docs[alias_of]
    return schema


def file_format_page(key: str) -> str:
    module, cls, intro = FILE_FORMATS[key]
    schema = file_format_schema(key)
    out = [f"# {key.replace('-', ' ').capitalize()} file format", "", intro, "",
           f"Generated from the pydantic model `{module}.{cls}`.", ""]
    out += schema_tables(schema, cls)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- failure modes


def failure_modes_page() -> str:
    from forgegate.core.modes import FailureMode

    data = tomllib.loads(resources.files("forgegate").joinpath("data/failure_modes.toml").read_text("utf-8"))
    modes = data.get("modes", {})
    out = ["# Failure modes", "",
           "Generated from the one enum, `forgegate.core.modes.FailureMode`, and the data that describes each",
           "label, `src/forgegate/data/failure_modes.toml` (the numbers a detector reads live there too).", "",
           "| label | scope | description |", "|---|---|---|"]
    out += [f"| [`{m.value}`](#{m.value.lower()}) | {cell(modes.get(m.value, {}).get('scope', ''))} | "
            f"{cell(modes.get(m.value, {}).get('description', ''))} |" for m in FailureMode]
    out.append("")
    for m in FailureMode:
        entry = modes.get(m.value, {})
        out += [f"## {m.value}", ""]
        for key in ("description", "signature", "detected_by", "scope"):
            if key in entry:
                out.append(f"- **{key.replace('_', ' ')}**: {prose(str(entry[key]))}")
        params = entry.get("params")
        if params:
            out += ["", "| parameter | value |", "|---|---|"]
            out += [f"| `{k}` | `{cell(json.dumps(v, ensure_ascii=False))}` |" for k, v in params.items()]
        out.append("")
    return "\n".join(out) + "\n"


def failure_modes_missing() -> list[str]:
    """Enum labels the data file does not describe (and the reverse)."""
    from forgegate.core.modes import FailureMode

    data = tomllib.loads(resources.files("forgegate").joinpath("data/failure_modes.toml").read_text("utf-8"))
    described = {k for k, v in data.get("modes", {}).items() if v.get("description")}
    names = {m.value for m in FailureMode}
    return sorted((names - described) | (set(data.get("modes", {})) - names))


# ---------------------------------------------------------------- files at the repository's root


ROOT = SRC.parents[1]
ROOT_FILES = {"project/contributing.md": "CONTRIBUTING.md", "project/changelog.md": "CHANGELOG.md"}


def root_file_page(name: str, depth: int = 1) -> str:
    """A root Markdown file as a site page: ``docs/X`` links point into the site, other repository paths
    become plain text (the site holds no copy of them)."""
    text = (ROOT / name).read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/", "](" + "../" * depth, text)
    return re.sub(r"\[([^\]]+)\]\((?!https?:|#|\.\./)[^)]*\)", r"\1", text)


# ---------------------------------------------------------------- all pages


def pages() -> dict[str, str]:
    """Path under docs/ -> Markdown, for every generated page."""
    out = {"reference/cli.md": cli_page(), "reference/exit-codes.md": exit_codes_page(),
           "reference/failure-modes.md": failure_modes_page()}
    schemas = result_schemas()
    out["reference/results/index.md"] = results_index_page(schemas)
    for name, schema in schemas.items():
        out[f"reference/results/{name}.md"] = result_page(name, schema)
    for key in FILE_FORMATS:
        out[f"reference/formats/{key}.md"] = file_format_page(key)
    for path, name in ROOT_FILES.items():
        if (ROOT / name).exists():
            out[path] = root_file_page(name)
    return out
