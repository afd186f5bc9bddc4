"""The audit rule: a training-data audit's controls and finding -> PASS / FAIL / INVALID.

Every ``forgegate audit`` command runs its controls each time. A failed control (or none run)
means the instrument may be blind, so its findings are not a result: INVALID. Otherwise a
finding (a leak, looping rows, a format mismatch, contamination) is FAIL and a clean audit PASS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from forgegate.core.audit_finding import AuditFinding
from forgegate.core.verdict import Gate, Reason, Verdict

_FOUND = {
    AuditFinding.LEAK: "names the rename removed appear in the built pairs",
    AuditFinding.LOOPS: "corpus rows teach looping",
    AuditFinding.MISMATCH: "battery prompts are shaped unlike the training prompts",
    AuditFinding.CONTAMINATED: "battery items appear in the training corpus",
}


class Control(Protocol):
    """What the rule reads of one control run (``audit.outcome.Control`` is one): structural, so ``gate/``
    imports no instrument."""

    @property
    def name(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def detail(self) -> str: ...


def audit_verdict(controls: Sequence[Control], finding: AuditFinding) -> Verdict:
    """One reason per control (INVALID when it failed), one for the finding (FAIL unless CLEAN)."""
    reasons = [Reason(f"control {c.name}", Gate.PASS if c.passed else Gate.INVALID, c.detail) for c in controls]
    if not controls:
        reasons.append(Reason("controls ran", Gate.INVALID, "no control ran: the audit may be blind"))
    if finding is AuditFinding.CLEAN:
        reasons.append(Reason("nothing found", Gate.PASS, "the audit found nothing"))
    else:
        reasons.append(Reason("nothing found", Gate.FAIL, f"{finding.value}: {_FOUND[finding]}"))
    return Verdict.combine(reasons)



def lock_audit_reason(gate: Gate, finding: str, origin: str, leaking: Mapping[str, tuple[int, int]],
                      clean_splits: Sequence[str] | None) -> Reason:
    """Whether a plan may lock on its leak audit (lv-hemingway v2 § 6, "on the record before the gate runs").

    A failed control (INVALID: the audit may be blind) always refuses. Without ``clean_splits`` any leak (FAIL)
    refuses; with them (pre-registered in the plan: the split the fixture is drawn from) only a leak in one of
    those refuses, a split the audit did not see is INCOMPLETE (a missing answer is not a pass), and a leak in
    another split is PASS and stays on the record, as the spec's "train 70 of 7,094" did beside a clean val split.
    ``leaking`` is split -> (instruction and response halves naming a removed name, pairs).
    """
    where = f"leak audit ({origin})"
    counts = "; ".join(f"{split}: {n} leaking halves in {total} pairs"
                       for split, (n, total) in sorted(leaking.items())) or "no split"
    if gate is Gate.INVALID:
        return Reason(where, Gate.INVALID, f"a control failed (finding {finding}): the audit may be blind, so its "
                      "'nothing found' is no evidence; the plan cannot lock on it")
    if clean_splits is None:
        if gate is Gate.PASS:
            return Reason(where, Gate.PASS, f"finding {finding} ({counts}), controls green: on the record")
        return Reason(where, gate, f"finding {finding} ({counts}): the plan cannot lock until the data is fixed "
                      "and the audit re-run (or the plan names the splits that must be clean, before locking)")
    unseen = [split for split in clean_splits if split not in leaking]
    if unseen:
        return Reason(where, Gate.INCOMPLETE, f"split(s) {', '.join(unseen)} must be clean but the audit did not "
                      f"see them ({counts}): give it those pairs")
    dirty = [split for split in clean_splits if leaking[split][0] > 0]
    if dirty:
        return Reason(where, Gate.FAIL, f"leak in {', '.join(dirty)}, which must be clean ({counts}): the plan "
                      "cannot lock until the data is fixed and the audit re-run")
    return Reason(where, Gate.PASS, f"{', '.join(clean_splits)} clean, controls green ({counts}; finding {finding}, "
                  "on the record)")


FIXTURE_AUDIT_RULE = "leak audit of the fixture's pairs"


def fixture_split_reason(split: str, leaking: int, pairs: int) -> Reason | None:
    """FAIL when the split the fixture was drawn from leaks (lv-hemingway: the clean split "is why the gate runs
    at all"); None when it is clean."""
    if not leaking:
        return None
    return Reason(FIXTURE_AUDIT_RULE, Gate.FAIL, f"the fixture's split '{split}' is not clean ({leaking} of {pairs} "
                  "pairs name a removed character): the eval beats are confounded, and the clean split is why the "
                  "gate runs at all")
