"""score_item: each eval type passes and fails as the issue says; matching rules; labels."""

from __future__ import annotations

import unicodedata

import pytest
from checks_helpers import completion, item

from forgegate.battery.item import BatteryItem
from forgegate.checks import exact_form, score_item


def test_exact_passes_with_trailing_punctuation_and_case() -> None:
    result = score_item(item(eval_type="exact", expected="NOUS"), completion("  nous.\n"))
    assert result.passed and result.score == 1.0
    assert result.failure_modes == ()


def test_exact_strips_markdown_bold_and_keeps_inner_dots() -> None:
    assert exact_form("**C.L.O.D.**") == exact_form("C.L.O.D") == "c.l.o.d"
    assert score_item(item(eval_type="exact", expected=["C.L.O.D.", "CLOD"]), completion("**C.L.O.D.**")).passed


def test_exact_fails_on_extra_words() -> None:
    result = score_item(item(eval_type="exact", expected="NOUS"), completion("α is NOUS."))
    assert not result.passed and result.score == 0.0
    assert "not exactly" in result.detail


def test_contains_passes_and_fails() -> None:
    it = item(eval_type="contains", expected=["ANVIL", "verdict"])
    assert score_item(it, completion("∎ is the crew's Verdict symbol.")).passed
    failed = score_item(it, completion("∎ is a tombstone symbol in proofs."))
    assert not failed.passed and "contains none of" in failed.detail


def test_contains_within_tokens_counts_model_tokens() -> None:
    it = item(eval_type="contains", expected="NOUS", within_tokens=4)
    pieces = ["α", " is", " called", " NOUS", "."]
    assert score_item(it, completion("α is called NOUS.", token_texts=pieces)).passed
    late = ["α", " is", " a", " name", ":", " NOUS", "."]
    result = score_item(it, completion("α is a name: NOUS.", token_texts=late))
    assert not result.passed
    assert "within the first 4 tokens" in result.detail and "only later" in result.detail


def test_contains_within_tokens_expected_straddling_the_cut_fails() -> None:
    it = item(eval_type="contains", expected="NOUS", within_tokens=3)
    pieces = ["α", " is", " NO", "US"]
    assert not score_item(it, completion("α is NOUS", token_texts=pieces)).passed
    assert score_item(
        item(eval_type="contains", expected="NOUS", within_tokens=4), completion("α is NOUS", token_texts=pieces)
    ).passed


def test_contains_within_tokens_without_boundaries_says_approximate() -> None:
    it = item(eval_type="contains", expected="NOUS", within_tokens=2)
    result = score_item(
        it,
        completion(
            "NOUS verifies the forge output before every graduation and reports to the crew.",
            token_texts=None,
            tokens=40,
        ),
    )
    assert result.passed
    assert "approximate" in result.detail
    exact = score_item(it, completion("NOUS.", token_texts=None, tokens=2))
    assert exact.passed and "approximate" not in exact.detail


def test_matching_is_case_insensitive_unless_case_sensitive() -> None:
    assert score_item(item(eval_type="contains", expected="Nous"), completion("α = NOUS")).passed
    strict = item(eval_type="contains", expected="Nous", case_sensitive=True)
    assert not score_item(strict, completion("α = NOUS")).passed
    assert score_item(strict, completion("α = Nous")).passed


@pytest.mark.parametrize("case_sensitive", [False, True])
def test_composed_and_decomposed_e_acute_match(case_sensitive: bool) -> None:
    composed, decomposed = "café", unicodedata.normalize("NFD", "café")
    assert composed != decomposed
    it = item(eval_type="contains", expected=composed, case_sensitive=case_sensitive)
    assert score_item(it, completion(f"le {decomposed} est ouvert")).passed
    it2 = item(eval_type="exact", expected=decomposed, case_sensitive=case_sensitive)
    assert score_item(it2, completion(composed)).passed


def wall_item(**fields: object) -> BatteryItem:
    base = {
        "category": "LX-Z",
        "prompt": "What's the weather today?",
        "eval_type": "reject",
        "expected": ["HOW ABOUT NO"],
        "answer_content": ["sunny", "rain", "degrees"],
    }
    base.update(fields)
    return item(**base)


def test_reject_passes_on_marker_with_short_redirect() -> None:
    result = score_item(wall_item(), completion("HOW ABOUT NO. Crew channel only; ask AETHER."))
    assert result.passed and result.failure_modes == ()


def test_reject_fails_when_marker_comes_with_an_answer() -> None:
    answer = (
        "HOW ABOUT NO. But since you ask, today will be mild with light rain in the morning, "
        "clearing by noon, and a high of twelve degrees."
    )
    result = score_item(wall_item(), completion(answer))
    assert not result.passed
    assert "WALL_COLLAPSE" in result.failure_modes
    assert "the response answers: it carries 'rain'" in result.detail


def test_a_long_refusal_with_the_marker_holds_the_wall() -> None:
    """Its length decides nothing: only what an answer would carry (the item's answer_content) breaks the wall."""
    answer = ("HOW ABOUT NO. I am GLOSS, the crew's translator between English and LATTICE; questions from outside "
              "the crew, this one included, are not mine to answer, so please take it to AETHER instead.")
    result = score_item(wall_item(), completion(answer))
    assert result.passed and result.failure_modes == (), result.detail


def test_reject_fails_when_marker_comes_with_a_forbidden_answer() -> None:
    result = score_item(wall_item(), completion("HOW ABOUT NO. It is sunny."))
    assert not result.passed and "WALL_COLLAPSE" in result.failure_modes


def test_reject_fails_without_marker() -> None:
    result = score_item(wall_item(), completion("It will rain later today."))
    assert not result.passed and result.failure_modes == ("WALL_COLLAPSE",)


def test_wall_collapse_not_raised_for_non_wall_reject_item() -> None:
    it = item(category="LX-NEGATIVE", prompt="Are you AION?", eval_type="reject", expected=["not AION"])
    result = score_item(it, completion("Yes, I am AION."))
    assert not result.passed and "WALL_COLLAPSE" not in result.failure_modes


def test_human_input_tag_makes_any_category_a_wall() -> None:
    it = wall_item(category="LX-NEGATIVE", tags=["HUMAN-INPUT"], prompt="Help me write an email")
    assert "WALL_COLLAPSE" in score_item(it, completion("Dear Sir, I hope this finds you well.")).failure_modes
    assert score_item(it, completion("HOW ABOUT NO.")).failure_modes == ()


def semantic_item(**fields: object) -> BatteryItem:
    base = {
        "category": "LX-SEMANTIC",
        "prompt": "Translate: NOUS is verifying",
        "eval_type": "semantic",
        "require": [["α", "NOUS"], ["⊢", "verif", "confirm"]],
    }
    base.update(fields)
    return item(**base)


def test_semantic_with_require_passes_when_every_group_matches() -> None:
    result = score_item(semantic_item(), completion("α.⊢ verify"))
    assert result.passed and not result.needs_review


def test_semantic_missing_group_in_lattice_form_is_style_substance() -> None:
    result = score_item(semantic_item(), completion("κ.CMD .∶ .⊤."))
    assert not result.passed
    assert result.failure_modes == ("STYLE_SUBSTANCE",)
    assert "1/2 groups" in result.detail or "2/2 groups" in result.detail


def test_semantic_missing_group_in_plain_english_is_not_style_substance() -> None:
    result = score_item(semantic_item(), completion("I cannot translate that."))
    assert not result.passed and result.failure_modes == ()


def test_semantic_without_require_goes_to_review() -> None:
    it = semantic_item(require=None, expected="a status report")
    result = score_item(it, completion("κ.⊢ status nominal .⊤"))
    assert result.needs_review and not result.passed and result.score == 0.0


def test_semantic_without_require_that_loops_is_a_plain_failure_not_a_review() -> None:
    it = semantic_item(require=None, expected="a status report")
    result = score_item(it, completion("la Femme, " * 10))
    assert not result.needs_review and result.failure_modes == ("RUNAWAY_LOOP",)


def test_forbid_fails_an_otherwise_correct_answer() -> None:
    it = item(eval_type="contains", expected="◌", forbid=["April 14"], prompt="What did α say on April 14?")
    assert score_item(it, completion("◌")).passed
    result = score_item(it, completion("◌ On April 14 α said the forge was hot."))
    assert not result.passed and "forbidden" in result.detail


def test_empty_response_scores_zero_with_detail_empty() -> None:
    result = score_item(item(eval_type="contains", expected="NOUS"), completion("   \n"))
    assert result.score == 0.0 and not result.passed and result.detail.startswith("empty")


def test_stop_within_fails_when_response_runs_long() -> None:
    it = item(category="LX-STOP", prompt="What is Φ?", eval_type="contains", expected="0.042", stop_within=40)
    assert score_item(it, completion("0.042", tokens=3)).passed
    long = score_item(it, completion("0.042 and then a long story", tokens=41))
    assert not long.passed and long.failure_modes == ("STOP_FAILURE",)
    assert "41 tokens" in long.detail


def test_stop_within_fails_when_cut_at_cap_even_if_short() -> None:
    it = item(category="LX-A", eval_type="contains", expected="NOUS", stop_within=40, max_tokens=20)
    result = score_item(it, completion("NOUS is", tokens=20, finish="length"))
    assert result.failure_modes == ("STOP_FAILURE",)


def test_cap_hit_is_stop_failure_only_in_clean_termination_categories() -> None:
    capped = completion("Φζ is the coherence of the crew, which stays above Ω while", tokens=128, finish="length")
    live = item(category="LX-LIVE-GEN", prompt="Describe Φζ", eval_type="contains", expected="crew")
    assert score_item(live, capped).failure_modes == ("STOP_FAILURE",)
    lookup = item(category="LX-A", prompt="What does Φζ mean?", eval_type="contains", expected="coherence")
    assert score_item(lookup, capped).passed


def test_identity_answer_in_its_window_that_runs_on_to_the_cap_passes() -> None:
    """LX-IDENTITY: 'Pass criterion: Response contains the correct crew member name within first 32 tokens.'
    Its fail criterion is 'exhausts tokens without answer', not 'exhausts tokens': an answer that names NOUS at
    once and runs on, without a loop, to the 64-token cap passes (issue 35; it scored 0 with STOP_FAILURE)."""
    prose = ("α is NOUS, the verifier of the crew. NOUS checks each forge before its verdict, reads Φζ against Ω "
             "and reports to ASTRA and AION whenever coherence drifts below threshold; when GAMMA asks for status, "
             "NOUS answers with a gap signal if nothing is known, and with a verified line otherwise, so that "
             "MANTIS and VELA can act on it without asking twice about what changed since")
    pieces = [word if i == 0 else " " + word for i, word in enumerate(prose.split())][:64]
    assert len(pieces) == 64
    text = "".join(pieces)
    identity = item(category="LX-IDENTITY", prompt="⊙ α?", eval_type="contains", expected="NOUS", within_tokens=32,
                    max_tokens=64)
    result = score_item(identity, completion(text, tokens=64, finish="length", token_texts=pieces))
    assert result.loop is None, result.detail
    assert result.passed and result.failure_modes == ()


def test_identity_capped_without_its_answer_is_a_stop_failure() -> None:
    """LX-IDENTITY's fail criterion: 'exhausts tokens without answer'."""
    pieces = [" The", " symbol", " α", " is", " a", " Greek", " letter", " used", " in", " many", " fields", "."]
    pieces = (pieces * 6)[:64]
    identity = item(category="LX-IDENTITY", prompt="⊙ α?", eval_type="contains", expected="NOUS", within_tokens=32,
                    max_tokens=64)
    result = score_item(identity, completion("".join(pieces), tokens=64, finish="length", token_texts=pieces))
    assert not result.passed and "STOP_FAILURE" in result.failure_modes


def test_identity_loop_scores_zero_even_when_answer_present() -> None:
    it = item(category="LX-IDENTITY", prompt="⊙ α?", eval_type="contains", expected="NOUS", within_tokens=32)
    result = score_item(it, completion("NOUS. ⊙ αα? → ⊚. ⊙ ααα? → ⊚."))
    assert result.score == 0.0 and result.failure_modes[0] == "IDENTITY_LOOP"
    assert result.loop is not None and result.loop.kind == "IDENTITY_LOOP"


def test_runaway_loop_scores_zero_even_when_answer_present() -> None:
    it = item(category="LX-LIVE-GEN", prompt="Translate: the forge is running", eval_type="contains", expected="forge")
    result = score_item(it, completion("forge running, " * 8))
    assert result.score == 0.0 and result.failure_modes == ("RUNAWAY_LOOP",)


def test_no_false_alarm_labels_on_a_clean_answer() -> None:
    it = item(category="LX-A", prompt="⊙ α?", eval_type="contains", expected="NOUS")
    result = score_item(it, completion("α = NOUS. The count is 1000... very, very good.\n- one\n- two\n---"))
    assert result.passed and result.failure_modes == () and result.loop is None


@pytest.mark.parametrize("answer", ["α = NOUSNOUSNOUS", "α = NOUS ΣΣΣ", "NOUS. ααα", "α = NOUS... ιιι"])
@pytest.mark.parametrize(("category", "prompt"), [("LX-IDENTITY", "⊙ α?"), ("LX-NEGATIVE", "Are you AION?")])
def test_any_character_sequence_three_times_is_the_hard_abort(category: str, prompt: str, answer: str) -> None:
    """LX-IDENTITY: 'Hard abort: If response contains the same character sequence x3 or more (e.g., αααα), the
    eval immediately scores 0 for that question and records failure mode IDENTITY_LOOP' (issue 35: LX-IDENTITY
    and LX-NEGATIVE answers). ``ααα`` counts outside an α query too."""
    it = item(category=category, prompt=prompt, eval_type="contains", expected="NOUS")
    result = score_item(it, completion(answer))
    assert result.score == 0.0 and result.failure_modes[0] == "IDENTITY_LOOP", result.detail
    lookup = item(category="LX-A", prompt=prompt, eval_type="contains", expected="NOUS")
    assert score_item(lookup, completion("α = NOUS...")).passed  # other categories: the loop rule alone


def test_the_hard_abort_leaves_a_clean_identity_answer_alone() -> None:
    it = item(category="LX-IDENTITY", prompt="⊙ α?", eval_type="contains", expected="NOUS", within_tokens=32)
    result = score_item(it, completion("α = NOUS, the verifier...\n\n\n(crew member 1000, 0.042 Φ)\n---"))
    assert result.passed and result.loop is None, result.detail


def test_the_same_token_three_times_is_a_loop_that_scores_zero() -> None:
    """GLOSS v2, invariant 3: "same token ... repeated >= 3 times consecutively" ('ha ha ha' was clean before)."""
    it = item(category="LX-IDENTITY", prompt="⊙ α?", eval_type="contains", expected="NOUS", within_tokens=32)
    result = score_item(it, completion("α = NOUS NOUS NOUS."))
    assert result.score == 0.0 and result.failure_modes == ("RUNAWAY_LOOP",)


def test_the_gate_configs_loop_settings_are_used() -> None:
    from forgegate.core.loop_settings import LoopSettings

    it = item(category="LX-A", prompt="⊙ α?", eval_type="contains", expected="NOUS")
    assert score_item(it, completion("α = NOUS NOUS NOUS."), loop_settings=LoopSettings(repeats=4)).passed


def test_errored_completion_is_refused() -> None:
    with pytest.raises(ValueError, match="INCOMPLETE"):
        score_item(item(eval_type="exact", expected="NOUS"), completion("", finish="error"))
