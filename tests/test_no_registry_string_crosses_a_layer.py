"""No registry string crosses a layer (issue 34, item 4): a module that loads another by its name (a registry's
``declare``, a lazy ``import_module``) names only modules of its own package, where ``lint-imports`` sees the
same layer anyway. ``core/quality.py`` used to make core load ``forgegate.checks.quality`` this way; the quality
declarations now live with the battery (``battery.quality_rules``), which the plan schema reads without loading
an instrument.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from forgegate.battery.quality_rules import QUALITY_RULES
from forgegate.checks.quality import QUALITY_SCORERS

SRC = Path(__file__).resolve().parents[1] / "src" / "forgegate"
LOADERS = ("import_module", "declare")


def _package(module: str) -> str:
    """``forgegate.X`` of a dotted module name (``forgegate`` itself for the root's own modules)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else module


def _named_modules(tree: ast.AST) -> list[str]:
    """Every ``forgegate.`` module a string in the file names (a lazy-import table's values, a declare's
    argument, an f-string's fixed prefix)."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("forgegate."):
            found.append(node.value)
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            prefix = str(node.values[0].value)
            if prefix.startswith("forgegate."):
                found.append(prefix.rstrip("."))
    return [name for name in found if " " not in name and name.replace(".", "").replace("_", "").isalnum()]


def string_loads_across_layers() -> list[str]:
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        loads = any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name)
                    and getattr(node.func, "attr", getattr(node.func, "id", None)) in LOADERS
                    for node in ast.walk(tree))
        if not loads:
            continue
        rel = path.relative_to(SRC.parent).with_suffix("")
        own = _package(".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts))
        for target in _named_modules(tree):
            if own != "forgegate" and _package(target) != own:
                problems.append(f"{path.relative_to(SRC.parent)} loads {target} by name")
    return problems


def test_no_module_loads_a_module_of_another_package_by_name() -> None:
    assert string_loads_across_layers() == []


def test_the_scan_sees_a_cross_layer_load_when_there_is_one(tmp_path: Path) -> None:
    """The check is not vacuous: core declaring an instrument's module (what core/quality.py did) is caught."""
    tree = ast.parse('QUALITY_SCORERS.declare("exact", "forgegate.checks.quality")\n')
    assert _named_modules(tree) == ["forgegate.checks.quality"]
    assert _package("forgegate.checks.quality") != _package("forgegate.core.quality")


def test_every_declared_quality_rule_has_its_scorer_and_the_plan_loads_none() -> None:
    assert set(QUALITY_SCORERS.names()) == set(QUALITY_RULES)
    assert all(QUALITY_SCORERS.get(name).declaration is rule for name, rule in QUALITY_RULES.items())
    from test_quality_guardrails import HUMAN, PLAN

    probe = ("import json, sys\nfrom pathlib import Path\nfrom forgegate.plan import parse_plan_text\n"
             "loaded = parse_plan_text(Path('plan.toml'), sys.argv[1])\n"
             "print('PROBE', json.dumps({'scorers': sorted(d.scorer for d in "
             "loaded.plan.instruments.semantic.q_task.tasks.values()), "
             "'instruments': sorted(m for m in sys.modules if m.startswith('forgegate.checks'))}))\n")
    done = subprocess.run([sys.executable, "-c", probe, PLAN.replace("{quality}", HUMAN)], capture_output=True,
                          text=True, timeout=300, check=False)
    line = next((line for line in done.stdout.splitlines() if line.startswith("PROBE ")), None)
    assert line is not None, done.stdout + done.stderr
    found = json.loads(line.removeprefix("PROBE "))
    assert found["scorers"] == ["human-review", "numeric"]  # validated by their declarations
    assert found["instruments"] == []  # and no instrument was loaded to do it
