"""The source-name leak audit on renamed slices of Pride and Prejudice and Wuthering Heights."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from audit_helpers import EXPECTED_SPLITS, KEPT_BY_RENAME, RENAME_MAP, TEXTS, build_leak_fixture, gate_of

from forgegate.audit import AuditFinding, WordMatch, WordMatcher, derive_removed_names, read_tree, run_leak_audit
from forgegate.audit.names import load_rename_map
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.fixture import read_pairs as read_fixture_pairs
from forgegate.pipeline.audits import audit_gate, leak_model


def audit_body(report: Any) -> dict[str, Any]:
    """The audit's JSON (its results model) without the verdict fields every audit result shares."""
    shared = {"gate", "reasons", "finding", "kind", "schema_version"}
    body = {k: v for k, v in leak_model(report, audit_gate(report)).to_json().items() if k not in shared}
    assert body.pop("pairs_sha256") is None  # an audit of texts in memory names no pairs file to digest
    return body


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_leak_fixture(tmp_path_factory.mktemp("leak"))


def test_map_audit_reports_the_planted_leaks_exactly(fixture: dict[str, Path]) -> None:
    report = run_leak_audit(fixture["source"], [fixture["renamed"]], [fixture["pairs"]], seed=7,
                            rename_map=fixture["map"])
    assert audit_body(report) == {
        "splits": EXPECTED_SPLITS,
        "controls": {"surfaces_found": [12, 12], "nonce_absent": True, "planted_detected": [6, 6]},
    }
    assert report.finding is AuditFinding.LEAK and gate_of(report) is Gate.FAIL
    assert report.kept_by_rename == ("Meryton",)


def test_derived_names_are_exactly_the_names_the_rename_removed(fixture: dict[str, Path]) -> None:
    derived = derive_removed_names(read_tree(fixture["source"]), [read_tree(fixture["renamed"])])
    assert set(derived) == set(RENAME_MAP) - KEPT_BY_RENAME


def test_derived_audit_matches_the_map_audit(fixture: dict[str, Path]) -> None:
    report = run_leak_audit(fixture["source"], [fixture["renamed"]], [fixture["pairs"]], seed=3)
    payload = audit_body(report)
    assert payload["splits"] == EXPECTED_SPLITS
    assert payload["controls"] == {"surfaces_found": [11, 11], "nonce_absent": True,
                                   "planted_detected": [6, 6]}
    assert report.finding is AuditFinding.LEAK


def test_pairs_without_leaks_are_clean(fixture: dict[str, Path], tmp_path: Path) -> None:
    clean = tmp_path / "clean.jsonl"
    rows = [json.loads(line) for line in fixture["pairs"].read_text(encoding="utf-8").splitlines()]
    clean.write_text("".join(json.dumps(r) + "\n" for i, r in enumerate(rows) if i not in {2, 5, 7, 12, 20}),
                     encoding="utf-8")
    report = run_leak_audit(fixture["source"], [fixture["renamed"]], [clean], seed=7, rename_map=fixture["map"])
    assert report.finding is AuditFinding.CLEAN
    assert gate_of(report).exit_code == 0
    assert audit_body(report)["splits"]["train"]["pairs"] == 35


class _Blind(WordMatcher):
    def find(self, text: str) -> list[WordMatch]:
        return []


class _SeesEverything(WordMatcher):
    def find(self, text: str) -> list[WordMatch]:
        return [WordMatch(0, len(name), name) for name in self.names]


def test_a_blind_matcher_makes_the_audit_invalid_not_clean(fixture: dict[str, Path]) -> None:
    report = run_leak_audit(fixture["source"], [fixture["renamed"]], [fixture["pairs"]], seed=7,
                            rename_map=fixture["map"], matcher_factory=_Blind)
    payload = leak_model(report, audit_gate(report)).to_json()
    assert payload["gate"] == "INVALID" and payload["finding"] == "CLEAN"
    assert payload["controls"]["surfaces_found"] == [0, 12]
    assert gate_of(report).exit_code == 4


def test_a_matcher_that_sees_everything_fails_the_nonce_control(fixture: dict[str, Path]) -> None:
    report = run_leak_audit(fixture["source"], [fixture["renamed"]], [fixture["pairs"]], seed=7,
                            rename_map=fixture["map"], matcher_factory=_SeesEverything)
    assert audit_body(report)["controls"]["nonce_absent"] is False
    assert gate_of(report) is Gate.INVALID


def test_a_map_name_missing_from_the_source_fails_the_surfaces_control(
    fixture: dict[str, Path], tmp_path: Path
) -> None:
    bad_map = tmp_path / "map.tsv"
    bad_map.write_text("# canonical\treplacement\n" + "".join(f"{k}\t{v}\n" for k, v in RENAME_MAP.items())
                       + "Wickham\tPenrose\n", encoding="utf-8")
    report = run_leak_audit(fixture["source"], [fixture["renamed"]], [fixture["pairs"]], seed=7,
                            rename_map=bad_map)
    assert audit_body(report)["controls"]["surfaces_found"] == [12, 13]
    assert report.missing_from_source == ("Wickham",)
    assert gate_of(report) is Gate.INVALID


def test_the_seed_decides_the_nonce_and_the_planted_names(fixture: dict[str, Path]) -> None:
    runs = [run_leak_audit(fixture["source"], [fixture["renamed"]], [fixture["pairs"]], seed=s,
                           rename_map=fixture["map"]) for s in (1, 1, 2)]
    assert (runs[0].nonce, runs[0].planted) == (runs[1].nonce, runs[1].planted)
    assert runs[0].nonce != runs[2].nonce


def test_a_partial_renamed_tree_is_refused_when_deriving_names(fixture: dict[str, Path], tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    partial.mkdir()
    one = sorted(fixture["renamed"].glob("*.txt"))[1]
    (partial / one.name).write_text(one.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(InputError, match="--map"):
        run_leak_audit(fixture["source"], [partial], [fixture["pairs"]], seed=0)


def test_missing_source_directory_says_which(fixture: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(InputError, match="directory not found") as info:
        run_leak_audit(tmp_path / "nope", [fixture["renamed"]], [fixture["pairs"]], seed=0)
    assert "nope" in str(info.value)


def test_broken_pairs_line_names_file_and_line(fixture: dict[str, Path], tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"split": "train", "instruction": "a", "response": "b"}\n{"split": "train", \n',
                     encoding="utf-8")
    with pytest.raises(InputError) as info:
        run_leak_audit(fixture["source"], [fixture["renamed"]], [pairs], seed=0, rename_map=fixture["map"])
    assert info.value.line == 2
    assert f"{pairs}:2" in str(info.value)


def test_pairs_row_with_an_unknown_field_is_refused(fixture: dict[str, Path], tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"split": "train", "instruction": "a", "respnose": "b"}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        run_leak_audit(fixture["source"], [fixture["renamed"]], [pairs], seed=0, rename_map=fixture["map"])
    assert info.value.line == 1


def test_the_fixture_builders_pairs_file_is_read_by_the_audit(fixture: dict[str, Path], tmp_path: Path) -> None:
    """One pair schema: a file the fixture builder accepts (with ``work`` and ``id``) is a valid audit input."""
    pairs = tmp_path / "pairs.jsonl"
    row = {"split": "val", "instruction": "Write the beat.", "response": "She walked out.", "work": "w1", "id": "p1"}
    pairs.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert [p.line for p in read_fixture_pairs(pairs)] == [1]
    report = run_leak_audit(fixture["source"], [fixture["renamed"]], [pairs], seed=0, rename_map=fixture["map"])
    assert set(report.splits) == {"val"}


def test_empty_pairs_file_is_an_error_not_a_clean_result(fixture: dict[str, Path], tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no pairs"):
        run_leak_audit(fixture["source"], [fixture["renamed"]], [pairs], seed=0, rename_map=fixture["map"])


@pytest.mark.parametrize(("name", "text", "message"), [
    ("m.json", '{"Elizabeth": "Margaret", "Elizabeth": "Meg"}', "appears twice"),
    ("m.json", '["Elizabeth"]', "one JSON object"),
    ("m.tsv", "Elizabeth\tMargaret\nDarcy Holloway\n", "2 tab-separated columns"),
    ("m.tsv", "Elizabeth\tElizabeth\n", "mapped to itself"),
    ("m.csv", "Elizabeth,Margaret\n", "unknown rename map format"),
])
def test_rename_map_errors_say_what_is_wrong(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_rename_map(path)


def test_tsv_map_reads_comments_and_entries(tmp_path: Path) -> None:
    path = tmp_path / "m.tsv"
    path.write_text("# people\nElizabeth\tMargaret\n\nFitzwilliam Darcy\tJohn Holloway\n", encoding="utf-8")
    assert load_rename_map(path) == {"Elizabeth": "Margaret", "Fitzwilliam Darcy": "John Holloway"}


def test_accented_name_from_a_tale_of_two_cities_counts_only_as_a_whole_word(tmp_path: Path) -> None:
    lines = (TEXTS / "dickens-a-tale-of-two-cities.txt").read_text(encoding="utf-8").splitlines()[10500:10700]
    text = "\n".join(lines) + "\n"
    assert "Evrémonde" in text and "Darnay" in text
    for tree, body in (("source", text), ("renamed", text.replace("Evrémonde", "Varennes")
                                                        .replace("Darnay", "Lacroix"))):
        (tmp_path / tree).mkdir()
        (tmp_path / tree / "tale.txt").write_text(body, encoding="utf-8")
    rename_map = tmp_path / "map.json"
    rename_map.write_text(json.dumps({"Evrémonde": "Varennes", "Darnay": "Lacroix"}, ensure_ascii=False),
                          encoding="utf-8")
    rows = [
        ("train", "The prisoner Lacroix waited.", "“Your age, Varennes?”"),  # renamed: clean
        ("train", "Citizen Evre\u0301monde's cell.", "He waited."),  # decomposed accent, possessive: a leak
        ("train", "The Evrémondes and the Evrémondesque hall.", "Darnayville was quiet."),  # longer words
        ("val", "“Is this the emigrant Evrémonde?”", "Darnay bowed."),  # both halves leak
    ]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"split": s, "instruction": i, "response": r}, ensure_ascii=False) + "\n"
                             for s, i, r in rows), encoding="utf-8")
    report = run_leak_audit(tmp_path / "source", [tmp_path / "renamed"], [pairs], seed=0, rename_map=rename_map)
    assert audit_body(report) == {
        "splits": {
            "train": {"pairs": 3, "leaking_instruction": 1, "leaking_response": 0, "names": {"Evrémonde": 1}},
            "val": {"pairs": 1, "leaking_instruction": 1, "leaking_response": 1,
                    "names": {"Darnay": 1, "Evrémonde": 1}},
        },
        "controls": {"surfaces_found": [2, 2], "nonce_absent": True, "planted_detected": [2, 2]},
    }
    assert report.finding is AuditFinding.LEAK
