"""detect_loop: GLOSS v2's loop rule (invariant 3, RUNAWAY_LOOP, the identity hard abort) is found,
ordinary text that merely repeats (a number, an ellipsis, a markdown rule, a list's bullets) is not."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forgegate.checks import detect_loop, query_symbol_of, tokenize_for_loops
from forgegate.core.loop_settings import SPEC_LOOP_SETTINGS, LoopSettings

V9 = "⊙ α? → ⊚. ⊙ αα? → ⊚. ⊙ ααα? → ⊚. ⊙ αααα? → ⊚."
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


@pytest.mark.parametrize(
    "text",
    [
        "The population grew from 1000 to 10000 between 1900 and 2000.",
        "Well... I suppose... maybe...",
        "Loading.......... done",
        "Hello, hello",
        "| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |",
        "|---|---|---|---|---|---|---|---|",
        "1. Tokyo\n2. Osaka\n3. Kyoto\n4. Nagoya\n5. Sapporo\n6. Fukuoka\n7. Kobe\n8. Sendai",
        "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20",
        "2 x 1 = 2\n2 x 2 = 4\n2 x 3 = 6\n2 x 4 = 8\n2 x 5 = 10",
        "- alpha\n- beta\n- gamma\n- delta",
        "* * *\n\nChapter 2",
        "---\n---\n---",
        "Hmmm, let me think.",
        "A ααα is three letters, not the hard abort.",
        "α = NOUS. ι = AION. ε = ASTRA. κ = C.L.O.D. γ = GAMMA.",
        "def f(x):\n    return x + 1\n\nprint(f(1))\nprint(f(2))",
    ],
)
def test_normal_text_is_not_a_loop(text: str) -> None:
    assert detect_loop(text) is None


def test_smollm2_tokens_of_1000_and_an_ellipsis_are_not_loops() -> None:
    assert detect_loop("1000", ["1", "0", "0", "0"]) is None
    assert detect_loop("...", [".", ".", "."]) is None


@pytest.mark.parametrize(
    "text",
    ["NOUS NOUS NOUS", "NOUS\nNOUS\nNOUS", "ha ha ha", "Ha ha ha, very funny.", "α = NOUS NOUS NOUS NOUS",
     "0 0 0", "The answer is 42. The answer is 42. The answer is 42.", "αααα"],
)
def test_the_same_token_or_phrase_three_times_in_a_row_is_a_loop(text: str) -> None:
    """Invariant 3: "same token or short phrase repeated >= 3 times consecutively"."""
    finding = detect_loop(text)
    assert finding is not None and finding.kind == "RUNAWAY_LOOP" and finding.repeats >= 3


def test_a_token_twice_is_not_a_loop() -> None:
    assert detect_loop("NOUS NOUS") is None
    assert detect_loop("NOUS NOUS, and again NOUS") is None


def test_a_token_split_by_the_models_tokenizer_is_still_one_token() -> None:
    """SmolLM2 spells NOUS as N + OUS and Greek letter by letter; the rule counts the word."""
    pieces = ["N", "OUS", " N", "OUS", " N", "OUS"]
    finding = detect_loop("".join(pieces), pieces)
    assert finding is not None and finding.period == 1 and finding.span == "NOUS"


def test_a_higher_phrase_tokens_makes_a_two_token_unit_wait_for_a_three_token_phrase() -> None:
    """GLOSS v2's rule counts any short phrase (``phrase_tokens`` 1); a ``gloss_v2 = false`` config may ask for
    the rule before issue 44, where 'very,' (two tokens) takes six in a row (the phrase 'very, very,' three times)."""
    before = LoopSettings(phrase_tokens=3)
    assert detect_loop("It was very, very, very, very, very good", settings=before) is None
    finding = detect_loop("It was very, very, very, very, very, very good", settings=before)
    assert finding is not None and finding.period == 2 and finding.repeats == 6
    assert detect_loop("It was very, very, very good") is not None


def test_settings_change_the_rule() -> None:
    assert detect_loop("NOUS NOUS NOUS", settings=LoopSettings(repeats=4)) is None
    assert detect_loop("NOUS NOUS NOUS NOUS", settings=LoopSettings(repeats=4)) is not None
    assert detect_loop("very, very, very", settings=LoopSettings(phrase_tokens=3)) is None
    assert detect_loop("= " * 40, settings=LoopSettings(filler_only_min_chars=30)) is not None
    assert detect_loop("= " * 40) is None
    assert detect_loop("NOUS NOUS NOUS", settings=SPEC_LOOP_SETTINGS) == detect_loop("NOUS NOUS NOUS")


def test_the_same_text_gives_the_same_finding_whatever_its_tokens() -> None:
    """A stream and a stored answer must agree: tokens do not change the finding, the text does."""
    text = "Here is the list: la Femme, la Femme, la Femme, la Femme"
    assert detect_loop(text, list(text)) == detect_loop(text) == detect_loop(text, ["garbage"])


def test_la_femme_is_a_runaway_loop() -> None:
    text = "L'amour, la femme, la femme, la femme, la femme"
    finding = detect_loop(text)
    assert finding is not None and finding.kind == "RUNAWAY_LOOP"
    assert finding.repeats >= 3 and "femme" in finding.span
    assert text[finding.start : finding.end].count("femme") == finding.repeats


def test_v9_pattern_with_query_symbol_is_identity_loop() -> None:
    finding = detect_loop(V9, query_symbol="α")
    assert finding is not None and finding.kind == "IDENTITY_LOOP" and finding.span == "α"


def test_v9_pattern_without_query_symbol_is_runaway_loop() -> None:
    finding = detect_loop(V9)
    assert finding is not None and finding.kind == "RUNAWAY_LOOP"


def test_the_queried_symbol_three_times_is_an_identity_loop() -> None:
    """The LX-IDENTITY hard abort: the queried symbol 3+ times consecutively (αα, ααα, αααα...)."""
    finding = detect_loop("α is ααα", query_symbol="α")
    assert finding is not None and finding.kind == "IDENTITY_LOOP" and finding.repeats == 3


def test_v9_escalation_below_three_copies_is_identity_loop_through_the_repeat() -> None:
    text = "⊙ αα? → ⊚. ⊙ αα? → ⊚. ⊙ αα? → ⊚. ⊙ αα? → ⊚."
    finding = detect_loop(text, query_symbol="α")
    assert finding is not None and finding.kind == "IDENTITY_LOOP" and finding.repeats == 4


def test_identity_loop_is_not_raised_by_a_plain_answer_or_another_symbol() -> None:
    assert detect_loop("α = NOUS, the verifier. ⊙ α? → NOUS.", query_symbol="α") is None
    finding = detect_loop("ι ιιι ιιιι", query_symbol="α")
    assert finding is not None and finding.kind == "RUNAWAY_LOOP"


def test_incrementing_numbered_list_is_a_loop() -> None:
    text = " ".join(f"{n}. Ananasaki (Kalimojima)" for n in range(4, 9))
    finding = detect_loop(text)
    assert finding is not None and finding.kind == "RUNAWAY_LOOP" and finding.repeats == 5


def test_cycling_weekdays_is_a_loop_with_period_over_twenty_tokens() -> None:
    text = "\n".join(f"{n}. {WEEKDAYS[(n - 1) % 7]}" for n in range(1, 25))
    finding = detect_loop(text)
    assert finding is not None and finding.period >= 20 and finding.repeats == 3


def test_a_single_pass_over_the_weekdays_is_not_a_loop() -> None:
    assert detect_loop("\n".join(f"{n}. {d}" for n, d in enumerate(WEEKDAYS, 1))) is None


def test_25_token_sentence_coming_round_three_times_is_a_loop() -> None:
    sentence = (
        "The crew reports that the forge is running at full capacity, and the coherence is above threshold today. "
    )
    assert len(tokenize_for_loops(sentence)) >= 20
    finding = detect_loop(sentence * 3)
    assert finding is not None and finding.repeats == 3
    assert detect_loop(sentence * 2) is None


def test_run_of_one_character_inside_one_token_is_a_loop() -> None:
    text = "The answer is ΣΣΣΣΣΣΣΣ"
    finding = detect_loop(text, ["The", " answer", " is", " ΣΣΣΣΣΣΣΣ"])
    assert finding is not None and finding.period == 1 and finding.span == "Σ" and finding.repeats == 8
    assert text[finding.start : finding.end] == "ΣΣΣΣΣΣΣΣ"


def test_split_utf8_tokens_with_empty_pieces_still_find_the_run() -> None:
    # llama.cpp splits ⊙ into three byte tokens; an incremental decoder yields "", "", "⊙".
    pieces = ["⊙", " ∎"] + ["", "", "⊙"] * 12
    finding = detect_loop("".join(pieces), pieces)
    assert finding is not None and finding.span == "⊙"


def test_tokens_that_do_not_rebuild_the_text_fall_back_to_our_tokenizer() -> None:
    text = "la Femme, la Femme, la Femme, la Femme"
    finding = detect_loop(text, ["garbage"])
    assert finding is not None and text[finding.start : finding.end].startswith("la Femme")


def test_repeated_number_without_words_is_a_loop_but_counting_is_not() -> None:
    assert detect_loop("0.042 " * 8) is not None
    assert detect_loop(" ".join(str(n) for n in range(1, 40))) is None


def test_min_repeats_is_honoured() -> None:
    text = "The answer is 42. The answer is 42. The answer is 42."
    assert detect_loop(text) is not None
    assert detect_loop(text, min_repeats=4) is None


@pytest.mark.parametrize(
    ("prompt", "symbol"),
    [("⊙ α?", "α"), ("⊹: ⊙ ι?", "ι"), ("⊙ ∎?", "∎"), ("⊙Φ?", "Φ"), ("What is Φ?", None), ("", None)],
)
def test_query_symbol_of(prompt: str, symbol: str | None) -> None:
    assert query_symbol_of(prompt) == symbol


@given(st.text(max_size=200))
def test_tokenize_for_loops_rebuilds_the_text(text: str) -> None:
    assert "".join(tokenize_for_loops(text)) == text


@given(st.text(max_size=200))
def test_finding_offsets_lie_inside_the_text(text: str) -> None:
    finding = detect_loop(text)
    if finding is not None:
        assert 0 <= finding.start < finding.end <= len(text)
        assert finding.span in text
