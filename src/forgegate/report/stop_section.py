"""LX-STOP's termination distribution as report data: token bins, finish reasons, the STOP_FAILURE line.

Read from the result's ``stop_distribution`` (computed by forgegate.checks.stop_distribution); nothing
is re-scored. The terminal, Markdown and HTML reports all show :func:`stop_table` and :func:`stop_line`;
the HTML adds the histogram.
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.results.eval import StopDistributionResult

BIN_WIDTH = 8


@dataclass(frozen=True)
class StopView:
    line: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    finishes: str
    chart_svg: str


def token_bins(dist: StopDistributionResult) -> list[tuple[str, int]]:
    """Answers per token range: ``0-7``, ``8-15`` ... below the cap, then ``48 (cap)`` for those that ran to it."""
    cap = max((a.max_tokens for a in dist.answers), default=0)
    answered = [a for a in dist.answers if a.tokens is not None and a.finish not in ("error", "missing")]
    bins: list[tuple[str, int]] = []
    for low in range(0, cap, BIN_WIDTH):
        high = min(low + BIN_WIDTH, cap) - 1
        bins.append((f"{low}-{high}", sum(1 for a in answered if not a.at_cap and low <= (a.tokens or 0) <= high)))
    bins.append((f"{cap} (cap)", sum(1 for a in answered if a.at_cap)))
    return bins


def stop_line(dist: StopDistributionResult) -> str:
    """The STOP_FAILURE verdict in words, with the spec's signature."""
    n = dist.answered
    if dist.stop_failure is None:
        return (f"STOP_FAILURE undecided: {dist.missing} {dist.category} answer(s) missing "
                f"({dist.at_cap} of {n} answered ran to their cap)")
    if dist.stop_failure:
        return (f"STOP_FAILURE: every {dist.category} response ran to its cap ({dist.at_cap}/{n}); "
                "GLOSS v2's signature: every response runs to exactly max_tokens")
    return (f"STOP_FAILURE signature absent: {n - dist.at_cap} of {n} {dist.category} responses stopped before "
            "their cap (an item that did not stop in time still fails, and is labelled, on its own)")


def finishes_text(dist: StopDistributionResult) -> str:
    return ", ".join(f"{reason} {count}" for reason, count in dist.finishes.items()) or "none"


def stop_table(dist: StopDistributionResult) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """``(header, rows)``: answers per token range."""
    return ("tokens", "answers"), tuple((label, str(count)) for label, count in token_bins(dist))


def stop_view(dist: StopDistributionResult) -> StopView:
    """The HTML section's data, histogram included (matplotlib loads here, not for the text reports)."""
    from forgegate.report.plots import histogram_chart

    bins = token_bins(dist)
    header, rows = stop_table(dist)
    chart = histogram_chart(bins, xlabel="tokens used", title=f"{dist.category}: tokens per answer",
                            marked=[bins[-1][0]])
    return StopView(stop_line(dist), header, rows, finishes_text(dist), chart)
