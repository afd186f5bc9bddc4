"""lv-hemingway: a pair's verdict depends on the pair (issue 44, item 6).

lv-hemingway v2, section 4: "A candidate's verdict must not depend on which *other* arms you happened to generate".
The voice and memorisation controls of a comparison are sized on that comparison's arms (the control and the
candidate), never on every arm's generations: a third arm with much shorter answers, added to the run, leaves every
existing comparison's word and numbers as they were. The only figures allowed to move are the ones the spec keeps
for comparability with lv-bronte (the all-arms floor, which arm set it, and whether the two floor rules disagree),
and the added arm's own entry.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from instruments_helpers import SEEDS, arm_from_novel, beats, novel

from forgegate.metrics import Generation, memorization_report, voice_report
from forgegate.pipeline.axes import gate_memorization, gate_voice

ALL_ARMS_RECORD = {"floor_all_arms", "floor_all_arms_from", "floors_disagree"}
"""lv-hemingway: "The pairwise number is the verdict; the all-arms number is kept so the lv-bronte record stays
comparable": these three read every arm by definition."""


def _run() -> list[Generation]:
    rng = np.random.default_rng(4919)
    return (arm_from_novel("base-unadapted", "dickens-great-expectations.txt", rng, per_seed=12)
            + arm_from_novel("ckpt1750", "austen-pride-and-prejudice.txt", rng, per_seed=10))


def _third_arm() -> list[Generation]:
    """An arm nobody compares, 40 answers of 25 words a seed (the pair: 12 and 10 of 120): it moves any median
    taken over every arm."""
    rng = np.random.default_rng(850)
    return [Generation(arm="ckpt850", seed=seed, text=t)
            for seed in SEEDS for t in beats(novel("austen-sense-and-sensibility.txt"), rng, 40, words=25)]


def _pair_view(axis: dict[str, Any], pair: tuple[str, str]) -> dict[str, Any]:
    """An axis's word, reasons and numbers, with the arms restricted to the compared pair."""
    kept = {k: v for k, v in axis.items() if k not in ALL_ARMS_RECORD}
    kept["arms"] = {name: axis["arms"][name] for name in pair}
    return kept


def test_a_third_arm_moves_no_number_of_the_voice_comparison() -> None:
    """lv-hemingway: 'A candidate's verdict must not depend on which other arms happened to be generated.'"""
    pair = ("base-unadapted", "ckpt1750")
    reference = novel("austen-emma.txt")

    def axis(gens: list[Generation]) -> dict[str, Any]:
        report = voice_report("Austen", reference, gens, control=pair[0], candidate=pair[1], segment_words=1000)
        dumped: dict[str, Any] = gate_voice(report).axis().model_dump(mode="json")
        return dumped

    before, after = axis(_run()), axis(_run() + _third_arm())
    assert "ckpt850" in after["arms"]  # the third arm was measured, and is in the all-arms record
    assert before["controls"]["chunk_words"] == 1320  # the pair's median seed: 12 and 10 answers of 120 words
    assert _pair_view(after, pair) == _pair_view(before, pair)


def test_a_third_arm_moves_no_number_of_the_memorisation_comparison() -> None:
    """lv-hemingway: 'A candidate's verdict must not depend on which other arms happened to be generated.'"""
    pair = ("base-unadapted", "ckpt1750")
    corpus = [novel("austen-pride-and-prejudice.txt")]

    def axis(gens: list[Generation]) -> dict[str, Any]:
        report = memorization_report(corpus, gens, control=pair[0], candidate=pair[1], n=8, hit_rate_margin=0.05,
                                     max_margin=5, rng=np.random.default_rng(0))
        dumped: dict[str, Any] = gate_memorization(report).axis().model_dump(mode="json")
        return dumped

    before, after = axis(_run()), axis(_run() + _third_arm())
    assert "ckpt850" in after["arms"]
    assert before["positive_control"]["passage_words"] > 100  # the pair's median answer (120), not the run's (25)
    assert _pair_view(after, pair) == _pair_view(before, pair)
