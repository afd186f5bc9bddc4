"""Whole-word Aho-Corasick matching: boundaries, non-ASCII names, overlaps."""

from __future__ import annotations

import unicodedata

from forgegate.audit.wordmatch import WordMatcher, nfc


def names(matcher: WordMatcher, text: str) -> list[str]:
    return [m.name for m in matcher.find(nfc(text))]


def test_name_inside_a_longer_word_is_not_a_match() -> None:
    matcher = WordMatcher(["Ann", "Jane"])
    assert names(matcher, "Anne met Janet and Annesley.") == []
    assert names(matcher, "Ann met Jane's sister; Jane-like, (Ann).") == ["Ann", "Jane", "Jane", "Ann"]


def test_accented_names_need_boundaries_on_letters_beyond_ascii() -> None:
    matcher = WordMatcher(["José", "Zoë"])
    assert names(matcher, "Joséphine and Zoëtrope") == []
    assert names(matcher, "«José», Zoë.") == ["José", "Zoë"]


def test_decomposed_text_matches_a_composed_name_and_never_half_a_letter() -> None:
    matcher = WordMatcher(["José", "Jose"])
    decomposed = unicodedata.normalize("NFD", "José arrived")
    assert names(matcher, decomposed) == ["José"]
    assert "Jose" not in names(matcher, decomposed)


def test_overlapping_names_resolve_leftmost_longest() -> None:
    matcher = WordMatcher(["Darcy", "Fitzwilliam Darcy", "Fitzwilliam"])
    found = matcher.find("said Fitzwilliam Darcy to Darcy")
    assert [(m.name, m.start) for m in found] == [("Fitzwilliam Darcy", 5), ("Darcy", 26)]


def test_longer_candidate_failing_its_boundary_does_not_hide_a_shorter_match() -> None:
    matcher = WordMatcher(["Mary", "Mary Ann"])
    assert names(matcher, "Mary Annesley") == ["Mary"]


def test_greek_symbol_names_and_unspaced_scripts() -> None:
    matcher = WordMatcher(["Αθηνά", "李雷"])
    assert names(matcher, "η Αθηνά είπε, Αθηνάς") == ["Αθηνά"]
    assert names(matcher, "今天李雷说") == ["李雷"]


def test_case_matters_for_proper_nouns() -> None:
    assert names(WordMatcher(["Hope"]), "hope and HOPE, then Hope") == ["Hope"]


def test_empty_name_set_matches_nothing() -> None:
    assert WordMatcher([]).find("anything") == []
