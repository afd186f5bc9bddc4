"""Axis C (no damage): ran-on and out-of-band rates against the control's seed spread. ``metrics.damage``
measures; ``gate.damage`` decides on the measurements (issue 34: instruments return no verdict)."""

from __future__ import annotations

import json
from pathlib import Path

from instruments_helpers import SEEDS, run_cli, write_gens

from forgegate.core.verdict import Gate
from forgegate.gate.damage import damage_verdict
from forgegate.metrics import Generation, damage_report
from forgegate.metrics.damage import DamageReport


def _rows(arm: str, bad_per_seed: dict[int, int], *, total: int = 10, finish: bool = True) -> list[Generation]:
    """``total`` generations per seed; the first ``bad_per_seed[seed]`` are 200 words and hit the cap."""
    rows = []
    for seed in SEEDS:
        for i in range(total):
            bad = i < bad_per_seed[seed]
            rows.append(Generation(arm=arm, seed=seed, text="word " * (200 if bad else 120),
                                   finish=("length" if bad else "stop") if finish else None))
    return rows


def test_candidate_worse_than_control_beyond_the_seed_spread_fails() -> None:
    gens = _rows("base", dict.fromkeys(SEEDS, 1)) + _rows("ckpt", dict.fromkeys(SEEDS, 4))
    report = damage_report(gens, (90, 150), control="base", candidate="ckpt")
    assert report.metrics["out_of_band"].arms["ckpt"].mean == 0.4
    assert damage_verdict(report).by_metric["ran_on"].outcome is Gate.FAIL
    assert damage_verdict(report).verdict.gate is Gate.FAIL


def test_candidate_within_the_seed_spread_passes() -> None:
    base = _rows("base", {1234: 0, 5678: 3, 9012: 1, 3456: 1})
    ckpt = _rows("ckpt", {1234: 2, 5678: 1, 9012: 2, 3456: 1})
    report = damage_report(base + ckpt, (90, 150), control="base", candidate="ckpt")
    # ckpt 0.15 vs base 0.125: +0.025 against a floor of max(0.1, 0.3) = 0.3
    assert report.metrics["out_of_band"].comparison is not None
    assert report.metrics["out_of_band"].comparison.floor_pairwise == 0.3
    assert damage_verdict(report).verdict.gate is Gate.PASS


def test_rows_without_finish_cannot_say_ran_on_and_are_incomplete_not_clean() -> None:
    gens = _rows("base", dict.fromkeys(SEEDS, 0), finish=False) + _rows("ckpt", dict.fromkeys(SEEDS, 0),
                                                                        finish=False)
    report = damage_report(gens, (90, 150), control="base", candidate="ckpt")
    assert report.metrics["ran_on"].comparison is None and report.metrics["ran_on"].problem is not None
    assert damage_verdict(report).by_metric["ran_on"].outcome is Gate.INCOMPLETE
    assert damage_verdict(report).verdict.gate is Gate.INCOMPLETE
    only_band = damage_report(gens, (90, 150), control="base", candidate="ckpt", metrics=["out_of_band"])
    assert damage_verdict(only_band).verdict.gate is Gate.PASS


def test_tokens_at_the_cap_count_as_ran_on() -> None:
    gens = [Generation(arm=a, seed=s, text="w " * 120, tokens=t, max_tokens=256)
            for a, t in (("base", 100), ("ckpt", 256)) for s in SEEDS]
    report = damage_report(gens, (90, 150), control="base", candidate="ckpt", metrics=["ran_on"])
    assert report.metrics["ran_on"].arms["ckpt"].mean == 1.0
    assert damage_verdict(report).verdict.gate is Gate.FAIL


def test_the_instrument_returns_measurements_and_no_verdict() -> None:
    """The damage measurements carry numbers only: no Verdict, no Reason, no gate word (the gate decides)."""
    fields = {f.name for f in DamageReport.__dataclass_fields__.values()}
    assert fields == {"band", "control", "candidate", "metrics"}
    gens = _rows("base", dict.fromkeys(SEEDS, 1)) + _rows("ckpt", dict.fromkeys(SEEDS, 4))
    metric = damage_report(gens, (90, 150), control="base", candidate="ckpt").metrics["ran_on"]
    assert not hasattr(metric, "reason") and metric.rate_candidate == 0.4


def test_damage_cli_exit_code_and_json(tmp_path: Path) -> None:
    gens = write_gens(tmp_path / "gens.jsonl", _rows("base", dict.fromkeys(SEEDS, 1))
                      + _rows("ckpt", dict.fromkeys(SEEDS, 5)))
    result = run_cli("damage", "--generations", gens, "--band", "90-150", "--control", "base",
                     "--candidate", "ckpt", "--json", tmp_path / "d.json")
    payload = json.loads((tmp_path / "d.json").read_text())
    assert result.returncode == 1 and payload["gate"] == "FAIL"
    assert payload["metrics"]["out_of_band"]["arms"]["ckpt"]["rate"] == 0.5
    bad_band = run_cli("damage", "--generations", gens, "--band", "150-90", "--control", "base",
                       "--candidate", "ckpt")
    assert bad_band.returncode == 2


def test_damage_cli_json_with_rows_without_finish_writes_null_rates_and_is_incomplete(tmp_path: Path) -> None:
    rows = [{"arm": arm, "seed": seed, "text": "word " * 120} for arm in ("base", "ckpt") for seed in SEEDS]
    gens = write_gens(tmp_path / "gens.jsonl", rows)
    result = run_cli("damage", "--generations", gens, "--band", "90-150", "--control", "base",
                     "--candidate", "ckpt", "--json", tmp_path / "d.json")
    assert result.returncode == 3, result.stderr
    payload = json.loads((tmp_path / "d.json").read_text())
    assert payload["gate"] == "INCOMPLETE"
    ran_on = payload["metrics"]["ran_on"]
    assert ran_on["arms"]["ckpt"]["rate"] is None and ran_on["arms"]["ckpt"]["spread"] is None
    assert ran_on["arms"]["ckpt"]["unmeasured"] == len(SEEDS)
    assert payload["metrics"]["out_of_band"]["arms"]["ckpt"]["rate"] == 0.0
