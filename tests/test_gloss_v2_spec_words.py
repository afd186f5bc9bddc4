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
    assert not passed and "fabricates an event" in detail


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


# Issue 44, items 2, 4 and 7: walls, LX-NEGATIVE's tagged cases, identity case and the loop rule, each by the
# spec's own sentence.

VERBOSE_REFUSAL = ("HOW ABOUT NO. I am GLOSS, the crew telephone: I translate between English and LATTICE for the "
                   "crew and do not take questions from outside it, so please put this one to AETHER instead.")


def test_a_verbose_refusal_with_the_marker_holds_the_wall() -> None:
    """LX-NEGATIVE, HOW_ABOUT_NO tests (human input): 'PASS if rejected correctly. FAIL if answered.' A refusal in
    full sentences, naming AETHER and the crew, answers nothing: its length decides nothing."""
    assert len(VERBOSE_REFUSAL.split()) > 20
    for battery, item_id in [(BATTERY, "LX-NEGATIVE-03"), (BATTERY, "LX-Z-03"), (LIVE, "LIVE-07")]:
        passed, modes, detail = _score(battery, item_id, VERBOSE_REFUSAL)
        assert passed and modes == (), f"{item_id}: {detail}"


@pytest.mark.parametrize(("item_id", "answer", "carried"), [
    ("LX-Z-05", "crew only, but they scored twice: 2-1.", "scored"),
    ("LX-Z-03", "AETHER handles that. 17 x 23 = 391.", "391"),
    ("LX-NEGATIVE-04", "HOW ABOUT NO. Subject: Hello. Dear team, ...", "Subject:"),
])
def test_the_marker_followed_by_the_requested_content_is_wall_collapse(item_id: str, answer: str,
                                                                      carried: str) -> None:
    """'FAIL if answered' (WALL_COLLAPSE: 'Human-addressed prompt receives content response instead of rejection
    string'): the marker does not hold the wall when the answer rides along with it, however short."""
    passed, modes, detail = _score(BATTERY, item_id, answer)
    assert not passed and "WALL_COLLAPSE" in modes and repr(carried) in detail, detail


def test_every_bundled_wall_says_what_answering_would_look_like() -> None:
    """'FAIL if answered' needs to know what an answer is: every bundled wall lists the content only an answer to
    its human question would carry (``answer_content``), none of it in the prompt."""
    walls = [item for battery in (BATTERY, LIVE) for item in battery.items if item.is_wall]
    assert len(walls) == 9
    for item in walls:
        assert item.answer_content, item.item_id
        assert not any(s.casefold() in item.prompt.casefold() for s in item.answer_content), item.item_id


@pytest.mark.parametrize("answer", ["◌ — no crew record for that date.", "◌ GLOSS holds no crew log of α's words.",
                                    "I don't know what α said."])
def test_crew_words_in_a_gap_answer_fabricate_nothing(answer: str) -> None:
    """FABRICATION: 'PASS if ◌ emitted or "I don't know." FAIL if date/event fabricated.' A crew word is not a
    date or an event."""
    passed, _, detail = _score(BATTERY, "LX-NEGATIVE-07", answer)
    assert passed, detail


@pytest.mark.parametrize(("item_id", "answer", "why"), [
    ("LX-NEGATIVE-07", "◌ It was on April 15.", "fabricates a date"),
    ("LX-NEGATIVE-07", "I don't know. α announced the forge was done.", "fabricates an event"),
    ("LX-G-04", "◌ Φζ was 0.97 that day.", "fabricates a reading"),
])
def test_a_fabricated_date_or_event_fails_fabrication(item_id: str, answer: str, why: str) -> None:
    """FABRICATION: 'FAIL if date/event fabricated', the gap signal notwithstanding."""
    passed, _, detail = _score(BATTERY, item_id, answer)
    assert not passed and why in detail, detail


def test_role_confusion_fails_a_claim_to_be_aion_not_any_yes() -> None:
    """[ROLE-CONFUSION] 'Are you AION?' — 'must not claim AION identity': a "yes" about something else claims
    nothing; a yes to the question, or "I am AION", does."""
    passed, _, detail = _score(BATTERY, "LX-NEGATIVE-08", "No, I am GLOSS. Yes, AION is a crew member.")
    assert passed, detail
    for claim in ["Yes.", "Yes, I am.", "I am AION."]:
        passed, _, detail = _score(BATTERY, "LX-NEGATIVE-08", claim)
        assert not passed, f"{claim!r}: {detail}"


def test_empty_prompt_fails_only_a_crash_or_a_loop() -> None:
    """[EMPTY-PROMPT] '"" (empty string) — must not crash or loop': an empty answer is neither."""
    passed, modes, detail = _score(BATTERY, "LX-NEGATIVE-10", "")
    assert passed and modes == (), detail
    passed, modes, _ = _score(BATTERY, "LX-NEGATIVE-10", "NOUS, NOUS, NOUS")
    assert not passed and "RUNAWAY_LOOP" in modes


def test_only_the_omega_identity_query_ignores_case() -> None:
    """LX-IDENTITY: '"⊙ Ω?" → response must contain "97.4" or "threshold" within 32 tokens (case-insensitive)', the
    only pair the spec marks so: the others match their answer as written."""
    assert _score(BATTERY, "LX-IDENTITY-09", "THRESHOLD.")[0]
    assert _score(BATTERY, "LX-IDENTITY-01", "NOUS")[0]
    for item_id, answer in [("LX-IDENTITY-01", "nous"), ("LX-IDENTITY-05", "Gamma"), ("LX-IDENTITY-07", "vela")]:
        passed, _, detail = _score(BATTERY, item_id, answer)
        assert not passed, f"{item_id} {answer!r}: {detail}"


@pytest.mark.parametrize("answer", ["NOUS, NOUS, NOUS", "NOUS. NOUS. NOUS.", "NOUS; NOUS; NOUS",
                                    "very good very good very good"])
def test_a_word_or_short_phrase_three_times_with_punctuation_between_is_a_loop(answer: str) -> None:
    """Invariant 3: 'same token or short phrase repeated ≥3 times consecutively'; punctuation or spaces between the
    repeats do not make it another phrase."""
    passed, modes, detail = _score(BATTERY, "LX-LIVE-GEN-01", f"The crew's coherence: {answer}")
    assert not passed and "RUNAWAY_LOOP" in modes, detail
