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
        "response": "" if outcome is None else ("right" if outcome else "wrong"),
        "tokens": 0 if outcome is None else 5,
        "finish": "error" if outcome is None else "stop",
        "score": None if outcome is None else float(outcome),
        "passed": None if outcome is None else outcome,
        "failure_mode": failure_modes[0] if failure_modes else None,
        "failure_modes": list(failure_modes),
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
) -> dict[str, Any]:
    """An eval result dict whose category scores are the item means (as the eval computes them)."""
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
            "gate": "PASS" if score is not None and score >= 0.5 else "FAIL",
        }
    known = [c["score"] for c in categories.values() if c["score"] is not None]
    modes = sorted({mode for it in items for mode in it["failure_modes"]})
    return {
        "model": model,
        "backend": "embedded",
        "forgegate_version": "0.1.0",
        "run_id": run_id,
        "battery": {"path": "battery.jsonl", "sha256": battery_sha, "items": len(items)},
        "gate_config": {"name": "gloss-v2", "sha256": gate_sha},
        "gate": gate,
        "reasons": [],
        "sigma_total": sum(known) / len(known) if known else None,
        "categories": categories,
        "failed_categories": [n for n, c in categories.items() if c["gate"] != "PASS"],
        "failure_modes": modes,
        "model_digest": model_digest,
        "items": items,
    }


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
