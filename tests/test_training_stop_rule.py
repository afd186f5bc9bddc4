"""The stop rule (``training/stopping.py``): a probe shows a mode only beyond chance against the baseline probe.

Issue 37: a healthy SmolLM2 run was stopped at step 16 because RUNAWAY_LOOP went from 5 to 6 of the 11 probe
items. These tests build probe records with the counts of that case and of a run that does learn to loop, and
check the rule every consumer reads (the callback's ``StopWatch``, ``watch``'s record, ``plan from-training``).
The expected p-values are computed here from the hypergeometric law with ``math.comb`` (not from scipy, which
the rule uses), so a wrong table or a two-sided test would show.
"""

from __future__ import annotations

from math import comb
from pathlib import Path

import pytest

from forgegate.battery import bundled_probe_battery_path, load_battery
from forgegate.battery.build import OLD_PROBE_IDS, PROBE_IDS
from forgegate.core.modes import FailureMode
from forgegate.core.verdict import Gate
from forgegate.core.version import __version__
from forgegate.errors import UsageError
from forgegate.results import ProbeRecord
from forgegate.training.probe import probe_line
from forgegate.training.stopping import (
    FALSE_STOP_RATE,
    StopWatch,
    blind_modes,
    shown_modes,
    stop_modes,
    usable_baseline,
    versus_baseline,
)

RUNAWAY = stop_modes(["RUNAWAY_LOOP"])
BOTH = stop_modes(["RUNAWAY_LOOP", "IDENTITY_LOOP"])


def record(step: int, items: int, **modes: int) -> ProbeRecord:
    """A probe record of ``items`` answered items with the given failure-mode counts."""
    return ProbeRecord(
        kind="probe", schema_version=1, forgegate_version=__version__, created="2026-12-03T00:00:00+00:00",
        source="callback", step=step, epoch=None, checkpoint=f"checkpoint-{step}" if step else None, model="m",
        run_id="r", store="s", eval_loss=None, items=items, answered=items, correct=0, accuracy=0.0,
        loops=sum(modes.values()), stop_failures=0, walls=1, wall_breaks=0, failure_modes=sorted(modes),
        mode_counts=modes, controls_passed=True, gate=Gate.FAIL, elapsed_s=1.0)


def exact_p(count: int, baseline: int, n: int) -> float:
    """One-sided Fisher p of ``count``/n above ``baseline``/n: P(X >= count) for X hypergeometric."""
    total = count + baseline
    return sum(comb(total, x) * comb(2 * n - total, n - x) for x in range(count, min(total, n) + 1)) / comb(2 * n, n)


def test_one_more_looping_item_of_eleven_does_not_stop_a_healthy_run() -> None:
    watch = StopWatch(RUNAWAY, patience=1, baseline=record(0, 11, RUNAWAY_LOOP=5))
    assert watch.observe(record(16, 11, RUNAWAY_LOOP=6)) is None  # issue 37's false stop
    assert watch.observe(record(17, 11, RUNAWAY_LOOP=9)) is None  # still within chance of 5/11


def test_every_item_looping_against_five_of_eleven_stops_and_says_the_test_and_its_p() -> None:
    watch = StopWatch(RUNAWAY, patience=1, baseline=record(0, 11, RUNAWAY_LOOP=5))
    reason = watch.observe(record(9, 11, RUNAWAY_LOOP=11))
    p = exact_p(11, 5, 11)
    assert 0.005 < p < 0.007  # the "p ≈ 0.006"
    assert reason is not None
    assert (f"RUNAWAY_LOOP in 11/11 items against 5/11 before training (Fisher's exact test, one-sided, "
            f"p={p:.2g} <= {FALSE_STOP_RATE:.2g})") in reason
    assert "steps 9" in reason and "patience=1" in reason
    assert f"false-stop rate {FALSE_STOP_RATE:.2g} per probe" in reason


def test_sixteen_to_thirty_three_of_thirty_three_stops() -> None:
    watch = StopWatch(BOTH, patience=1, baseline=record(0, 33, RUNAWAY_LOOP=16))
    reason = watch.observe(record(5, 33, RUNAWAY_LOOP=33))
    assert reason is not None and "RUNAWAY_LOOP in 33/33 items against 16/33" in reason
    assert f"p={exact_p(33, 16, 33):.2g}" in reason


def test_the_false_stop_rate_is_per_probe_so_it_is_shared_among_the_watched_modes() -> None:
    """5 -> 11 of 11 (p 0.0062) is within 1% for one mode, not within the 0.5% each of two modes gets."""
    baseline = record(0, 11, RUNAWAY_LOOP=5)
    probe = record(9, 11, RUNAWAY_LOOP=11)
    assert shown_modes(probe, RUNAWAY, baseline) == ["RUNAWAY_LOOP"]
    assert shown_modes(probe, BOTH, baseline) == []
    reason = StopWatch(BOTH, patience=1, baseline=baseline, false_stop_rate=0.02).observe(probe)
    assert reason is not None and "0.01 per mode over 2 watched modes" in reason


def test_patience_counts_probes_in_a_row_beyond_chance() -> None:
    watch = StopWatch(RUNAWAY, patience=2, baseline=record(0, 33, RUNAWAY_LOOP=16))
    assert watch.observe(record(5, 33, RUNAWAY_LOOP=33)) is None  # one probe: patience is two
    assert watch.observe(record(10, 33, RUNAWAY_LOOP=18)) is None  # back within chance: the streak resets
    assert watch.observe(record(15, 33, RUNAWAY_LOOP=32)) is None
    reason = watch.observe(record(20, 33, RUNAWAY_LOOP=33))
    assert reason is not None and "in 2 probe(s) in a row (steps 15, 20)" in reason


def test_without_a_baseline_any_item_counts() -> None:
    reason = StopWatch(RUNAWAY, patience=1).observe(record(5, 33, RUNAWAY_LOOP=1))
    assert reason is not None and "RUNAWAY_LOOP in 1/33 items (no baseline: any item counts)" in reason


def test_a_baseline_with_the_mode_in_most_items_is_named_as_blind_once() -> None:
    saturated = StopWatch(RUNAWAY, patience=1, baseline=record(0, 11, RUNAWAY_LOOP=6))
    [said] = saturated.blind()
    assert "already shows RUNAWAY_LOOP in 6/11 items: even 11/11 would not be beyond chance" in said
    assert f"p={exact_p(11, 6, 11):.2g} > {FALSE_STOP_RATE:.2g}" in said
    assert saturated.observe(record(5, 11, RUNAWAY_LOOP=11)) is None  # it cannot see the mode grow: no stop
    assert StopWatch(RUNAWAY, patience=1, baseline=record(0, 11, RUNAWAY_LOOP=5)).blind() == []


def test_the_bundled_probe_sees_a_base_looping_on_half_go_to_every_item() -> None:
    """Issue 37's sizing: from about 5 of 11 (the same share of the bundled probe) to every item is seen at the
    default rate with both loop modes watched, and the shift the docs state (15/33 -> 27/33) is the first seen."""
    n = len(load_battery(bundled_probe_battery_path()).items)
    assert n == len(PROBE_IDS) > len(OLD_PROBE_IDS) and set(OLD_PROBE_IDS) <= set(PROBE_IDS)
    half = round(n * 5 / 11)
    baseline = record(0, n, RUNAWAY_LOOP=half)
    assert blind_modes(baseline, BOTH) == []
    first_seen = min(k for k in range(n + 1) if shown_modes(record(1, n, RUNAWAY_LOOP=k), BOTH, baseline))
    assert (half, first_seen, n) == (15, 27, 33)
    assert exact_p(first_seen, half, n) <= FALSE_STOP_RATE / 2 < exact_p(first_seen - 1, half, n)


def test_the_record_keeps_each_modes_counts_the_baseline_and_the_p_value_and_the_line_prints_them() -> None:
    baseline = record(0, 33, RUNAWAY_LOOP=16)
    probe = record(5, 33, RUNAWAY_LOOP=17, IDENTITY_LOOP=9)
    tests = {t.mode: t for t in versus_baseline(probe, baseline)}
    assert sorted(tests) == ["IDENTITY_LOOP", "RUNAWAY_LOOP"]
    assert (tests["IDENTITY_LOOP"].count, tests["IDENTITY_LOOP"].baseline_count) == (9, 0)
    assert tests["IDENTITY_LOOP"].p_value == pytest.approx(exact_p(9, 0, 33))
    assert tests["RUNAWAY_LOOP"].p_value == pytest.approx(exact_p(17, 16, 33))
    assert tests["RUNAWAY_LOOP"].test == "fisher_exact_greater"
    assert versus_baseline(baseline, baseline) == [] and versus_baseline(probe, None) == []
    line = probe_line(probe.model_copy(update={"versus_baseline": list(tests.values())}))
    assert f"IDENTITY_LOOP 9/33 vs 0/33 p={exact_p(9, 0, 33):.2g}" in line
    assert "against before training (Fisher's exact test, one-sided)" in line


def test_an_invalid_baseline_is_not_used_as_the_floor() -> None:
    invalid = record(0, 33, RUNAWAY_LOOP=16).model_copy(update={"controls_passed": False})
    chosen, note = usable_baseline(invalid, Path("forgegate-probes.jsonl"))
    assert chosen is None and "INVALID" in note


@pytest.mark.parametrize("rate", [0, 1, 1.5, -0.01, True, "0.01"])
def test_a_false_stop_rate_outside_zero_to_one_is_refused(rate: object) -> None:
    with pytest.raises(UsageError, match="false_stop_rate must be a probability between 0 and 1"):
        StopWatch((FailureMode.RUNAWAY_LOOP,), patience=1, false_stop_rate=rate)  # type: ignore[arg-type]
