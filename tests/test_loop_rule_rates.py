"""GLOSS v2's loop rule on ordinary text and on real loops: the README's loop-rule figures, held as a test.

The spec makes a loop fail the gate and block graduation, so a rule that fires on ordinary prose
would fail healthy models: the default may flag at most 1% of the sentences of the bundled
public-domain texts (data/texts; every 10th sentence here, all of them in
benchmarks/bench_loop_rule.py) and of the clean model answers people labelled in tests/data/loops,
and must find at least 90% of the real loops labelled there.
"""

from __future__ import annotations

from loop_corpus import labelled, measure, prose_sentences

from forgegate.checks.loops import detect_loop, query_symbol_of

MAX_SENTENCE_FALSE_ALARMS = 0.01
MAX_ANSWER_FALSE_ALARMS = 0.02
MIN_DETECTION = 0.90


def _default(text: str, prompt: str) -> bool:
    return detect_loop(text, query_symbol=query_symbol_of(prompt)) is not None


def test_default_rule_flags_at_most_one_percent_of_normal_sentences_and_finds_the_real_loops() -> None:
    sentences = list(prose_sentences(step=10))
    rows = labelled()
    rates = measure(_default, sentences, rows)
    print(rates)
    assert rates.sentences >= 9000, "data/texts is part of the repository"
    assert rates.loops >= 40 and rates.answers >= 60
    assert rates.sentence_false_alarms <= MAX_SENTENCE_FALSE_ALARMS
    assert rates.answer_false_alarms <= MAX_ANSWER_FALSE_ALARMS
    assert rates.detection >= MIN_DETECTION


def test_the_measure_can_fail() -> None:
    """A detector that flags everything fails the false-alarm bar; one that flags nothing, detection."""
    rows = labelled()
    everything = measure(lambda _t, _p: True, ["A plain sentence."], rows)
    nothing = measure(lambda _t, _p: False, ["A plain sentence."], rows)
    assert everything.sentence_false_alarms > MAX_SENTENCE_FALSE_ALARMS
    assert nothing.detection < MIN_DETECTION
