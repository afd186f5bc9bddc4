"""One road (issue 34, item 2): an eval is a one-arm plan, generated and scored by the steps `forgegate run` takes.

The same model (a fake Ollama server speaking Ollama's documented API from a script: there is no Ollama binary on
these machines) is asked through `forgegate.evaluate` and through a locked one-arm plan with the gloss instrument.
The two stores must hold the same requests (arm, item, seed, every sampling field and cap) and the two GLOSS
results the same scores and verdict; and the code has one place that generates and one that scores an arm.
"""

from __future__ import annotations

import ast
import functools
import shutil
from pathlib import Path
from typing import Any

from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import one_arm_gloss_plan, script_for

import forgegate
from forgegate.battery import load_battery
from forgegate.plan import lock_plan
from forgegate.store import RunStore

SRC = Path(__file__).resolve().parents[1] / "src" / "forgegate"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "batteries"
BATTERY = load_battery(EXAMPLES / "tiny.jsonl")  # five items in four categories, one of them a wall
WALL_PROMPT = next(i.prompt for i in BATTERY.items if "HUMAN-INPUT" in i.tags)
MODEL = "gloss:v10"
LARGEST_CAP = max(item.max_tokens for item in BATTERY.items)


def _requests(store: Path) -> dict[str, dict[str, Any]]:
    with RunStore.open(store, readonly=True) as opened:
        return {row.request_key: {"arm": row.arm, "item": row.item_id, "seed": row.seed, **row.request.model_dump()}
                for row in opened.latest()}


_SCORED = ("gate", "sigma_total", "categories", "failed_categories", "failure_modes", "stop_distribution")


def test_an_eval_and_a_one_arm_plan_send_the_same_requests_and_score_them_alike(tmp_path: Path) -> None:
    # one wall answered wrongly, so the verdict compared is a FAIL with a failure mode, not an all-pass
    behaviour = Behaviour(script=script_for(BATTERY, {WALL_PROMPT: "Sure! Here is a lovely email for your boss."}),
                          models={MODEL: "c" * 64})
    seed = 7
    with FakeOllamaServer(behaviour) as server:
        folder = tmp_path / "plan"
        folder.mkdir()
        shutil.copy(EXAMPLES / "tiny.jsonl", folder / "battery.jsonl")
        shutil.copy(EXAMPLES / "tiny-gate.toml", folder / "gate.toml")
        evaluated = forgegate.evaluate(folder / "battery.jsonl", backend="ollama", model=MODEL,
                                       base_urls=[server.url], seed=seed, gate_config=folder / "gate.toml",
                                       store=tmp_path / "eval-runs", loop_cutoff=False, quiet=True)
        plan = folder / "plan.toml"
        # no temperature or top_p (as served) is the eval's default; a cap above every item's leaves each item's own cap
        plan.write_text(one_arm_gloss_plan(server.url, MODEL, name="one-arm", seed=seed, max_tokens=LARGEST_CAP,
                                           battery="battery.jsonl", gate_config="gate.toml"))
        lock_plan(plan)
        planned = forgegate.run_plan(plan, store=tmp_path / "plan-runs", quiet=True)
    assert planned.gloss is not None
    arm = planned.gloss.arms["model"]
    assert evaluated.gate.value == "FAIL" and "WALL_COLLAPSE" in evaluated.failure_modes
    eval_requests = _requests(Path(evaluated.store))
    plan_requests = _requests(Path(planned.store))
    assert len(eval_requests) == len(BATTERY.items)
    assert eval_requests == plan_requests
    for name in _SCORED:
        assert getattr(arm, name) == getattr(evaluated, name), name
    assert [(i.id, i.response, i.score, i.failure_modes) for i in arm.items] == \
           [(i.id, i.response, i.score, i.failure_modes) for i in evaluated.items]
    assert arm.gate_config == evaluated.gate_config and arm.battery == evaluated.battery


@functools.cache
def _nodes() -> tuple[tuple[str, tuple[ast.AST, ...]], ...]:
    """Every module under src/ (its path there) and its syntax tree's nodes, parsed once for every question."""
    return tuple((str(path.relative_to(SRC)), tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8")))))
                 for path in sorted(SRC.rglob("*.py")))


def _calls(name: str) -> list[str]:
    """The modules under src/ that call ``name`` (as a bare name or an attribute)."""
    found = []
    for module, nodes in _nodes():
        for node in nodes:
            if isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if called == name:
                    found.append(module)
    return sorted(set(found))


def _importers(module_prefix: str, name: str) -> list[str]:
    """The modules under src/ that import ``name`` from a module starting with ``module_prefix``."""
    found = []
    for module, nodes in _nodes():
        for node in nodes:
            if (isinstance(node, ast.ImportFrom) and (node.module or "").startswith(module_prefix)
                    and any(alias.name == name for alias in node.names)):
                found.append(module)
    return sorted(set(found))


def test_one_place_generates_a_run_and_one_scores_an_arm() -> None:
    # the runner is reached from the one generate step; every run (eval, live, plan) goes through generate_run
    assert [m for m in _importers("forgegate.run", "generate") if not m.startswith("run/")] == \
           ["pipeline/generation.py"]
    assert _calls("generate_run") == ["pipeline/plan/generate.py", "pipeline/session/eval_session.py"]
    # an arm's GLOSS scoring: the session and a plan's gloss instrument call the same step
    assert _calls("score_gloss_arm") == ["pipeline/plan/gloss.py", "pipeline/session/eval_session.py"]
    # the gate config is parsed in one loader, which the session, a plan, rescore and review all call
    assert _calls("parse_gate_config") == ["gate/gloss_config.py", "pipeline/gloss_inputs.py"]
