"""Paired regression check between an old run and a new run on the same battery and gate config."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from forgegate.checks.signatures import present_names
from forgegate.core.verdict import Gate, Number, Verdict
from forgegate.errors import ForgegateError
from forgegate.gate.regression import regression_verdict
from forgegate.lineage.run_scores import ResultItem, RunScores
from forgegate.lineage.stats import (
    McNemarResult,
    PairedDifference,
    holm_adjust,
    mcnemar_exact,
    paired_bootstrap_difference,
)
from forgegate.results import SCHEMA_VERSION, ComparisonResult, reason_models
from forgegate.results.comparison import (
    BootstrapRef,
    CategoryComparisonModel,
    McNemarModel,
    RegressionModel,
    RunSide,
    Unpaired,
)

SCORE_TEST = ("paired cluster bootstrap of the (item, seed) score differences over items; McNemar's exact test on "
              "the pass/fail pairs, Holm across categories")
RATE_TEST = ("paired bootstrap of the per-item pass-rate differences over items (both runs have K > 1 samples per "
             "item: each item's passes / K); no McNemar, which needs one pass or fail per pair")
"""The two paired tests ``compare`` and ``lineage`` use: rates when both runs have K > 1 samples."""
Call = Literal["regressed", "improved", "unchanged", "insufficient"]
OVERALL = "overall"
Key = tuple[str, int | None]


class NotComparableError(ForgegateError):
    """Two runs (or lineage records) on different batteries or gate configs: no paired comparison."""

    def __init__(self, old_label: str, new_label: str, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(
            f"not comparable: {old_label} and {new_label}: " + "; ".join(problems)
            + " (a paired comparison needs both runs on the same battery and the same gate config)"
        )


def comparability_problems(
    old_battery: str, old_gate_config: str, new_battery: str, new_gate_config: str
) -> list[str]:
    """Why two runs cannot be paired (empty when they can): battery or gate-config hash differs."""
    problems = []
    if old_battery != new_battery:
        problems.append(f"battery sha256 differs ({old_battery[:12]} vs {new_battery[:12]})")
    if old_gate_config != new_gate_config:
        problems.append(f"gate config sha256 differs ({old_gate_config[:12]} vs {new_gate_config[:12]})")
    return problems


def key_label(key: Key) -> str:
    return f"{key[0]}#seed={key[1]}"


@dataclass(frozen=True)
class CategoryComparison:
    """One category (or ``overall``): both scores on the paired samples, the difference, the tests."""

    category: str
    score_old: float | None
    score_new: float | None
    difference: PairedDifference
    mcnemar: McNemarResult | None
    p_holm: float | None
    call: Call
    n_errored: int

    def model(self) -> CategoryComparisonModel:
        """This category's block of the ``ComparisonResult`` (the one place its fields are filled)."""
        d, mc = self.difference, self.mcnemar
        return CategoryComparisonModel(
            category=self.category, score_old=self.score_old, score_new=self.score_new,
            difference=None if d.n_pairs == 0 else d.difference,
            ci95=None if d.ci_low is None or d.ci_high is None else (d.ci_low, d.ci_high),
            ci_method=d.method, n_items=d.n_clusters, n_pairs=d.n_pairs, n_errored_pairs=self.n_errored,
            mcnemar=None if mc is None else McNemarModel(both_pass=mc.both_pass, lost=mc.lost, gained=mc.gained,
                                                         both_fail=mc.both_fail, p=mc.pvalue),
            p_holm=self.p_holm, call=self.call)


@dataclass(frozen=True)
class Regression:
    """Something that got worse: a category, the overall score, or a new failure mode."""

    name: str
    kind: Literal["category", "overall", "failure_mode"]
    detail: str
    numbers: Mapping[str, Number] = field(default_factory=dict)
    """What the call rests on (difference, CI, paired counts), carried into the reason."""


@dataclass(frozen=True)
class RunComparison:
    old_label: str
    new_label: str
    battery_sha256: str
    gate_config: str
    categories: tuple[CategoryComparison, ...]
    overall: CategoryComparison
    new_failure_modes: dict[str, tuple[str, ...]]
    resolved_failure_modes: tuple[str, ...]
    unpaired_old: tuple[str, ...]
    unpaired_new: tuple[str, ...]
    errored: tuple[str, ...]
    regressions: tuple[Regression, ...]
    verdict: Verdict
    seed: int
    n_resamples: int
    mcnemar_clustered: bool
    runs: dict[Literal["old", "new"], RunSide]
    """Each side's label, run id, model, gate and sigma_total."""
    paired_test: str = SCORE_TEST
    """Which paired test decided: ``SCORE_TEST``, or ``RATE_TEST`` when both runs have K > 1 samples per item."""

    @property
    def gate(self) -> Gate:
        return self.verdict.gate

    def model(self) -> ComparisonResult:
        """The ``ComparisonResult`` (``forgegate compare --json``): the one place its fields are filled."""
        return ComparisonResult(
            kind="comparison", schema_version=SCHEMA_VERSION, gate=self.verdict.gate,
            reasons=reason_models(self.verdict), old=self.old_label, new=self.new_label,
            battery_sha256=self.battery_sha256, gate_config=self.gate_config,
            bootstrap=BootstrapRef(seed=self.seed, n_resamples=self.n_resamples, unit="item", confidence_level=0.95),
            mcnemar_clustered=self.mcnemar_clustered,
            categories=[c.model() for c in self.categories], overall=self.overall.model(),
            regressions=[RegressionModel(name=r.name, kind=r.kind, detail=r.detail) for r in self.regressions],
            new_failure_modes={k: list(v) for k, v in self.new_failure_modes.items()},
            resolved_failure_modes=list(self.resolved_failure_modes),
            unpaired=Unpaired(old_only=list(self.unpaired_old), new_only=list(self.unpaired_new)),
            errored_pairs=list(self.errored), runs=self.runs, paired_test=self.paired_test)


def _side(label: str, run: RunScores) -> RunSide:
    return RunSide(label=label, run_id=run.run_id, model=run.model, gate=run.gate, sigma_total=run.sigma_total)


def _call(diff: PairedDifference) -> Call:
    if diff.ci_low is None or diff.ci_high is None:
        return "insufficient"
    if diff.difference < 0 and diff.ci_high < 0:
        return "regressed"
    if diff.difference > 0 and diff.ci_low > 0:
        return "improved"
    return "unchanged"


def _compare_pairs(
    category: str, pairs: Sequence[tuple[ResultItem, ResultItem]], n_errored: int, seed: int, n_resamples: int
) -> CategoryComparison:
    """Scores, cluster-bootstrap difference and McNemar on the non-errored pairs of one category."""
    by_item: dict[str, list[float]] = defaultdict(list)
    old_scores: list[float] = []
    new_scores: list[float] = []
    passfail: list[tuple[bool, bool]] = []
    for old, new in pairs:
        assert old.score is not None and new.score is not None
        by_item[old.id].append(new.score - old.score)
        old_scores.append(old.score)
        new_scores.append(new.score)
        if old.passed is not None and new.passed is not None:
            passfail.append((old.passed, new.passed))
    diffs = [sum(v) / len(v) for v in by_item.values()]
    sizes = [len(v) for v in by_item.values()]
    difference = paired_bootstrap_difference(diffs, sizes, seed=seed, n_resamples=n_resamples)
    return CategoryComparison(
        category=category,
        score_old=sum(old_scores) / len(old_scores) if old_scores else None,
        score_new=sum(new_scores) / len(new_scores) if new_scores else None,
        difference=difference,
        mcnemar=mcnemar_exact(passfail),
        p_holm=None,
        call=_call(difference),
        n_errored=n_errored,
    )


def _describe(c: CategoryComparison) -> str:
    d = c.difference
    ci = "no CI" if d.ci_low is None else f"95% CI [{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
    mc = "" if c.mcnemar is None else f", McNemar p={c.mcnemar.pvalue:.3g}"
    holm = "" if c.p_holm is None else f" (Holm {c.p_holm:.3g})"
    return (f"{c.score_old:.3f} -> {c.score_new:.3f}, difference {d.difference:+.3f} {ci} "
            f"over {d.n_clusters} items / {d.n_pairs} pairs{mc}{holm}")


def _numbers(c: CategoryComparison) -> dict[str, Number]:
    d = c.difference
    return {"score_old": c.score_old, "score_new": c.score_new, "difference": d.difference, "ci_low": d.ci_low,
            "ci_high": d.ci_high, "n_items": d.n_clusters, "n_pairs": d.n_pairs, "p_holm": c.p_holm}


def _seed_hint(old: RunScores, new: RunScores) -> str:
    """Say so when the same items ran under different seeds: pairs are (item, seed)."""
    old_seeds, new_seeds = {i.seed for i in old.items}, {i.seed for i in new.items}
    if old_seeds == new_seeds or not {i.id for i in old.items} & {i.id for i in new.items}:
        return ""
    return (f" (the runs used different seeds: {sorted(old_seeds, key=str)} vs {sorted(new_seeds, key=str)}; "
            "items pair by (id, seed): run both with the same --seed)")


def _ordered_categories(items: Iterable[ResultItem]) -> list[str]:
    return list(dict.fromkeys(item.category for item in items))


def compare_runs(
    old: RunScores,
    new: RunScores,
    *,
    seed: int,
    n_resamples: int = 9999,
    old_label: str = "old",
    new_label: str = "new",
) -> RunComparison:
    """Pair items by (id, seed) and test, per category and overall, whether ``new`` regressed; when both runs
    have K > 1 samples per item, pair items by id on their pass rates over the samples (``RATE_TEST``).

    Raises NotComparableError when battery or gate config differ. A category regresses when
    its difference is negative and the 95% CI excludes 0; ``overall`` regresses on the same
    rule when no category did (a decline spread thin); a failure mode present in ``new`` and
    absent in ``old`` is a regression whatever the statistics say.
    """
    problems = comparability_problems(old.battery.sha256, old.gate_config.sha256,
                                      new.battery.sha256, new.gate_config.sha256)
    if problems:
        raise NotComparableError(old_label, new_label, problems)
    rates = old.pass_rates is not None and new.pass_rates is not None
    old_items = {item.key: item for item in (old.rate_items() if rates else old.items)}
    new_items = {item.key: item for item in (new.rate_items() if rates else new.items)}
    paired_keys = [k for k in old_items if k in new_items]
    unpaired_old = tuple(key_label(k) for k in old_items if k not in new_items)
    unpaired_new = tuple(key_label(k) for k in new_items if k not in old_items)

    per_category: dict[str, list[tuple[ResultItem, ResultItem]]] = defaultdict(list)
    errored_per_category: dict[str, int] = defaultdict(int)
    errored: list[str] = []
    for key in paired_keys:
        o, n = old_items[key], new_items[key]
        if o.category != n.category:
            raise NotComparableError(old_label, new_label,
                                     [f"item {key_label(key)} is in {o.category} in one run, {n.category} "
                                      "in the other"])
        if o.errored or n.errored:
            side = "both" if o.errored and n.errored else (old_label if o.errored else new_label)
            errored.append(f"{key_label(key)} ({side})")
            errored_per_category[o.category] += 1
        else:
            per_category[o.category].append((o, n))

    categories = _ordered_categories([*old.items, *new.items])
    compared = [
        _compare_pairs(cat, per_category.get(cat, []), errored_per_category.get(cat, 0), seed, n_resamples)
        for cat in categories
    ]
    tested = [(i, c.mcnemar.pvalue) for i, c in enumerate(compared) if c.mcnemar is not None]
    for (i, _), p in zip(tested, holm_adjust([p for _, p in tested]), strict=True):
        c = compared[i]
        compared[i] = CategoryComparison(c.category, c.score_old, c.score_new, c.difference, c.mcnemar,
                                         p, c.call, c.n_errored)
    all_pairs = [pair for cat in categories for pair in per_category.get(cat, [])]
    overall = _compare_pairs(OVERALL, all_pairs, len(errored), seed, n_resamples)

    old_modes, new_modes = present_names(old.signatures), present_names(new.signatures)
    new_failure_modes = {
        mode: tuple(key_label(i.key) for i in new.items if mode in i.all_failure_modes)
        for mode in sorted(new_modes - old_modes)
    }
    regressions: list[Regression] = [
        Regression(c.category, "category", _describe(c), _numbers(c)) for c in compared if c.call == "regressed"
    ]
    if overall.call == "regressed" and not regressions:
        # A decline spread thin over categories, none of which regressed on its own.
        regressions.append(Regression(OVERALL, "overall", _describe(overall) + " (no single category "
                                      "regressed: a decline spread over categories)", _numbers(overall)))
    for mode, where in new_failure_modes.items():
        shown = ", ".join(where[:5]) + (" ..." if len(where) > 5 else "") if where else "run-level label"
        regressions.append(Regression(mode, "failure_mode",
                                      f"{mode} present in {new_label}, absent in {old_label} ({shown})"))

    verdict = regression_verdict(regressions, errored=errored, unpaired_old=unpaired_old,
                                 unpaired_new=unpaired_new, old_label=old_label, new_label=new_label,
                                 seed_hint=_seed_hint(old, new), n_pairs=len(all_pairs),
                                 improved=[c.category for c in compared if c.call == "improved"])
    return RunComparison(
        old_label=old_label,
        new_label=new_label,
        battery_sha256=new.battery.sha256,
        gate_config=f"{new.gate_config.name} ({new.gate_config.sha256[:12]})",
        categories=tuple(compared),
        overall=overall,
        new_failure_modes=new_failure_modes,
        resolved_failure_modes=tuple(sorted(old_modes - new_modes)),
        unpaired_old=unpaired_old,
        unpaired_new=unpaired_new,
        errored=tuple(errored),
        regressions=tuple(regressions),
        verdict=verdict,
        seed=seed,
        n_resamples=n_resamples,
        mcnemar_clustered=any(c.difference.n_pairs > c.difference.n_clusters for c in compared),
        runs={"old": _side(old_label, old), "new": _side(new_label, new)},
        paired_test=RATE_TEST if rates else SCORE_TEST,
    )
