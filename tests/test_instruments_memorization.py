"""Axis B (not copied): planted verbatim passages are found at full length, an unrelated novel is not."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from instruments_helpers import SEEDS, TEXTS, beats, novel, run_cli, write_gens

from forgegate.core.verdict import Gate
from forgegate.gate.memorization import memorization_verdict
from forgegate.metrics import Generation, NgramIndex, memorization_report, words_of

CORPUS = ("austen-pride-and-prejudice.txt", "austen-emma.txt")


def _corpus() -> list[str]:
    return [novel(name) for name in CORPUS]


def test_planted_passages_are_found_at_their_exact_length_and_an_unrelated_novel_finds_nothing() -> None:
    index = NgramIndex(_corpus(), 8)
    rng = np.random.default_rng(1)
    unrelated = beats(novel("dickens-great-expectations.txt"), rng, 40)
    source = novel("austen-pride-and-prejudice.txt").split()
    planted, lengths = [], []
    for length in (12, 25, 40):
        start = int(rng.integers(0, len(source) - length))
        passage = " ".join(source[start:start + length])
        lengths.append(len(words_of(passage)))
        planted.append(f"Zyxwv qwerty plonk. {passage} Zyxwv qwerty plonk.")
    found = index.longest_matches(planted + unrelated)
    assert found[:3] == lengths
    assert sum(f > 0 for f in found[3:]) <= 1


def test_matches_ignore_case_and_punctuation_but_never_cross_a_file_boundary() -> None:
    index = NgramIndex(["one two three four five", "six seven eight nine ten"], 3)
    assert index.longest_matches(["ONE, two -- three; four!", "four five six seven", "two three"]) == [4, 0, 0]


def _arms(rng: np.random.Generator, copy_every: int | None) -> list[Generation]:
    """base: Great Expectations beats; ckpt: Jane Eyre beats, every ``copy_every``-th ending in 30 words of Emma."""
    source = novel("austen-emma.txt").split()
    rows: list[Generation] = []
    for seed in SEEDS:
        for text in beats(novel("dickens-great-expectations.txt"), rng, 20):
            rows.append(Generation(arm="base", seed=seed, text=text))
        for i, text in enumerate(beats(novel("cbronte-jane-eyre.txt"), rng, 20)):
            if copy_every is not None and i % copy_every == 0:
                start = int(rng.integers(0, len(source) - 30))
                text = " ".join(text.split()[:90] + source[start:start + 30])
            rows.append(Generation(arm="ckpt", seed=seed, text=text))
    return rows


def test_copying_candidate_fails_beside_a_clean_control_with_both_controls_green() -> None:
    report = memorization_report(_corpus(), _arms(np.random.default_rng(2), copy_every=4), control="base",
                                 candidate="ckpt", n=8, hit_rate_margin=0.05, max_margin=5,
                                 rng=np.random.default_rng(0))
    assert report.controls.saturated and report.controls.negative_clean
    assert report.controls.positive_hit_rate == 1.0
    assert report.controls.positive_max == report.controls.passage_words
    assert report.arms["ckpt"].hit_rate >= 0.25 and report.arms["ckpt"].max >= 30
    assert report.arms["base"].hit_rate <= 0.05
    assert memorization_verdict(report).gate is Gate.FAIL


def test_candidate_that_copies_nothing_passes() -> None:
    report = memorization_report(_corpus(), _arms(np.random.default_rng(3), copy_every=None),
                                 control="base", candidate="ckpt", n=8, hit_rate_margin=0.05, max_margin=5,
                                 rng=np.random.default_rng(0))
    assert memorization_verdict(report).gate is Gate.PASS


def test_generations_shorter_than_n_leave_the_axis_blind_and_invalid() -> None:
    rows = [Generation(arm=arm, seed=seed, text="It is a truth universally acknowledged.")
            for arm in ("base", "ckpt") for seed in SEEDS]
    report = memorization_report(_corpus(), rows, control="base", candidate="ckpt", n=8, hit_rate_margin=0.0,
                                 max_margin=0, rng=np.random.default_rng(0))
    assert not report.controls.saturated
    assert memorization_verdict(report).gate is Gate.INVALID


def test_memorization_cli_writes_the_issue_json_shape(tmp_path: Path) -> None:
    gens = write_gens(tmp_path / "gens.jsonl", _arms(np.random.default_rng(4), copy_every=4))
    result = run_cli("memorization", "--corpus", TEXTS / CORPUS[0], "--corpus", TEXTS / CORPUS[1],
                     "--generations", gens, "--n", "8", "--control", "base", "--candidate", "ckpt",
                     "--json", tmp_path / "mem.json")
    payload = json.loads((tmp_path / "mem.json").read_text())
    assert result.returncode == 1 and payload["gate"] == "FAIL" == payload["verdict"]
    assert set(payload["arms"]["ckpt"]) >= {"hit_rate", "max"}
    assert payload["positive_control"]["saturated"] is True
    assert payload["positive_control"]["hit_rate"] == 1.0
    assert payload["positive_control"]["max"] == payload["positive_control"]["passage_words"]


def _brute_longest(docs: list[list[str]], query: list[str], n: int) -> int:
    best = 0
    for doc in docs:
        for i in range(len(query)):
            for j in range(len(doc)):
                k = 0
                while i + k < len(query) and j + k < len(doc) and query[i + k] == doc[j + k]:
                    k += 1
                best = max(best, k)
    return best if best >= n else 0


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(st.lists(st.sampled_from("abc"), max_size=30), min_size=1, max_size=3),
       queries=st.lists(st.lists(st.sampled_from("abcd"), max_size=15), max_size=4),
       n=st.integers(1, 4))
def test_index_longest_run_equals_brute_force(docs: list[list[str]], queries: list[list[str]], n: int) -> None:
    index = NgramIndex([" ".join(d) for d in docs], n)
    assert index.longest_matches([" ".join(q) for q in queries]) == [_brute_longest(docs, q, n) for q in queries]


def test_the_instrument_returns_measurements_and_no_verdict() -> None:
    """Axis B's report carries figures and controls only; the word comes from ``gate.memorization``."""
    from dataclasses import fields

    from forgegate.metrics.memorization import MemorizationReport

    assert "verdict" not in {f.name for f in fields(MemorizationReport)}
    assert not any(f.type in ("Verdict", "Reason") for f in fields(MemorizationReport))
