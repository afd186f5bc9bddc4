"""Entailment judges: NLI plumbing on a tiny random model, the LLM judge on the embedded model, MiniLM quality.

The tiny NLI model and SmolLM2 judge at chance: these tests check plumbing (labels, batching, caching,
call counts), never the judges' quality. Only the MiniLM test checks real clustering quality.
"""

from __future__ import annotations

import pytest
from semantic_helpers import build_tiny_nli

from forgegate.errors import InputError
from forgegate.semantic.embedding import adjusted_rand_index, cluster_by_embedding, load_embedder
from forgegate.semantic.entailment import JUDGES, LABELS, LlmJudge, NliJudge, farquhar_prompt, parse_llm_label


def test_both_judges_are_registered_by_name() -> None:
    assert {"nli", "llm"} <= set(JUDGES.names())


@pytest.mark.slow  # builds and loads a tiny NLI model (torch)
def test_nli_judge_batches_caches_and_maps_mnli_labels(tmp_path) -> None:
    judge = NliJudge(build_tiny_nli(tmp_path / "nli"), batch_size=2)
    pairs = [("paris", "the capital is paris"), ("lyon", "paris"), ("yes", "no"), ("cat sleeps", "rain"),
             ("umbrella", "rain")]
    labels = judge.judge("what is the capital of france", pairs)
    assert len(labels) == 5 and set(labels) <= set(LABELS)
    assert (judge.calls, judge.batches) == (5, 3)
    assert judge.judge("what is the capital of france", pairs[:2]) == labels[:2]
    assert judge.calls == 5  # cached: no new model call
    assert judge.describe()["question_prepended"] is True


@pytest.mark.slow  # builds and loads a tiny NLI model (torch)
def test_nli_model_without_mnli_labels_is_refused(tmp_path) -> None:
    folder = build_tiny_nli(tmp_path / "nli", labels={0: "NEGATIVE", 1: "NEUTRAL", 2: "POSITIVE"})
    with pytest.raises(InputError, match="not MNLI-style"):
        NliJudge(folder)


def test_llm_answer_parsing_and_prompt() -> None:
    assert parse_llm_label(" Entailment.") == "entailment"
    assert parse_llm_label("neutral, or contradiction") == "neutral"
    assert parse_llm_label("I cannot say") is None
    assert "Does Possible Answer 1 semantically entail Possible Answer 2?" in farquhar_prompt("q", "a", "b")


@pytest.mark.slow
def test_llm_judge_runs_through_the_engine_on_the_embedded_model_and_resumes_from_its_store(tmp_path) -> None:
    from forgegate.pipeline.semantic.judge import make_judge

    store = tmp_path / "judge.sqlite"
    pairs = [("Paris.", "The capital is Paris."), ("Paris.", "Lyon.")]
    judge = make_judge("llm", backend="embedded", cache=store, quiet=True)
    try:
        labels = judge.judge("What is the capital of France?", pairs)
    finally:
        judge.close()
    assert isinstance(judge, LlmJudge)
    assert len(labels) == 2 and set(labels) <= set(LABELS) and judge.requests.generated == 2
    again = make_judge("llm", backend="embedded", cache=store, quiet=True)  # the answers come from the store
    try:
        assert again.judge("What is the capital of France?", pairs) == labels
    finally:
        again.close()
    assert isinstance(again, LlmJudge) and (again.requests.generated, again.requests.reused) == (0, 2)


@pytest.mark.slow
def test_minilm_clusters_paraphrases_together_and_different_meanings_apart() -> None:
    texts = ["The meeting was moved to Friday.", "They rescheduled the meeting for Friday.",
             "Take an umbrella, it is going to rain.", "Bring an umbrella because rain is expected.",
             "The cat is sleeping on the sofa.", "A cat is asleep on the couch."]
    truth = [0, 0, 1, 1, 2, 2]
    labels = cluster_by_embedding(texts, load_embedder(), threshold=0.6)
    assert adjusted_rand_index(truth, list(labels)) == 1.0
