"""Every number in a plan is finite and in range, checked by `plan check` and `plan lock` at its line (exit 2),
before anything is frozen or generated: no overflow at the first store write, no hang, no MemoryError."""

from __future__ import annotations

import pytest
from instruments_helpers import run_cli

from forgegate.core.limits import MAX_PLAN_NAME_BYTES, MAX_SEEDS, MIN_SEGMENT_WORDS, SEED_MAX
from tests.plan_helpers import PLAN, line_of, write_plan_folder


@pytest.mark.parametrize(("old", "new", "needle", "words"), [
    ("segment_words = 100", "segment_words = 1", "segment_words", f"at least {MIN_SEGMENT_WORDS}"),
    ("control_seed = 7", "control_seed = 7\npassages = 1000000000", "passages", "at most"),
    ("seeds = [1, 2]", f"seeds = [1, {2**70}]", "seeds", "at most"),
    ("seeds = [1, 2]", f"seeds = [1, {-(2**63) - 1}]", "seeds", "at least"),
    ("seeds = [1, 2]", "seeds = { first = 1, count = 1000000000000 }", "seeds", f"at most {MAX_SEEDS}"),
    ("seeds = [1, 2]", f"seeds = {{ first = {SEED_MAX}, count = 2 }}", "seeds", "past the largest seed"),
    ("control_seed = 7", "control_seed = -1", "control_seed", "at least 0"),
    ("band = [5, 60]", "band = [5, 60000000000]", "band", "at most"),
    ('name = "demo"', f'name = "{"n" * (MAX_PLAN_NAME_BYTES + 1)}"', "name", "shorten it"),
])
def test_plan_check_and_lock_refuse_a_value_out_of_range_at_its_line(tmp_path, old: str, new: str, needle: str,
                                                                      words: str) -> None:
    assert old in PLAN
    text = PLAN.replace(old, new)
    plan = write_plan_folder(tmp_path, text)
    for command in ("check", "lock"):
        outcome = run_cli("plan", command, plan)
        err = " ".join(outcome.stderr.split())
        assert outcome.returncode == 2, (command, outcome.stdout, outcome.stderr)
        assert words in err, err
        assert f"plan.toml:{line_of(text, needle)}" in err, err
        assert "internal error" not in err
    assert not plan.with_name(plan.name + ".lock").exists() and not list(tmp_path.glob("*.lock*"))


def test_the_largest_seed_range_allowed_is_valid(tmp_path) -> None:
    plan = write_plan_folder(tmp_path, PLAN.replace("seeds = [1, 2]", f"seeds = {{ first = 0, count = {MAX_SEEDS} }}"))
    outcome = run_cli("plan", "check", plan)
    assert f"plan demo: valid; 2 arms, {MAX_SEEDS} seeds" in outcome.stdout, outcome.stderr  # exit 2: not locked yet
