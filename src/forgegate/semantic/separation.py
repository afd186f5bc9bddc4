"""Development vs confirmation data: a frozen codebook's own development samples never confirm it.

T_GPT v0.8.1 builds the codebook "on development data only" and maps *confirmation* samples to the
frozen IDs. The codebook records the hash of every development sample (``Codebook.development_samples``,
``codebook.sample_hash``); assigning confirmation samples refuses any sample whose hash is among them,
naming it. A codebook frozen before the hashes were recorded cannot show the separation: it is refused
for confirmatory use (with the command that rebuilds it) and allowed, with a note, for exploratory use.
"""

from __future__ import annotations

from typing import Any

from forgegate.errors import UsageError
from forgegate.semantic.codebook import Codebook, TextSample, sample_hash

REBUILD = ("rebuild it from the development samples: `forgegate semantic cluster --samples DEV.jsonl --questions "
           "QUESTIONS.jsonl --judge ... --out DIR` (or re-run the development plan and `forgegate semantic freeze` "
           "its draft), then lock the confirmation plan on the new codebook")
"""How to get a codebook that records its development samples (quoted in the refusal)."""


def _name(sample: TextSample) -> str:
    return f"task {sample.task!r} condition {sample.condition!r} sample {sample.sample!r}"


def check_separation(book: Codebook, samples: list[TextSample], *, confirmatory: bool,
                     where: str = "the frozen codebook") -> dict[str, Any]:
    """Refuse confirmation samples the codebook was built on; say what was checked (for the assignment report).

    ``confirmatory`` False lets a codebook without development hashes through, recorded as unchecked;
    a development sample among the confirmation samples is refused either way (it is never confirmation data).
    """
    if book.development_samples is None:
        if confirmatory:
            raise UsageError(f"{where} records no development-sample hashes (it was frozen before forgegate "
                             "recorded them), so nothing shows that the confirmation samples are not its development "
                             f"samples: refused for confirmatory use; {REBUILD}. For an exploratory run, set "
                             "confirmatory = false (or pass --exploratory to `semantic assign`).")
        return {"development_samples": None, "checked": 0, "reused": 0,
                "note": "exploratory: the codebook records no development-sample hashes, so separation from the "
                        "development data is not checked"}
    dev = set(book.development_samples)
    reused = [s for s in samples if sample_hash(s) in dev]
    if reused:
        shown = "; ".join(_name(s) for s in reused[:5]) + (f"; and {len(reused) - 5} more" if len(reused) > 5 else "")
        raise UsageError(f"{len(reused)} confirmation sample(s) are development samples of {where} (same task, "
                         f"condition, sample ID and text): {shown}. The codebook was built on them, so they cannot "
                         "confirm it (T_GPT v0.8.1: build the codebook on development data only); generate fresh "
                         "confirmation samples (other seeds) and score those")
    return {"development_samples": len(dev), "checked": len(samples), "reused": 0,
            "note": "no confirmation sample is a development sample of the codebook"}
