"""The beat-fixture builder: band counts, refusal when too few, round-robin, reproducible."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from instruments_helpers import run_cli

from forgegate.errors import InputError
from forgegate.fixture import build_fixture, load_fixture, read_pairs

WORKS = ("The Sun Also Rises", "A Farewell to Arms", "The Old Man and the Sea", "To Have and Have Not",
         "Men Without Women")


def _pairs(path: Path, in_band: int, total: int = 200, train: int = 20) -> Path:
    """``total`` val pairs of which ``in_band`` have a 90-150-word response, spread over five works."""
    rows = []
    for i in range(total):
        words = 90 + (i % 61) if i < in_band else (60 if i % 2 else 170)
        rows.append({"split": "val", "instruction": f"Write beat {i}.", "response": " ".join(["w"] * words),
                     "work": WORKS[i % len(WORKS)]})
    rows += [{"split": "train", "instruction": "t", "response": "w " * 100, "work": WORKS[0]}] * train
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_reports_173_of_200_in_band_and_samples_60_round_robin(tmp_path: Path) -> None:
    build = build_fixture(read_pairs(_pairs(tmp_path / "p.jsonl", 173)), split="val", n=60, band=(90, 150),
                          seed=4919)
    assert (build.split_total, build.in_band, len(build.items)) == (200, 173, 60)
    assert sorted(build.sampled_by_work.values()) == [12] * 5
    assert [item.work for item in build.items[:5]] == sorted(WORKS)


def test_same_seed_same_fixture_other_seed_other_fixture(tmp_path: Path) -> None:
    pairs = read_pairs(_pairs(tmp_path / "p.jsonl", 173))
    first = build_fixture(pairs, split="val", n=60, band=(90, 150), seed=4919)
    again = build_fixture(pairs, split="val", n=60, band=(90, 150), seed=4919)
    other = build_fixture(pairs, split="val", n=60, band=(90, 150), seed=1)
    assert [i.id for i in first.items] == [i.id for i in again.items]
    assert [i.id for i in first.items] != [i.id for i in other.items]


def test_refuses_when_fewer_than_n_are_in_band(tmp_path: Path) -> None:
    pairs = read_pairs(_pairs(tmp_path / "p.jsonl", 44))
    with pytest.raises(InputError, match="only 44 of 200 'val' pairs are inside the 90-150 word band; 60"):
        build_fixture(pairs, split="val", n=60, band=(90, 150), seed=4919)


def test_fixture_cli_writes_items_and_exits_2_when_too_few(tmp_path: Path) -> None:
    pairs = _pairs(tmp_path / "pairs.jsonl", 173)
    out = tmp_path / "fixture.jsonl"
    result = run_cli("fixture", "build", "--pairs", pairs, "--split", "val", "--n", "60", "--band", "90-150",
                     "--seed", "4919", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "val: 200 pairs, 173 inside the 90-150 word band" in result.stdout
    items = load_fixture(out)
    assert len(items) == 60 and all(item.prompt.startswith("Write beat") for item in items)
    refused = run_cli("fixture", "build", "--pairs", pairs, "--split", "val", "--n", "180", "--band", "90-150",
                      "--seed", "4919", "--out", tmp_path / "f2.jsonl")
    assert refused.returncode == 2 and "only 173 of 200" in refused.stderr
    assert not (tmp_path / "f2.jsonl").exists()


def test_pairs_row_without_work_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"split": "val", "instruction": "i", "response": "r"}\n')
    with pytest.raises(InputError) as info:
        read_pairs(path)
    assert info.value.line == 1 and info.value.field == "work"
