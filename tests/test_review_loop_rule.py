"""`forgegate show`, `review` and the view label a stored answer with the loop rule its run was gated by.

The gate config's ``[loops]`` table is recorded with the run; reading the run back for people must
apply that table, not GLOSS v2's defaults, or the item page would call a loop what the gate did not.
"""

from __future__ import annotations

from forgegate.battery import bundled_battery_path, load_battery
from forgegate.core.modes import FailureMode
from forgegate.core.records import GenerationRequest, StoredResponse
from forgegate.gate.gloss_config import bundled_gate_config_path
from forgegate.pipeline.review import item_checks, run_loop_settings
from forgegate.store import RunMeta, StoredGateConfig

BATTERY = load_battery(bundled_battery_path())
ITEM = next(i for i in BATTERY.items if i.category == "LX-LIVE-GEN")
LOOPING = "NOUS NOUS NOUS is what I say."


def _row(text: str) -> StoredResponse:
    return StoredResponse(request_key=f"m/{ITEM.id}/0", arm="m", item_id=ITEM.id, seed=0,
                          request=GenerationRequest(prompt=ITEM.prompt, max_tokens=64), response=text, tokens=8,
                          token_source="backend", token_texts=None, finish="stop", latency_s=None, ttft_s=None,
                          model_digest=None, endpoint=None, error=None, attempts=1)


def _meta(loops_table: str) -> RunMeta:
    """A stored gate config: the bundled one, with ``loops_table`` (a looser rule is another gate, not GLOSS v2)."""
    toml = bundled_gate_config_path().read_text(encoding="utf-8") + loops_table
    if loops_table:
        toml = "gloss_v2 = false\n" + toml
    return RunMeta(gate_config=StoredGateConfig(path="gate.toml", sha256="0" * 64, toml=toml))


def test_a_run_without_a_loops_table_is_read_with_gloss_v2s_rule() -> None:
    settings = run_loop_settings(_meta(""))
    checks = item_checks(BATTERY, _row(LOOPING), settings)
    assert checks is not None and FailureMode.RUNAWAY_LOOP in checks.failure_modes


def test_a_run_gated_with_its_own_loops_table_is_read_with_that_table() -> None:
    settings = run_loop_settings(_meta("\n[loops]\nrepeats = 5\n"))
    assert settings is not None and settings.repeats == 5
    checks = item_checks(BATTERY, _row(LOOPING), settings)
    assert checks is not None and FailureMode.RUNAWAY_LOOP not in checks.failure_modes


def test_a_run_with_no_stored_gate_config_falls_back_to_gloss_v2() -> None:
    assert run_loop_settings(RunMeta()) is None
