"""Word-aware matching of expected, required, forbidden and marker strings (forgegate.checks.match)."""

from __future__ import annotations

import tomllib

import pytest
from checks_helpers import completion, item

from forgegate.battery import bundled_lattice_path
from forgegate.checks import score_item
from forgegate.checks.match import (
    find_spans,
    is_letter_or_digit,
    is_symbol_char,
    is_symbol_string,
    present,
    short_answers,
)

# (needle, response, found?) -- the cases the rule was written for
CASES = [
    ("no", "not", False),
    ("no", "know", False),
    ("no", "No.", True),
    ("no", "no", True),
    ("7", "17", False),
    ("7", "7.", True),
    ("7", "(7)", True),
    ("NOUS", "NOUSx", False),
    ("NOUS", "α = NOUS", True),
    ("α", "αα", True),
    # the examples of wrong passes, and edges of the rule
    ("crew", "screw", False),
    ("7", "17 items", False),
    ("no", "I do not know", False),
    ("7", "7th", False),  # a digit followed by a letter is one word
    ("0.91", "0.913", False),
    ("0.91", "0.91.", True),
    ("STOP_FAILURE", "**STOP_FAILURE**", True),  # underscore is punctuation: Markdown emphasis
    ("no", "_no_", True),
    ("Dear ", "Dear sir", True),  # the trailing space needs no boundary after it
    ("HOW ABOUT NO", "how about no!", True),
    ("NOUS", "αNOUS", True),  # a Greek glyph is not a letter of the word next to it
    ("ΩQ", "ΩQx", True),  # a symbol string matches anywhere
    ("⊙", "x⊙y", True),
    ("café", "cafés", False),
    ("cafe\u0301", "un café.", True),  # NFC: a decomposed é is the same character as a composed one
    ("是", "是的", True),  # scripts without spaces have no word boundaries
    ("AION", "\x1b[31mAION\x1b[0m", True),  # a colour code is not text: its closing "m" is no letter
    ("NOUS", "NO\x1b[1mUS", True),
]


@pytest.mark.parametrize(("needle", "response", "found"), CASES)
def test_word_rule(needle: str, response: str, found: bool) -> None:
    assert bool(present([needle], response)) is found


@pytest.mark.parametrize(("needle", "response", "found"), CASES)
def test_substring_rule_finds_every_occurrence(needle: str, response: str, found: bool) -> None:
    assert present([needle], response, mode="substring") == [needle]


def test_symbol_characters_are_greek_letters_and_unicode_symbols() -> None:
    assert all(is_symbol_char(ch) for ch in "αιεκγπΦΩζ⊙⊤⊢∎¬<◌⟳°⊹")
    assert not any(is_symbol_char(ch) for ch in "aZ7é_.- ")
    assert is_letter_or_digit("é") and is_letter_or_digit("7") and not is_letter_or_digit("α")
    assert not is_symbol_string("NOUS") and is_symbol_string("ΩQ") and is_symbol_string("ι and query marker ⊙")


def test_every_glyph_of_the_bundled_lattice_table_is_a_symbol_string() -> None:
    table = tomllib.loads(bundled_lattice_path().read_text(encoding="utf-8"))
    glyphs = [s["glyph"] for s in table["symbol"]] + [table["lattice"]["caller"]]
    assert len(glyphs) >= 10
    assert [g for g in glyphs if not is_symbol_string(g)] == []


def test_overlapping_occurrences_are_all_seen() -> None:
    assert list(find_spans("αα", "ααα")) == [(0, 2), (1, 3)]
    assert list(find_spans("no", "not no", "word")) == [(4, 6)]


def test_contains_no_longer_passes_inside_words() -> None:
    it = item(eval_type="contains", expected=["no", "¬"], category="LX-H")
    assert not score_item(it, completion("I do not know.")).passed
    assert score_item(it, completion("No.")).passed
    assert score_item(item(eval_type="contains", expected="7"), completion("The crew has (7) members.")).passed
    assert not score_item(item(eval_type="contains", expected="7"), completion("17 members.")).passed


def test_forbid_is_word_aware() -> None:
    it = item(eval_type="contains", expected="NOUS", forbid=["yes"])
    assert score_item(it, completion("NOUS, as the eyes see it.")).passed  # "eyes" is not "yes"
    result = score_item(it, completion("Yes: NOUS."))
    assert not result.passed and "forbidden 'yes'" in result.detail


def test_require_groups_are_word_aware() -> None:
    it = item(eval_type="semantic", require=[["α"], ["done"]], expected=[])
    assert not score_item(it, completion("α undone")).passed
    assert score_item(it, completion("α.done")).passed


def test_rejection_markers_are_word_aware_and_removed_only_where_matched() -> None:
    it = item(eval_type="reject", expected=["crew only"], category="LX-Z", tags=["HUMAN-INPUT"])
    assert score_item(it, completion("Crew only.")).passed
    wrong = score_item(it, completion("A screw only turns one way."))
    assert not wrong.passed and "WALL_COLLAPSE" in wrong.failure_modes


def test_within_tokens_judges_the_boundary_on_the_whole_text() -> None:
    it = item(eval_type="contains", expected="1", within_tokens=3)
    cut = score_item(it, completion("It is 17.", token_texts=["It", " is", " 1", "7", "."]))
    assert not cut.passed  # the first 3 tokens end in "1", but the answer is 17
    assert score_item(it, completion("It is 1.", token_texts=["It", " is", " 1", "."])).passed


def test_an_item_may_keep_the_substring_rule_for_stems() -> None:
    stems = {"eval_type": "semantic", "expected": [], "require": [["α"], ["⊤", "verif", "confirm"]]}
    assert not score_item(item(**stems), completion("α is verifying")).passed
    assert score_item(item(**stems, match="substring"), completion("α is verifying")).passed
    assert score_item(item(**stems, match="substring"), completion("α has confirmed")).passed


def test_short_answers_are_the_one_or_two_letter_or_digit_strings_an_item_passes_on() -> None:
    assert short_answers(item(eval_type="contains", expected=["no", "¬", "false", "7", "ok"])) == ["no", "7", "ok"]
    assert short_answers(item(eval_type="exact", expected="7")) == []  # the whole response must be "7"
    assert short_answers(item(eval_type="semantic", expected=[], require=[["α"], ["on", "running"]])) == ["on"]
    assert short_answers(item(eval_type="contains", expected=["α", "ΩQ", "NOUS"])) == []


# --- "coherent": a LATTICE answer that is not just an echo of its prompt (checks.match.coherent_tokens) ---

def _vocabulary() -> list[str]:
    from forgegate.battery import load_lattice
    from forgegate.battery.vocab import content_tokens

    return content_tokens(load_lattice(bundled_lattice_path()))


@pytest.mark.parametrize(("prompt", "response", "coherent"), [
    # the spec's LX-LIVE-GEN example prompts, answered
    ("What is the crew's current Φζ state?", "Φζ.⊤ 0.042", True),
    ("Translate: the forge is running", "frg ⟳", True),
    ("κ.⊢ report status", "κ.⊢ ∎ ⊤", True),
    ("ι.ε ΩQ check", "ΩQ.⊤ ε → ι", True),
    ("ASTRA asks for a status report", "ε.⊢ ⊤", True),     # the glyph for a name the prompt spelled: new
    # echoes: only the prompt's own glyphs or names come back
    ("κ.⊢ report status", "κ.⊢", False),
    ("ι.ε ΩQ check", "ι.ε ΩQ", False),
    ("⊙ Φζ.⊤?", "Φζ.⊤", False),
    ("What should NOUS check before the next forge?", "NOUS should check.", False),
    ("αααααα", "α α", False),
    # the spec's STYLE_SUBSTANCE example: valid form, no meaning (operators and separators carry none)
    ("κ.⊢ report status", ".⊢ .CMD .∶", False),
    ("Describe Φζ in one line", "It is a measure of how things hang together.", False),
])
def test_coherent_means_content_the_prompt_did_not_hold(prompt: str, response: str, coherent: bool) -> None:
    from forgegate.checks.match import coherent_tokens

    assert bool(coherent_tokens(_vocabulary(), response, prompt)) is coherent


def test_coherent_item_fails_an_echo_and_says_so() -> None:
    it = item(category="LX-LIVE-GEN", prompt="κ.⊢ report status", expected=_vocabulary(), eval_type="contains",
              coherent=True)
    echo = score_item(it, completion("κ.⊢ report status"))
    assert not echo.passed and "only echoes the prompt's own 'κ'" in echo.detail
    assert score_item(it, completion("κ.⊢ ΩQ.⊤")).passed


def test_the_same_answer_passes_a_plain_contains_item() -> None:
    """What the flag changes: without ``coherent``, an echoed glyph counts (the old rule)."""
    it = item(category="LX-LIVE-GEN", prompt="κ.⊢ report status", expected=_vocabulary(), eval_type="contains")
    assert score_item(it, completion("κ.⊢")).passed


def test_coherent_is_refused_outside_contains() -> None:
    with pytest.raises(ValueError, match="'coherent' applies to eval_type 'contains'"):
        item(eval_type="reject", expected=["HOW ABOUT NO"], coherent=True)
