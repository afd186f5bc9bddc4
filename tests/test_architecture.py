"""The one road is a contract: the layers in pyproject.toml hold, and the CLI starts without the heavy libraries."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_layers_hold() -> None:
    """import-linter's contracts (pyproject.toml): the layers name every package, and the forbidden contracts keep
    the design's rules (report and view run no generation, instruments build no backend and parse no plan, gate
    imports no instrument); a wrong import fails here."""
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe is not None, "import-linter is a test dependency: pip install -e '.[test]'"
    done = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    assert len(contracts) >= 6  # the layers and the design's forbidden rules (report, view, instruments, gate, plan)
    assert f"Contracts: {len(contracts)} kept, 0 broken." in done.stdout


def test_every_package_is_in_a_layer() -> None:
    """A new package must be placed on the road; otherwise the contract would not see it."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = config["tool"]["importlinter"]["contracts"][0]
    named = {name.strip().removeprefix("forgegate.") for layer in contract["layers"] for name in layer.split("|")}
    package = ROOT / "src" / "forgegate"
    present = {p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    present |= {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    assert present - named == set(), f"not in any layer: {sorted(present - named)}"


def test_no_module_imports_itself_round_a_cycle() -> None:
    """Inside a package too, modules import one way at run time (imports for type checking only are not run)."""
    import grimp

    graph = grimp.build_graph("forgegate", exclude_type_checking_imports=True)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    assert cycles == [], f"import cycles: {cycles}"


# --- gate/ is the only place that decides ---------------------------------------------------------------------

VERDICT_WORDS = frozenset({"PASS", "FAIL", "HOLD", "INCOMPLETE", "INVALID"})
"""The five gate words (``core.verdict.Gate``); the test below checks this set against the enum."""
DECIDING_CALLS = frozenset({"Reason", "Verdict", "worst_gate"})
"""Calls that produce a verdict: a ``Reason``, a ``Verdict`` (also ``Verdict.combine``), ``worst_gate``."""
MAY_DECIDE = ("forgegate/gate/", "forgegate/core/")
"""``gate/`` writes every verdict; ``core/`` defines the words and how they combine."""
PENDING: frozenset[str] = frozenset()
"""Modules allowed to decide while their rule moves into gate/ (none now: graduation and the audits moved)."""


def _deciding_sites(path: Path) -> list[str]:
    """Where a module produces a verdict: builds a ``Reason``/``Verdict``, combines words, or names a gate word
    other than to compare with it. Reading is allowed: ``x.gate is Gate.FAIL``, ``Gate(payload["gate"])``,
    ``gate.value``, ``r["outcome"] != "PASS"``."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    compared: set[int] = set()  # nodes that are (inside) an operand of a comparison
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                compared.update(id(n) for n in ast.walk(operand))
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)):
            docstrings.add(id(body[0].value))
    sites: list[str] = []
    for node in ast.walk(tree):
        where = f"{path.as_posix().split('src/')[-1]}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
            if name in DECIDING_CALLS and not isinstance(func, ast.Attribute):
                sites.append(f"{where} calls {name}(...)")
            elif owner == "Verdict" and name == "combine":
                sites.append(f"{where} calls Verdict.combine(...)")
            elif name == "Gate" and any(isinstance(a, ast.Constant) for a in node.args):
                sites.append(f"{where} picks a word with Gate('...')")
        elif (isinstance(node, ast.Attribute) and node.attr in VERDICT_WORDS and isinstance(node.value, ast.Name)
              and node.value.id.endswith("Gate") and id(node) not in compared):
            sites.append(f"{where} picks {node.value.id}.{node.attr}")
        elif (isinstance(node, ast.Constant) and node.value in VERDICT_WORDS and id(node) not in compared
              and id(node) not in docstrings):
            sites.append(f"{where} writes the word {node.value!r}")
    return sites


def test_the_verdict_words_are_the_gate_enum() -> None:
    from forgegate.core.verdict import Gate

    assert {g.value for g in Gate} == VERDICT_WORDS


def test_only_gate_decides() -> None:
    """No module outside gate/ and core/ builds a Reason or a Verdict, combines words, or picks a gate word;
    it may read and compare them. A new rule goes in gate/ (docs/architecture.md, "How to add an instrument")."""
    package = ROOT / "src" / "forgegate"
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(ROOT / "src").as_posix()
        if relative.startswith(MAY_DECIDE) or relative in PENDING:
            continue
        found.extend(_deciding_sites(path))
    assert found == [], "verdicts decided outside gate/:\n" + "\n".join(found)
    stale = sorted(p for p in PENDING if not (ROOT / "src" / p).exists() or not _deciding_sites(ROOT / "src" / p))
    assert stale == [], f"no longer deciding outside gate/, take them out of PENDING: {stale}"


def test_the_scan_sees_a_decision_and_lets_a_reading_through(tmp_path: Path) -> None:
    """The criterion can fail: each way of deciding is caught, each way of reading is not."""
    deciding = tmp_path / "deciding.py"
    deciding.write_text(
        "from forgegate.core.verdict import Gate, Reason, Verdict, worst_gate\n"
        "a = Reason('r', Gate.PASS, 'd')\n"
        "b = Verdict.combine([])\n"
        "c = worst_gate([])\n"
        "d = Gate('FAIL')\n"
        "e = {'gate': 'HOLD'}\n"
        "f = AuditGate.INVALID\n", encoding="utf-8")
    sites = sorted(site.split(" ", 1)[1] for site in _deciding_sites(deciding))
    assert sites == sorted(["calls Reason(...)", "picks Gate.PASS", "calls Verdict.combine(...)",
                            "calls worst_gate(...)", "picks a word with Gate('...')", "writes the word 'FAIL'",
                            "writes the word 'HOLD'", "picks AuditGate.INVALID"])
    reading = tmp_path / "reading.py"
    reading.write_text(
        '"""PASS or FAIL, said in a docstring."""\n'
        "from forgegate.core.verdict import Gate\n"
        "def f(x, payload):\n"
        "    ok = x.gate is Gate.FAIL or x.gate in (Gate.HOLD, Gate.INVALID)\n"
        "    word = Gate(payload['gate'])\n"
        "    return ok, word.value, payload['outcome'] != 'PASS'\n", encoding="utf-8")
    assert _deciding_sites(reading) == []
