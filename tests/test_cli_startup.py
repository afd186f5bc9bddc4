"""Start-up: ``--help``, ``--version`` and parsing every command's options import none of the heavy libraries.

The check is the module list of a fresh interpreter, never the clock (benchmarks/bench_startup.py
measures the time against a minimal typer app).
"""

from __future__ import annotations

import json
import subprocess
import sys

from cli_helpers import COMMAND_PATHS

HEAVY = ("scipy", "statsmodels", "numpy", "matplotlib", "jinja2", "llama_cpp", "torch", "transformers",
         "sentence_transformers", "pandas")

# Runs the real entry handler on each command line in one fresh interpreter, then lists what it imported.
PROBE = """
import json, sys
from forgegate.cli.main import run
codes = [run(["forgegate", *args]) for args in json.loads(sys.argv[1])]
print("PROBE", json.dumps({"codes": codes, "modules": sorted(sys.modules)}))
"""


def probe(command_lines: list[list[str]]) -> tuple[list[int], set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(command_lines)], capture_output=True,
                          text=True, timeout=300, check=False)
    line = next((line for line in done.stdout.splitlines() if line.startswith("PROBE ")), None)
    assert line is not None, done.stdout + done.stderr
    found = json.loads(line.removeprefix("PROBE "))
    return found["codes"], set(found["modules"])


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_help_and_version_import_no_heavy_library() -> None:
    codes, modules = probe([["--help"], ["--version"]])
    assert codes == [0, 0]
    assert "forgegate.cli.main" in modules  # the probe really ran the CLI
    assert heavy_in(modules) == []


def test_parsing_every_commands_options_imports_no_heavy_library() -> None:
    """``COMMAND --help`` parses the command's options (and builds every default and help text)."""
    codes, modules = probe([[*path, "--help"] for path in COMMAND_PATHS])
    assert codes == [0] * len(COMMAND_PATHS)
    assert heavy_in(modules) == []


def test_the_probe_sees_a_heavy_import_when_one_happens() -> None:
    """The check is not vacuous: a command that does its work imports numpy (`compare`'s paired statistics, which
    load before it reads its files), and the probe lists it. (`checkpoints`, the command used before, loads no
    numpy since metrics/ re-exports lazily; nor does an eval since the loop detector is plain Python.)"""
    codes, modules = probe([["compare", "/nonexistent/a.json", "/nonexistent/b.json"]])
    assert codes == [2]
    assert "numpy" in modules


def test_the_declared_backends_are_exactly_the_registered_ones() -> None:
    """--help lists backends by declaration; importing every backend module adds no name and loses none."""
    import importlib
    import pkgutil

    import forgegate.backends
    from forgegate.backends import BACKENDS

    declared = BACKENDS.names()
    for module in pkgutil.iter_modules(forgegate.backends.__path__, "forgegate.backends."):
        importlib.import_module(module.name)
    assert BACKENDS.names() == declared
    for name in declared:
        assert callable(BACKENDS.get(name))


def test_the_shared_options_and_their_defaults_load_no_pydantic() -> None:
    """The flags every session command shares read their defaults from ``core.sampling``, whose rules are
    pydantic types; building them must not load pydantic (issue 34: ~30 ms of ``forgegate --help`` went there
    through ``core/checked``). The options model itself, and its pydantic, load when a command runs."""
    code = ("import sys, forgegate.cli.options, forgegate.core.sampling; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]"


def test_a_checked_value_is_refused_with_its_rule_s_words_once_a_model_uses_it() -> None:
    """The lazy marker validates as pydantic's AfterValidator did: the rule's sentence, as a value_error."""
    from pydantic import TypeAdapter, ValidationError

    from forgegate.core.sampling import Temperature, temperature_problem

    adapter: TypeAdapter[float] = TypeAdapter(Temperature)
    assert adapter.validate_python(0.7) == 0.7
    try:
        adapter.validate_python(float("inf"))
    except ValidationError as exc:
        error = exc.errors()[0]
        assert error["type"] == "value_error" and str(error["ctx"]["error"]) == temperature_problem(float("inf"))
    else:
        raise AssertionError("an infinite temperature was accepted")


def test_help_loads_no_pydantic() -> None:
    """Issue 34, item 7: ``forgegate --help`` does not load pydantic (31 ms of a 0.28 s start, through
    ``core/checked`` and ``semantic/entailment``'s jsonio import). The semantic option lists
    (``semantic.entailment.JUDGES``, ``semantic.embedding.DEFAULT_THRESHOLD``) still load, about 4 ms."""
    codes, modules = probe([["--help"]])
    assert codes == [0]
    assert sorted(m for m in modules if m.split(".")[0] in ("pydantic", "pydantic_core")) == []
