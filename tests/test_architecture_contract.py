"""The picture is the contract (issue 34 item 5): docs/architecture.md's nevers block and pyproject.toml's
import-linter contracts are the same list, and the design's seven nevers are on it.

``test_architecture.py`` runs ``lint-imports`` on those contracts; this file proves they are the ones the design
draws, so a contract cannot be loosened in pyproject.toml (or bent with ``ignore_imports``) without the picture
saying so too.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "src" / "forgegate"

REQUIRED_NEVERS = {
    ("instruments", "gate"), ("instruments", "plan"), ("results", "gate"), ("report", "gate"),
    ("report", "instruments"), ("face", "gate"), ("run", "plan"),
}
"""Issue 34 item 5's nevers, part to part: Instruments->Gate, Instruments->Plan, Results->Gate, Report->Gate,
Report->Instruments, Face->Gate, Run->Plan."""


def nevers_block(text: str) -> dict[str, Any]:
    """The one ```toml block of "## The layers" (the parts, the layers and the nevers), parsed."""
    section = text.split("\n## The layers\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```toml\n(.*?)^```$", section, flags=re.S | re.M)
    assert len(blocks) == 1, f"'## The layers' in {DOC.name} must hold exactly one ```toml block, found {len(blocks)}"
    return tomllib.loads(blocks[0])


def modules(block: dict[str, Any], part: str) -> list[str]:
    return [f"forgegate.{name}" for name in block["parts"][part]]


def title(part: str) -> str:
    return part[:1].upper() + part[1:]


def contracts_from(block: dict[str, Any]) -> list[dict[str, Any]]:
    """pyproject.toml's contracts as the block draws them: the layers, then one forbidden contract per never."""
    layers = [" | ".join(f"forgegate.{name.strip()}" for name in layer.split("|")) for layer in block["layers"]]
    out: list[dict[str, Any]] = [{"name": "one road", "type": "layers", "layers": layers}]
    for never in block["never"]:
        contract: dict[str, Any] = {
            "name": f"{title(never['from'])} -> {', '.join(title(t) for t in never['to'])}: {never['why']}",
            "type": "forbidden",
            "source_modules": modules(block, never["from"]),
            "forbidden_modules": [m for target in never["to"] for m in modules(block, target)],
        }
        if never.get("direct_only"):
            contract["allow_indirect_imports"] = True
        out.append(contract)
    return out


def render(contracts: list[dict[str, Any]]) -> str:
    """The contracts as pyproject.toml text, for the failure message (paste it in place of the old ones)."""
    lines = []
    for contract in contracts:
        lines.append("[[tool.importlinter.contracts]]")
        for key, value in contract.items():
            if isinstance(value, list):
                value = "[" + ", ".join(f'"{v}"' for v in value) + "]"
            elif isinstance(value, bool):
                value = "true" if value else "false"
            else:
                value = f'"{value}"'
            lines.append(f"{key} = {value}")
        lines.append("")
    return "\n".join(lines)


def read_block() -> dict[str, Any]:
    return nevers_block(DOC.read_text(encoding="utf-8"))


def read_contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def test_pyproject_contracts_are_the_pictures_nevers() -> None:
    """Every contract in pyproject.toml is drawn from the docs' block, and every never in the block is a contract:
    same names, same sources, same forbidden modules, same indirectness, in the same order."""
    expected = contracts_from(read_block())
    actual = read_contracts()
    assert actual == expected, ("pyproject.toml's [tool.importlinter] contracts differ from docs/architecture.md's "
                                "nevers block; from the block they are:\n\n" + render(expected))


def test_the_design_nevers_are_all_drawn() -> None:
    """Issue 34's seven nevers are in the block (each part's own name, nothing narrower)."""
    block = read_block()
    drawn = {(never["from"], target) for never in block["never"] for target in never["to"]}
    assert REQUIRED_NEVERS - drawn == set(), f"nevers missing from the picture: {sorted(REQUIRED_NEVERS - drawn)}"
    assert block["parts"]["instruments"] == ["checks", "metrics", "semantic", "audit"]
    assert set(block["parts"]["face"]) >= {"cli", "api", "view"}
    for part in ("gate", "plan", "results", "report", "run"):
        assert block["parts"][part] == [part], f"part {part!r} must be the whole package, not a piece of it"


def test_no_contract_is_bent() -> None:
    """No contract ignores an import; a never held for direct imports only says why in the picture, and only the
    faces (which reach the gate through the pipeline by design) and one named pending case use it."""
    for contract in read_contracts():
        assert "ignore_imports" not in contract, f"contract {contract['name']!r} ignores imports"
        assert "unmatched_ignore_imports_alerting" not in contract
    for never in read_block()["never"]:
        why = never.get("direct_only")
        assert why is None or (isinstance(why, str) and len(why.split()) >= 8), (
            f"{never['from']} -> {never['to']}: direct_only must say why in words")


def test_every_part_names_a_real_module() -> None:
    """A part that names a module forgegate does not have would guard nothing."""
    missing = []
    for part, names in read_block()["parts"].items():
        for name in names:
            path = PACKAGE.joinpath(*name.split("."))
            if not (path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()):
                missing.append(f"{part}: {name}")
    assert missing == [], f"parts naming no module: {missing}"



def test_instruments_return_measurements_without_a_verdict() -> None:
    """Beyond the contracts (which keep ``gate/`` out): no instrument names ``Verdict`` or ``Reason``, so no
    instrument's report can carry a verdict; they may read a gate word handed to them (``Gate``)."""
    import ast

    block = read_block()
    found = []
    for name in block["parts"]["instruments"]:
        for path in sorted((PACKAGE / name).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("forgegate"):
                    named = {alias.name for alias in node.names} & {"Verdict", "Reason"}
                    if named:
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} imports {sorted(named)}")
    assert found == [], "instruments that could carry a verdict:\n" + "\n".join(found)
