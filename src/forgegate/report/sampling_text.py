"""A GLOSS result's sampling in words: the spec's procedure ("as served") or a departure from it, and what was in force.

Read from the result's ``sampling`` (``pipeline.gloss_scoring.run_sampling``); nothing is recomputed here but the
wording.
"""

from __future__ import annotations

from forgegate.results.eval import Sampling

SOURCE_KEYS = ("source", "note")


def sent_text(sampling: Sampling) -> str:
    """What every request sent beyond the cap and the seed: ``temperature 0, top_p 1`` or ``nothing``."""
    sent = [f"{name} {value:g}" for name, value in (("temperature", sampling.temperature), ("top_p", sampling.top_p))
            if value is not None]
    return ", ".join(sent) or "nothing"


def served_text(sampling: Sampling) -> str | None:
    """The sampling the backend serves with, as it reported it (None: it did not)."""
    served = sampling.served
    if not served:
        return None
    values = ", ".join(f"{key} {value}" for key, value in served.items() if key not in SOURCE_KEYS)
    sources = [str(value) for key, value in served.items() if key == "source"]
    return f"{values or 'no values reported'}" + "".join(f" ({source})" for source in sources)


def sampling_line(sampling: Sampling, *, short: bool = False) -> str:
    """``sampling: as served ...`` or ``sampling: a departure from the spec's procedure (temperature 0, ...)``."""
    if sampling.procedure is None:  # a result written before the procedure was recorded
        return f"sampling: {sent_text(sampling)} sent (procedure not recorded)"
    if sampling.procedure != "as served":
        return f"sampling: {sampling.procedure} ({sent_text(sampling)} sent)"
    served = served_text(sampling)
    if short or served is None:
        return "sampling: as served (the spec's procedure)"
    return f"sampling: as served (the spec's procedure); in force: {served}"
