"""Builders of synthetic eval results (the `forgegate eval --json` contract) for the lineage tests."""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pytest

BATTERY_SHA = "b" * 64
GATE_SHA = "c" * 64


def item(
    item_id: str,
    category: str,
    outcome: bool | None,
    *,
    seed: int | None = 0,
    failure_modes: Sequence[str] = (),
) -> dict[str, Any]:
    """One pass/fail item: True scores 1, False scores 0, None is an errored request (score null)."""
    return {
        "id": item_id,
        "category": category,
        "seed": seed,
        "prompt": f"prompt of {item_id}",
        "response": None if outcome is None else ("right" if outcome else "wrong"),
        "tokens": None if outcome is None else 5,
        "token_source": None if outcome is None else "tokenizer",
        "finish": "error" if outcome is None else "stop",
        "error": "HTTP 500 after 4 attempts" if outcome is None else None,
        "latency_s": None if outcome is None else 0.1,
        "score": None if outcome is None else float(outcome),
        "passed": bool(outcome),
        "failure_mode": failure_modes[0] if failure_modes else None,
        "failure_modes": list(failure_modes),
        "detail": "",
        "needs_review": False,
        "review": None,
        "loop_span": None,
    }


def category(name: str, outcomes: Sequence[bool | None], *, seed: int | None = 0) -> list[dict[str, Any]]:
    """Items ``<name>-00``, ``<name>-01``... with the given outcomes, one seed."""
    return [item(f"{name}-{i:02d}", name, o, seed=seed) for i, o in enumerate(outcomes)]


def passes(n_pass: int, n_fail: int) -> list[bool]:
    return [True] * n_pass + [False] * n_fail


def result(
    items: list[dict[str, Any]],
    *,
    battery_sha: str = BATTERY_SHA,
    gate_sha: str = GATE_SHA,
    gate: str = "PASS",
    model: str = "gloss:test",
    run_id: str = "run-1",
    model_digest: str | None = "sha256:feed",
    kind: str = "eval",
) -> dict[str, Any]:
    """An eval result (the full versioned contract) whose category scores are the item means, as the eval
    computes them."""
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for it in items:
        by_category[it["category"]].append(it)
    categories = {}
    for name, members in by_category.items():
        scores = [m["score"] for m in members if m["score"] is not None]
        score = sum(scores) / len(scores) if scores else None
        categories[name] = {
            "score": score,
            "n": len(members),
            "passed": sum(1 for m in members if m["passed"]),
            "missing": sum(1 for m in members if m["score"] is None),
            "weight": 1.0,
            "gate": "PASS" if score is not None and score >= 0.5 else "FAIL",
        }
    known = [c["score"] for c in categories.values() if c["score"] is not None]
    modes = sorted({mode for it in items for mode in it["failure_modes"]})
    return {
        "kind": kind,
        "schema_version": 1,
        "model": model,
        "backend": "embedded",
        "forgegate_version": "0.1.0",
        "run_id": run_id,
        "model_digest": model_digest,
        "seed": 0,
        "sampling": {"temperature": 0.0, "top_p": 1.0},
        "store": f"runs/{run_id}.sqlite",
        "battery": {"path": "battery.jsonl", "sha256": battery_sha, "items": len(items)},
        "created": "2026-11-30T12:00:00+00:00",
        "gate_config": {"name": "gloss-v2", "sha256": gate_sha, "category_floor": 0.5, "sigma_total_min": 0.5,
                        "gloss_v2": True},
        "gate": gate,
        "reasons": [],
        "sigma_total": sum(known) / len(known) if known else None,
        "categories": categories,
        "failed_categories": [n for n, c in categories.items() if c["gate"] != "PASS"],
        "failure_modes": modes,
        "token_sources": ["tokenizer"],
        "items": items,
        "failure_mode_signatures": None,
    }


def live(gate: str, *, run_id: str = "live", model_digest: str | None = "sha256:feed",
         failure_modes: Sequence[str] = (), battery_sha: str | None = None) -> dict[str, Any]:
    """A live-test result (kind "live") with ``gate`` as its word; its battery is GLOSS v2's 10 tasks (the bundled
    live test's sha256) unless ``battery_sha`` names another."""
    from forgegate.lineage.graduation import spec_live_sha256

    items = [item("LIVE-01", "LX-LIVE", gate == "PASS", failure_modes=failure_modes)]
    return result(items, gate=gate, run_id=run_id, model_digest=model_digest, kind="live") | {
        "battery": {"path": "live.jsonl", "sha256": battery_sha or spec_live_sha256(), "items": 1}}


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
            ) -> tuple[int, str, str]:
    """Run the ``forgegate`` console entry point in-process; return (exit code, stdout, stderr)."""
    from forgegate.cli.main import main

    monkeypatch.setattr(sys, "argv", ["forgegate", *args])
    with pytest.raises(SystemExit) as exited:
        main()
    captured = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else (0 if code is None else 1)), captured.out, captured.err
