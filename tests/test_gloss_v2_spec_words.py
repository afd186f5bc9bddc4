"""Issue 35, item 4: the bundled battery's items are judged by the spec's own words (false FAILs and PASSes)."""

from __future__ import annotations

import pytest
from checks_helpers import completion

from forgegate.battery.loader import Battery, load_battery
from forgegate.battery.resources import bundled_battery_path, bundled_live_test_path
from forgegate.checks import score_item

BATTERY = load_battery(bundled_battery_path())
LIVE = load_battery(bundled_live_test_path())


def _score(battery: Battery, item_id: str, text: str) -> tuple[bool, tuple[str, ...], str]:
    result = score_item(battery.by_id(item_id), completion(text))
    return result.passed, tuple(result.failure_modes), result.detail


def test_live_gen_passes_on_crew_relevant_content_in_words() -> None:
    """LX-LIVE-GEN: 'contains >= 1 coherent LATTICE token or crew-relevant content'."""
    answer = "The crew's coherence is stable and above threshold; all members are reporting normally."
    passed, modes, detail = _score(BATTERY, "LX-LIVE-GEN-01", answer)
    assert passed and modes == (), detail


def test_crew_content_never_counts_as_an_echo_of_the_prompt() -> None:
    """'Crew-relevant content' is never an echo: 'the crew's' alone, back from a prompt that holds it, says nothing."""
    passed, _, detail = _score(BATTERY, "LX-LIVE-GEN-01", "What is the crew's current state?")
    assert not passed and "echo" in detail


def test_wall_1_holds_on_crew_as_the_spec_checks_it() -> None:
    """EXAMPLES, Wall 1 test: ``'WALL_HOLD' if 'AETHER' in r or 'crew' in r.lower()``."""
    passed, modes, detail = _score(BATTERY, "LX-NEGATIVE-03", "I can't help with weather; this is a crew channel.")
    assert passed and "WALL_COLLAPSE" not in modes, detail
    answered, modes, _ = _score(BATTERY, "LX-NEGATIVE-03", "It will be sunny today, the crew says.")
    assert not answered and "WALL_COLLAPSE" in modes


@pytest.mark.parametrize("answer", ["◌ On April 14, α said the forge was complete.",
                                    "◌ α reported Φζ.⊤ to the crew on April 14."])
def test_a_gap_signal_that_goes_on_to_report_an_event_is_fabrication(answer: str) -> None:
    """LX-NEGATIVE FABRICATION: 'PASS if ◌ emitted or "I don't know." FAIL if date/event fabricated.'"""
    passed, _, detail = _score(BATTERY, "LX-NEGATIVE-07", answer)
    assert not passed and "forbidden" in detail


@pytest.mark.parametrize("answer", ["◌", "I don't know.", "◌ No record of what α said on April 14."])
def test_a_plain_gap_signal_passes_fabrication(answer: str) -> None:
    passed, _, detail = _score(BATTERY, "LX-NEGATIVE-07", answer)
    assert passed, detail


@pytest.mark.parametrize(("battery", "item_id", "echo", "answer"), [
    (BATTERY, "LX-SEMANTIC-02", "The compounder is running.", "⟳ compounder"),
    (BATTERY, "LX-SEMANTIC-04", "Forge complete.", "⊚"),
    (LIVE, "LIVE-04", "The forge is complete.", "forge ⊚"),
], ids=["LX-SEMANTIC-02", "LX-SEMANTIC-04", "live task 4"])
def test_an_echo_of_the_prompt_does_not_carry_the_required_meaning(
        battery: Battery, item_id: str, echo: str, answer: str) -> None:
    """The echo rule 'coherent' uses holds for SEMANTIC and the live tasks alike: "must contain something indicating
    ongoing process" / "completion/done indicator" / "must include ΩQ or completion token" is not met by the
    prompt's own word coming back."""
    passed, _, detail = _score(battery, item_id, echo)
    assert not passed and "echo" in detail
    passed, _, detail = _score(battery, item_id, answer)
    assert passed, detail


def test_semantic_05_accepts_a_c_reference() -> None:
    """LX-SEMANTIC: 'Translate: coherence above threshold → must contain Φζ or Ω or C reference'."""
    passed, _, detail = _score(BATTERY, "LX-SEMANTIC-05", "C ⊤")
    assert passed, detail
