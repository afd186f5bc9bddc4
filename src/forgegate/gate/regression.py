"""The regression rule of ``forgegate compare`` (and of graduation's comparison with the last graduate).

``lineage/compare.py`` measures (paired bootstrap, McNemar, Holm, new failure modes) and hands over
what got worse, which answers could not be paired and why; this rule writes the verdict:

* every regression (a category or the overall score worse with a 95% CI excluding 0, or a failure
  mode absent before and present now) is a FAIL reason; a FAIL holds whatever the missing answers
  would have said, so it beats INCOMPLETE (``core.verdict.worst_gate``);
* errored or unpaired answers, or no pair at all, are INCOMPLETE reasons: a missing answer is never a pass;
* no regression on at least one pair is the PASS reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from forgegate.core.verdict import Gate, Number, Reason, Verdict


class Worse(Protocol):
    """What the rule reads of one regression (``lineage.compare.Regression`` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def detail(self) -> str: ...
    @property
    def numbers(self) -> Mapping[str, Number]: ...


def regression_verdict(regressions: Sequence[Worse], *, errored: Sequence[str], unpaired_old: Sequence[str],
                       unpaired_new: Sequence[str], old_label: str, new_label: str, seed_hint: str,
                       n_pairs: int, improved: Sequence[str]) -> Verdict:
    """The comparison's verdict and every reason, from what the paired comparison measured."""
    reasons: list[Reason] = [Reason("regression:" + r.name, Gate.FAIL, r.detail, r.numbers) for r in regressions]
    if errored:
        reasons.append(Reason("errored-items", Gate.INCOMPLETE,
                              f"{len(errored)} paired item(s) errored and could not be compared: "
                              + ", ".join(errored[:5]) + (" ..." if len(errored) > 5 else "")))
    if unpaired_old or unpaired_new:
        reasons.append(Reason("unpaired-items", Gate.INCOMPLETE,
                              f"{len(unpaired_old)} item(s) only in {old_label}, {len(unpaired_new)} only in "
                              f"{new_label}: " + ", ".join([*unpaired_old, *unpaired_new][:5]) + seed_hint))
    if not n_pairs:
        reasons.append(Reason("no-pairs", Gate.INCOMPLETE, "no item was scored in both runs"))
    if not regressions and n_pairs:
        reasons.append(Reason("no-regression", Gate.PASS,
                              f"no category or overall difference is negative with a 95% CI excluding 0, "
                              f"and no new failure mode; improved: {', '.join(improved) or 'none'}"))
    return Verdict.combine(reasons)
