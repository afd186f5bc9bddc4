"""A plan's pre-flight record: the leak audit it names (``[leak_audit]``) and its tiebreak between tied candidates.

lv-hemingway v2 § 6: the beat-contamination audit "is on the record before the gate runs, not discovered
afterwards"; § 2: the tied checkpoints are resolved by "the axes that resolve (identical-to-control memorisation,
tighter seed variance)", then the epoch-1 prior "worth testing rather than assuming". Both are declared here, so
``plan lock`` freezes them with everything else. Only their shape is checked here; the cross-references (arm names,
instruments) are ``check_preflight``'s, called by ``plan.load``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import Field, field_validator, model_validator

from forgegate.core.declared import TIEBREAK_AXES, TiebreakAxis
from forgegate.core.globs import glob_problem
from forgegate.errors import InputError
from forgegate.userfile import RngSeed, UserFileModel

if TYPE_CHECKING:
    from forgegate.plan.plan_file import Plan

AXIS_INSTRUMENT: dict[TiebreakAxis, str] = {"memorization": "memorization", "seed_spread": "voice"}
"""The instrument each tiebreak axis reads: memorisation's excess over the control, the voice Delta's seed spread."""
assert set(AXIS_INSTRUMENT) == set(TIEBREAK_AXES), "every tiebreak axis names its instrument"


class LeakAudit(UserFileModel):
    """``[leak_audit]``: the ``forgegate audit leak`` run on the record, either its ``--json`` result (hashed into the
    lock) or its inputs (``plan lock`` runs it). A lock is refused when it found a leak or a control failed."""

    result: str | None = None
    """A ``forgegate audit leak --json`` result file, relative to the plan."""
    source: str | None = None
    """The unrenamed source tree (folder of .txt), as ``--source``."""
    renamed: tuple[str, ...] = ()
    """The renamed copies, as ``--renamed``."""
    pairs: tuple[str, ...] = ()
    """The built pairs JSONL files, as ``--pairs``."""
    map: str | None = None
    """Optional rename map, as ``--map``."""
    clean_splits: tuple[str, ...] | None = None
    """The splits that must be clean for the plan to lock (e.g. ["val"], where the fixture is drawn from); a leak
    elsewhere stays on the record. Absent: any leak refuses the lock."""
    planted: int = Field(default=6, ge=1)
    """Positive-control names planted in the audit's copy, as ``--planted`` (each must be found)."""
    seed: RngSeed = 0
    """Seed of the planted control, as ``--seed`` (a numpy seed: 0 or more, checked here, not at the audit)."""
    glob: str = "**/*.txt"
    """Which files of ``source`` and ``renamed`` the audit reads, as ``--glob``."""

    @field_validator("glob")
    @classmethod
    def _inside_source(cls, glob: str) -> str:
        problem = glob_problem(glob)
        if problem is not None:
            raise ValueError(problem)
        return glob

    @model_validator(mode="after")
    def _result_or_inputs(self) -> LeakAudit:
        if self.clean_splits is not None and not self.clean_splits:
            raise ValueError("clean_splits names no split: leave it out (every split must be clean) or name one")
        inputs = self.source is not None or bool(self.renamed) or bool(self.pairs) or self.map is not None
        if self.result is not None and inputs:
            raise ValueError("name either 'result' (a forgegate audit leak --json file) or the audit's inputs "
                             "('source', 'renamed', 'pairs'), not both")
        if self.result is None and not (self.source is not None and self.renamed and self.pairs):
            raise ValueError("name 'result' (a forgegate audit leak --json file), or 'source', 'renamed' and "
                             "'pairs' for plan lock to run the audit")
        return self


class Tiebreak(UserFileModel):
    """``[tiebreak]``: how the ship candidate and the tied candidates (the arms with those roles) are separated when
    more than one passes. Each axis in ``axes`` (in the declared order) keeps the candidates it prefers; the axes
    leaving them level is HOLD, the operator's call, whatever the ``prior`` (``gate.ship``)."""

    axes: tuple[TiebreakAxis, ...] = Field(min_length=1)
    """The resolving axes, in order: 'memorization' (closest to the control's, identical best), 'seed_spread'
    (the voice Delta's smaller variance over the seeds)."""
    min_variance_ratio: float | None = Field(default=None, gt=1.0)
    """'seed_spread' resolves only when every other candidate's seed variance is at least this many times the
    smallest. The spec gives no number, so the plan must state one when it names the axis (no hidden default)."""
    prior: str | None = None
    """The candidate the prior favours (e.g. the epoch-1 checkpoint): a hypothesis under test, reported as confirmed
    or not; it never decides a tie the axes leave (that is HOLD)."""

    @model_validator(mode="after")
    def _axes_once(self) -> Tiebreak:
        if len(set(self.axes)) != len(self.axes):
            raise ValueError("an axis is named twice in 'axes'")
        if "seed_spread" in self.axes and self.min_variance_ratio is None:
            raise ValueError("the 'seed_spread' axis needs 'min_variance_ratio' (how many times larger every other "
                             "seed variance must be for it to resolve): the spec gives no number, so the plan "
                             "states it, e.g. min_variance_ratio = 2.0")
        return self


def check_ship_roles(plan: Plan, err: Callable[..., InputError]) -> None:
    """The spec's roles go with a ``[tiebreak]``: one ship candidate, at least one tied candidate, each compared."""
    ship = [i for i, a in enumerate(plan.arms) if a.role == "ship_candidate"]
    tied = [i for i, a in enumerate(plan.arms) if a.role == "tied_candidate"]
    if plan.tiebreak is None:
        if ship or tied:
            first = (ship + tied)[0]
            raise err(("arms", first, "role"), f"role '{plan.arms[first].role}' goes with a [tiebreak]: the ship "
                      "decision separates the ship candidate from the tied candidates",
                      hint="add [tiebreak] (axes, min_variance_ratio, prior), or use role = \"candidate\"")
        return
    if len(ship) != 1:
        raise err(("arms", ship[1], "role") if ship else ("tiebreak",),
                  f"a [tiebreak] needs exactly one arm with role 'ship_candidate', found {len(ship)}",
                  hint="the ship candidate is the checkpoint the plan means to ship (the curve's minimum)")
    plain = [i for i, a in enumerate(plan.arms) if a.role == "candidate"]
    if plain:
        raise err(("arms", plain[0], "role"), f"arm '{plan.arms[plain[0]].name}' has role 'candidate' in a plan "
                  "with a ship decision: name it 'ship_candidate' or 'tied_candidate'")
    if not tied:
        raise err(("tiebreak",), "a [tiebreak] needs at least one arm with role 'tied_candidate' (a checkpoint the "
                  "loss curve cannot separate from the ship candidate)")


def check_tiebreak(tiebreak: Tiebreak, tied: tuple[str, ...], comparisons: tuple[tuple[str, str], ...],
                   declared: tuple[str, ...], err: Callable[..., InputError]) -> None:
    """Cross-references of ``[tiebreak]``: the ``tied`` arms (ship candidate first), (control, candidate)
    ``comparisons``, the ``declared`` instruments."""
    where = ("tiebreak",)
    controls: dict[str, list[str]] = {}
    for control, candidate in comparisons:
        controls.setdefault(candidate, []).append(control)
    for name in tied:
        if name not in controls:
            raise err(where, f"'{name}' is not the candidate of any [[comparisons]]",
                      hint=f"compared candidates: {', '.join(controls) or 'none'}")
        if len(controls[name]) > 1:
            raise err(where, f"'{name}' is compared with {len(controls[name])} controls "
                      f"({', '.join(controls[name])}): a tiebreak ranks candidates against one control")
    shared = {controls[name][0] for name in tied}
    if len(shared) > 1:
        raise err(where, f"the tied candidates are compared with different controls ({', '.join(sorted(shared))}): "
                  "they can only be ranked against the same one")
    for index, axis in enumerate(tiebreak.axes):
        if AXIS_INSTRUMENT[axis] not in declared:
            raise err((*where, "axes", index), f"axis '{axis}' reads the {AXIS_INSTRUMENT[axis]} instrument, "
                      "which is not declared")
    if tiebreak.prior is not None and tiebreak.prior not in tied:
        raise err((*where, "prior"), f"prior '{tiebreak.prior}' is not the ship candidate or a tied candidate",
                  hint=f"tied: {', '.join(tied)}")
