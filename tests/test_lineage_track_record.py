"""Issue 35, item 5: each battery's track record in the lineage, GLOSS v2's open gap made visible:
EVAL_FALSE_POSITIVE, "[GAP — systematic method to detect eval/live mismatch not yet implemented]"."""

from __future__ import annotations

from pathlib import Path

from lineage_helpers import category, live, passes, result

from forgegate.lineage import decide_graduation, read_lineage
from forgegate.lineage.track_record import track_records


def _battery(sha: str, gate: str = "PASS") -> dict[str, object]:
    return result(category("LX-A", passes(18, 2)), battery_sha=sha, gate=gate, run_id=f"run-{sha[0]}-{gate}")


def test_each_battery_counts_its_passes_the_live_passes_that_followed_and_what_slipped(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    decide_graduation("v1", _battery("a" * 64), live("PASS"), path, [], None, n_resamples=200)
    decide_graduation("v2", _battery("a" * 64), live("FAIL", model_digest=None), path, [], None, n_resamples=200)
    decide_graduation("v3", _battery("d" * 64, "FAIL"), None, path, [], None, n_resamples=200)
    first, second = track_records(read_lineage(path))
    assert (first.decisions, first.battery_passes, first.live_passes, first.slipped) == (2, 2, 1, ("v2",))
    assert (second.decisions, second.battery_passes, second.live_passes, second.slipped) == (1, 0, 0, ())
    assert "followed by a live PASS 1/2; slipped through (battery PASS, live FAIL): v2" in first.line()
