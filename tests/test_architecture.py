"""The one road is a contract: the layers in pyproject.toml hold, and the CLI starts without the heavy libraries."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_layers_hold() -> None:
    """import-linter's layers contract (pyproject.toml) names every package; a wrong import fails here."""
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe is not None, "import-linter is a test dependency: pip install -e '.[test]'"
    done = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 1 kept, 0 broken." in done.stdout


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
