"""Every chart of the HTML report, drawn with matplotlib as inline SVG text (deterministic bytes).

No pyplot and no global matplotlib state: each chart is a ``Figure`` saved through the
SVG backend inside an ``rc_context`` that fixes the id salt and drops the date, so the
same numbers always give the same SVG. Text stays text (``svg.fonttype = none``), which
matplotlib writes XML-escaped: a category or arm name cannot inject markup.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

from forgegate.core.verdict import FAILING_HEX, Gate

GATE_COLOURS: dict[str, str] = {gate.value: gate.hex_colour for gate in Gate}
NEUTRAL = "#546e7a"
_RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "forgegate-report",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)


@dataclass(frozen=True)
class Bar:
    """One category bar: its score (None when answers are missing) and its gate word."""

    label: str
    score: float | None
    gate: str


@dataclass(frozen=True)
class RefLine:
    """A horizontal reference line drawn across a chart, with its legend text."""

    y: float
    label: str
    colour: str = "#37474f"
    style: str = "--"


def to_svg(fig: Figure) -> str:
    """The figure as an ``<svg>`` element (no XML prologue or doctype), identical for identical input."""
    buffer = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "forgegate"}, bbox_inches="tight")
    return _PROLOGUE.sub("", buffer.getvalue()).strip()


def _figure(width: float, height: float) -> Figure:
    with matplotlib.rc_context(_RC):
        return Figure(figsize=(width, height), dpi=96, layout="constrained")


def category_chart(bars: Sequence[Bar], *, floor: float | None, sigma_total: float | None,
                   sigma_min: float | None, show_sigma: bool = True) -> str:
    """Per-category scores coloured by gate, the category floor drawn, σ_total as its own bar (when it applies)."""
    with matplotlib.rc_context(_RC):
        fig = _figure(max(5.0, 0.75 * (len(bars) + 2)), 3.4)
        ax = fig.add_subplot()
        labels = [b.label for b in bars]
        heights = [b.score if b.score is not None else 0.0 for b in bars]
        colours = [GATE_COLOURS.get(b.gate, NEUTRAL) for b in bars]
        drawn = ax.bar(range(len(bars)), heights, color=colours, width=0.7)
        for rect, bar, colour in zip(drawn, bars, colours, strict=True):
            text = "n/a" if bar.score is None else f"{bar.score:.2f}"
            ax.annotate(text, (rect.get_x() + rect.get_width() / 2, rect.get_height()), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8)
            if bar.score is None:
                rect.set_hatch("//")
                rect.set_edgecolor(colour)
                rect.set_facecolor("none")
        sigma_x = len(bars) + 0.5
        ticks, tick_labels = [*range(len(bars))], list(labels)
        if show_sigma:
            ticks.append(sigma_x)
            tick_labels.append("σ_total")
            _sigma_bar(ax, sigma_x, sigma_total, sigma_min)
        if floor is not None:
            ax.axhline(floor, color="#37474f", linestyle="--", linewidth=1, label=f"category floor {floor:.2f}")
        ax.set_xticks(ticks, tick_labels, rotation=30, ha="right")
        ax.set_ylim(0, 1.08)
        ax.set_ylabel("score")
        if floor is not None or (show_sigma and sigma_min is not None):
            ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
        return to_svg(fig)


def _sigma_bar(ax: Axes, x: float, sigma_total: float | None, sigma_min: float | None) -> None:
    """σ_total beside the categories (hatched and labelled n/a when answers are missing), its minimum as a tick."""
    ax.bar([x], [sigma_total or 0.0], color="#1565c0", width=0.7, hatch=None if sigma_total is not None else "//")
    ax.annotate("n/a" if sigma_total is None else f"{sigma_total:.2f}", (x, sigma_total or 0.0), xytext=(0, 2),
                textcoords="offset points", ha="center", va="bottom", fontsize=8)
    if sigma_min is not None:
        ax.hlines(sigma_min, x - 0.45, x + 0.45, colors="#0d47a1", linestyles=":",
                  label=f"σ_total minimum {sigma_min:.2f}")


def strip_chart(values: Mapping[str, Mapping[str, float]], lines: Sequence[RefLine], *, ylabel: str,
                title: str, highlight: Sequence[str] = (), rate: bool = False) -> str:
    """Per-arm, per-seed points (evenly spread, no random jitter), each arm's mean as a bar, reference lines.

    ``rate``: the values are proportions, so the axis starts at 0.
    """
    with matplotlib.rc_context(_RC):
        arms = list(values)
        fig = _figure(max(6.0, 2.0 * len(arms) + 2.0), 3.6 + 0.18 * len(lines))
        ax = fig.add_subplot()
        for x, arm in enumerate(arms):
            seeds = list(values[arm])
            ys = [values[arm][s] for s in seeds]
            width = 0.3 if len(seeds) > 1 else 0.0
            xs = [x - width / 2 + (width * i / (len(seeds) - 1) if len(seeds) > 1 else 0) for i in range(len(seeds))]
            colour = "#1565c0" if arm in highlight else NEUTRAL
            ax.scatter(xs, ys, s=30, color=colour, zorder=3, label=None)
            for xi, yi, seed in zip(xs, ys, seeds, strict=True):
                ax.annotate(str(seed), (xi, yi), xytext=(4, 0), textcoords="offset points", fontsize=6, color="#78909c",
                            va="center")
            if ys:
                ax.hlines(sum(ys) / len(ys), x - 0.28, x + 0.28, colors=colour, linewidth=2, zorder=2)
        for line in lines:
            ax.axhline(line.y, color=line.colour, linestyle=line.style, linewidth=1, label=line.label)
        ax.set_xticks(range(len(arms)), arms)
        ax.set_xlim(-0.6, len(arms) - 0.4)
        if rate:
            top = max(0.05, ax.get_ylim()[1])
            ax.set_ylim(-0.04 * top, top)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10, loc="left")
        if lines:
            fig.legend(loc="outside lower center", fontsize=8, frameon=False)
        return to_svg(fig)


def cluster_mass_chart(mass: Mapping[str, Mapping[str, float]], clusters: Sequence[str], *, lost: Sequence[str],
                       title: str) -> str:
    """Probability mass of each cluster under each condition (grouped bars); lost clusters marked."""
    with matplotlib.rc_context(_RC):
        conditions = list(mass)
        fig = _figure(max(5.0, 0.55 * len(clusters) * max(1, len(conditions)) + 2.5), 3.2)
        ax = fig.add_subplot()
        width = 0.8 / max(1, len(conditions))
        palette = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f"]
        for x, cluster in enumerate(clusters):
            if cluster in lost:
                ax.axvspan(x - 0.45, x + 0.45, color="#ffcdd2", zorder=0)
        for i, condition in enumerate(conditions):
            xs = [x - 0.4 + width * (i + 0.5) for x in range(len(clusters))]
            ys = [mass[condition].get(c, 0.0) for c in clusters]
            ax.bar(xs, ys, width=width, color=palette[i % len(palette)], label=condition, zorder=2)
        labels = [f"{c}\n(lost)" if c in lost else c for c in clusters]
        ax.set_xticks(range(len(clusters)), labels)
        for tick, cluster in zip(ax.get_xticklabels(), clusters, strict=True):
            if cluster in lost:
                tick.set_color("#b71c1c")
                tick.set_fontweight("bold")
        ax.set_ylabel("probability mass")
        ax.set_ylim(0, 1.0)
        ax.set_title(title, fontsize=10, loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False, title="condition")
        return to_svg(fig)


def histogram_chart(bins: Sequence[tuple[str, int]], *, xlabel: str, title: str, marked: Sequence[str] = ()) -> str:
    """Counts per bin as bars (bins named in ``marked`` drawn in the FAIL colour), each count written on its bar."""
    with matplotlib.rc_context(_RC):
        fig = _figure(max(4.5, 0.6 * len(bins) + 1.5), 2.8)
        ax = fig.add_subplot()
        colours = [FAILING_HEX if label in marked else NEUTRAL for label, _ in bins]
        drawn = ax.bar(range(len(bins)), [count for _, count in bins], color=colours, width=0.8)
        for rect, (_, count) in zip(drawn, bins, strict=True):
            ax.annotate(str(count), (rect.get_x() + rect.get_width() / 2, rect.get_height()), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(bins)), [label for label, _ in bins], rotation=30, ha="right")
        ax.set_ylim(0, max([count for _, count in bins] + [1]) * 1.15)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("answers")
        ax.set_title(title, fontsize=10, loc="left")
        return to_svg(fig)
