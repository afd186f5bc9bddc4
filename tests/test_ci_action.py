"""The composite GitHub Action (`action.yml`, issue 45 item 3): its run-steps, extracted from the file and run as
plain bash scripts the way a runner runs them, against a stand-in server, write the job summary and end on the
verdict's exit code.

Ollama has no binary on the test machines: the server is ``tests/backend_servers.py``'s FakeOllamaServer, started
by this test process. forgegate is this checkout's here (the action's `install: false`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from backend_servers import Behaviour, FakeOllamaServer
from test_light_core import one_item_eval

REPO = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def evaluate(text: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    """The few expressions the action's `env:` uses: inputs.X, github.action_path, steps.ID.outputs.X."""
    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        if expr.startswith("inputs."):
            return inputs[expr.removeprefix("inputs.")]
        if expr == "github.action_path":
            return str(REPO)
        step, _, name = expr.removeprefix("steps.").partition(".outputs.")
        assert expr.startswith("steps.") and name, f"action.yml uses an expression this test cannot read: {expr}"
        return outputs.get(step, {}).get(name, "")
    return EXPRESSION.sub(one, text)


def run_action(tmp_path: Path, given: dict[str, str], venv: Path | None = None
               ) -> tuple[int, Path, list[dict[str, Any]]]:
    """Run every `run:` step in order as the runner would (bash -eo pipefail, inputs through env); the exit code of
    the first step that fails (0 when none does), the job summary file and the steps that are `uses:` steps.

    ``python`` and ``forgegate`` are this checkout's, or with ``venv`` that virtual env's alone (no PYTHONPATH)."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    assert set(given) <= set(inputs), set(given) - set(inputs)
    inputs.update(given)
    base = dict(os.environ)
    if venv is not None:
        shim = venv / "bin"
        base = {k: v for k, v in base.items() if k not in ("PYTHONPATH", "PYTHONHOME")} | {"VIRTUAL_ENV": str(venv)}
    else:
        shim = tmp_path / "bin"
        shim.mkdir()
        (shim / "forgegate").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m forgegate.cli.main "$@"\n')
        (shim / "forgegate").chmod(0o755)
        (shim / "python").symlink_to(sys.executable)
    summary = tmp_path / "step_summary.md"
    outputs: dict[str, dict[str, str]] = {}
    used = []
    for number, step in enumerate(ACTION["runs"]["steps"]):
        if "uses" in step:
            used.append(step)
            continue
        assert step["shell"] == "bash" and "${{" not in step["run"], step["name"]  # inputs only through env
        script = tmp_path / f"step{number}.sh"
        script.write_text(step["run"], encoding="utf-8")
        output = tmp_path / f"step{number}.out"
        output.touch()
        env = {**base, "PATH": f"{shim}{os.pathsep}{base['PATH']}", "GITHUB_OUTPUT": str(output),
               "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ACTION_PATH": str(REPO),
               "FORGEGATE_HOME": str(tmp_path / "home")}
        env.update({k: evaluate(str(v), inputs, outputs) for k, v in step.get("env", {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300, check=False)
        if "id" in step:
            lines = output.read_text(encoding="utf-8").splitlines()
            outputs[step["id"]] = dict(line.split("=", 1) for line in lines if "=" in line)
        if done.returncode != 0:
            return done.returncode, summary, used
    return 0, summary, used


def test_the_action_fails_the_job_on_a_fail_with_the_summary_and_report_written(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    folder.mkdir()
    with FakeOllamaServer(Behaviour(script={"Say hello.": "goodbye"})) as server:
        args = one_item_eval(folder, server.url)
        code, summary, used = run_action(tmp_path, {
            "battery": args[args.index("--battery") + 1], "gate-config": args[args.index("--gate-config") + 1],
            "backend": "ollama", "base-url": server.url, "model": "gloss", "install": "false",
            "output-dir": str(tmp_path / "out")})
    assert code == 1  # FAIL: the last step ends the job on the verdict's code
    text = summary.read_text(encoding="utf-8")
    assert "**FAIL**" in text and "LX-ONE" in text
    assert (tmp_path / "out" / "report.html").is_file() and (tmp_path / "out" / "result.json").is_file()
    (upload,) = used  # the HTML report goes up as an artifact, whatever the verdict
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["if"] == "always()"
    assert upload["with"]["path"] == "${{ inputs.output-dir }}"


@pytest.mark.slow  # a second generated and rendered eval (6 s) for the PASS side of the same steps
def test_the_action_passes_the_job_on_a_pass(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    folder.mkdir()
    with FakeOllamaServer(Behaviour(script={"Say hello.": "hello there"})) as server:
        args = one_item_eval(folder, server.url)
        code, summary, _ = run_action(tmp_path, {
            "battery": args[args.index("--battery") + 1], "gate-config": args[args.index("--gate-config") + 1],
            "backend": "ollama", "base-url": server.url, "model": "gloss", "install": "false",
            "output-dir": str(tmp_path / "out")})
    assert code == 0
    assert "**PASS**" in summary.read_text(encoding="utf-8")


def test_bad_input_ends_the_job_with_2_and_says_so_in_the_summary(tmp_path: Path) -> None:
    code, summary, _ = run_action(tmp_path, {"battery": str(tmp_path / "missing.jsonl"), "backend": "ollama",
                                             "base-url": "http://127.0.0.1:9", "model": "gloss", "install": "false",
                                             "output-dir": str(tmp_path / "out")})
    assert code == 2
    assert "exit code 2 before writing a summary" in summary.read_text(encoding="utf-8")
