"""Names are compared as people read them (issue 38): the plan's author is not let in as an annotator by a zero-width
space, fullwidth letters or a Cyrillic look-alike, and a name that is empty once invisible characters go is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from semantic_helpers import run_cli

from forgegate.core.names import name_key, name_problem, same_person
from forgegate.errors import UsageError
from forgegate.semantic.relevance import author_problem, check_annotator

ZWSP, ZWJ, BOM, RLM = "\u200b", "\u200d", "\ufeff", "\u200f"
LOOKALIKES = [
    f"Ca{ZWSP}rol",               # a zero-width space inside
    f"{BOM}Carol{ZWJ}",            # a byte-order mark and a joiner around
    "Ｃａｒｏｌ",                   # fullwidth letters
    "CAROL",                       # case
    "  carol  ",                   # spacing
    f"carol{RLM}",                 # a bidi mark
    "c\u0430r\u043el",            # Cyrillic а and о among Latin letters
]


@pytest.mark.parametrize("name", LOOKALIKES)
def test_the_author_written_another_way_is_still_the_author(name: str) -> None:
    assert author_problem(name, "Carol") is not None
    with pytest.raises(UsageError):
        check_annotator(name, "Carol")


def test_a_look_alike_in_one_other_script_reads_as_the_same_name() -> None:
    cyrillic = "\u0430\u0441\u0435"  # Cyrillic а, с, е: one script, so not refused as mixed, but read as "ace"
    assert name_problem(cyrillic) is None and same_person(cyrillic, "Ace")
    assert author_problem(cyrillic, "ace") is not None


def test_a_mixed_script_name_is_refused_and_a_real_name_in_one_script_is_not() -> None:
    assert "mixes Cyrillic and Latin letters" in (name_problem("c\u0430rol") or "")
    for real in ("Анна", "Ζωή", "José", "O'Neil", "李雷", "Anne-Marie Dubois"):
        assert name_problem(real) is None, real
        assert author_problem(real, "Carol") is None
    assert not same_person("Анна", "Anna")  # н is not n: a Cyrillic name is not taken for another Latin one


@pytest.mark.parametrize("name", ["", "   ", ZWSP * 2, f"{ZWSP} {BOM}", RLM])
def test_a_name_empty_once_invisible_characters_go_is_refused(name: str) -> None:
    assert name_key(name) == ""
    assert "is empty once spaces and invisible" in (name_problem(name) or "")
    assert author_problem(name, "Carol") is not None
    with pytest.raises(UsageError, match="--author is required"):
        check_annotator("ana", name)


def test_semantic_relevance_refuses_the_author_behind_a_zero_width_space(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    sheet = tmp_path / "s.csv"
    sheet.write_text("cluster,relevant\nc1,1\nc2,0\n", encoding="utf-8")
    code, out, err = run_cli(["semantic", "relevance", "--first", f"Ca{ZWSP}rol={sheet}", "--second", f"bo={sheet}",
                              "--author", "carol", "--out", str(tmp_path / "r.jsonl")], capsys, monkeypatch)
    assert code == 2 and "wrote the plan and may not be a primary annotator" in out + err


def test_a_reviewer_name_of_zero_width_spaces_or_mixed_scripts_is_refused_and_nothing_is_stored(
        tmp_path: Path) -> None:
    from view_helpers import GOOD, make_run

    from forgegate.pipeline.review import record_review
    from forgegate.store import RunStore, run_path

    store = tmp_path / "store"
    run_id = make_run(tmp_path / "in", store, GOOD)
    path = run_path(run_id, store)
    for reviewer, says in ((ZWSP * 2, "--reviewer NAME"), (f"{ZWSP} {BOM}", "--reviewer NAME"),
                           ("b\u043eb", "mixes Cyrillic and Latin letters")):
        with pytest.raises(UsageError, match=says):
            record_review(path, "model/cold/0", passed=True, reviewer=reviewer, note=None)
    with RunStore.open(path, create=False) as opened:
        assert opened.reviews() == {}
    record_review(path, "model/cold/0", passed=True, reviewer="bob", note=None)
    with RunStore.open(path, create=False) as opened:
        assert opened.reviews() == {"model/cold/0": ("pass", "bob")}


@pytest.mark.parametrize("name", ["\u0390", "\u1fd7", "\u0131", "Stra\u00dfe", "\u01c6"])
def test_a_name_and_its_upper_case_are_one_person_where_folding_alone_would_split_them(name: str) -> None:
    """Found by the fuzz suite: Greek letters whose upper case decomposes (NFKC again after folding), the dotless
    ı (its upper case I folds to i), ß and the dž digraph."""
    assert same_person(name, name.upper()) and same_person(name.upper(), name.lower())
