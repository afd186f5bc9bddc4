"""The scale benchmark's store checks (benchmarks/bench_hemingway_scale.py): they decide whether a resume after
``kill -9`` repeated a finished generation, so each must be able to say no. Nothing here starts a model."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


scale = load("bench_hemingway_scale")
baseline = load("bench_hemingway_baseline")


def row(seq: int, key: str, finished: float = 100.0, latency: float = 2.0) -> dict[str, Any]:
    return {"seq": seq, "request_key": key, "arm": "a", "tokens": 10, "finish": "stop", "latency_s": latency,
            "finished_at": finished, "response": "x"}


def test_a_clean_resume_is_ok() -> None:
    before = [row(1, "k1"), row(2, "k2")]
    check = scale.resume_check(before, [*before, row(3, "k3"), row(4, "k4")])
    assert check["ok"] and check["kept"] == 2 and check["after"] == 4 and check["regenerated"] == []


def test_a_finished_request_generated_again_is_caught() -> None:
    before = [row(1, "k1"), row(2, "k2")]
    check = scale.resume_check(before, [*before, row(3, "k1")])
    assert not check["ok"] and check["regenerated"] == ["k1"] and check["duplicate_keys"] == ["k1"]


def test_a_row_lost_or_changed_after_the_kill_is_caught() -> None:
    before = [row(1, "k1"), row(2, "k2")]
    assert not scale.resume_check(before, [row(1, "k1")])["ok"]
    changed = {**row(2, "k2"), "response": "other"}
    assert scale.resume_check(before, [row(1, "k1"), changed])["kept"] == 1


def test_generation_span_runs_from_first_queued_to_last_stored() -> None:
    rows = [row(1, "k1", finished=110.0, latency=12.0), row(2, "k2", finished=130.0, latency=5.0)]
    assert scale.generation_span(rows) == 32.0
    assert scale.generation_span([{**row(1, "k1"), "finished_at": None}]) == 0.0


def test_every_kth_spreads_the_baseline_subset() -> None:
    keys = [f"k{i}" for i in range(8)]
    assert baseline.every_kth(keys, 1.0) == keys
    assert baseline.every_kth(keys, 0.25) == ["k0", "k4"]
