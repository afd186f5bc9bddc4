"""Graduating a version: read the battery and live results, pair with the last graduated version, append one record.

The rules that decide (battery PASS, live PASS, a GLOSS v2 gate, no loop, no unaccepted regression)
are ``forgegate.gate.graduation``'s; this module gathers what they read and keeps the record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from forgegate.battery.resources import bundled_live_test_path
from forgegate.checks.signatures import signatures_present
from forgegate.core.modes import FailureMode
from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.core.version import __version__
from forgegate.errors import InputError, UsageError
from forgegate.gate.battery_trust import battery_trust_reason
from forgegate.gate.graduation import GateUsed, RegressionFound, graduation_rules
from forgegate.lineage.compare import RunComparison, comparability_problems, compare_runs
from forgegate.lineage.marks import stored_fails
from forgegate.lineage.record import Lineage, append_record, now_utc, read_lineage
from forgegate.lineage.run_scores import RunScores, parse_eval, parse_run_scores, result_stop
from forgegate.results import SCHEMA_VERSION, AcceptedRegression, EvalResult, LineageRecord, ReasonModel
from forgegate.results.base import reason_models
from forgegate.results.graduation import GraduationResult


@dataclass(frozen=True)
class GraduationDecision:
    verdict: Verdict
    """As ``forgegate.gate.graduation.graduation_rules`` decided it."""
    record: LineageRecord
    line: int
    """Line of the lineage file the record was appended at."""
    comparison: RunComparison | None
    warnings: tuple[str, ...]

    @property
    def gate(self) -> Gate:
        return self.verdict.gate

    @property
    def reasons(self) -> tuple[Reason, ...]:
        return self.verdict.reasons

    @property
    def graduated(self) -> bool:
        return self.record.graduated

    def model(self, battery: EvalResult, live: EvalResult | None) -> GraduationResult:
        """``forgegate graduate --json``: this decision with the battery and live results it read."""
        return GraduationResult(
            kind="graduation", schema_version=SCHEMA_VERSION, gate=self.verdict.gate,
            reasons=reason_models(self.verdict), version=self.record.version, graduated=self.graduated,
            lineage_line=self.line, compared_to=self.record.compared_to, regressions=self.record.regressions,
            accepted_regressions=self.record.accepted_regressions,
            comparison=None if self.comparison is None else self.comparison.model(), warnings=list(self.warnings),
            battery=battery, live=live)


def _parse_live(payload: EvalResult | dict[str, Any]) -> EvalResult:
    """The live test's result through the eval model; a battery eval handed in its place is refused."""
    live = parse_eval(payload, "live result")
    if live.kind != "live":
        raise InputError("live result", f"a GLOSS {live.kind} result, not a live test", field="kind",
                         hint="pass the JSON written by `forgegate live --json`")
    return live


def spec_live_sha256() -> str:
    """The sha256 of GLOSS v2's own 10 live tasks (the bundled live test)."""
    return hashlib.sha256(bundled_live_test_path().read_bytes()).hexdigest()


def check_live_battery(sha256: str, declared: str | None) -> str | None:
    """The declaration a live battery needs: None for the spec's 10 tasks; for any other, the operator's note
    (``--declare-live-battery "why"``), else a usage error: the record must show the live test was not the spec's."""
    if sha256 == spec_live_sha256():
        return None
    if declared is None or not declared.strip():
        raise UsageError(f"live battery {sha256[:16]}… is not GLOSS v2's 10 live tasks: graduation accepts another "
                         "live test only when declared; add --declare-live-battery \"why\" (the lineage keeps it), "
                         "or leave --live-battery out to run the spec's tasks")
    return declared.strip()


def _baseline(lineage: Lineage, new: RunScores, version: str) -> tuple[LineageRecord | None, str]:
    """The last graduated record of another version on the same battery and gate config, and why."""
    graduated = [r for _, r in lineage.records if r.graduated and r.version != version]
    if not graduated:
        return None, "no earlier graduated version in the lineage: nothing to compare with"
    for record in reversed(graduated):
        if not comparability_problems(record.battery_sha256, record.gate_config_sha256,
                                      new.battery.sha256, new.gate_config.sha256):
            skipped = graduated[-1] is not record
            note = (f" (the later graduated {graduated[-1].version} is not comparable: different battery or "
                    "gate config)") if skipped else ""
            return record, f"compared with {record.version}, the last graduated comparable version{note}"
    last = graduated[-1]
    problems = comparability_problems(last.battery_sha256, last.gate_config_sha256,
                                      new.battery.sha256, new.gate_config.sha256)
    return None, (f"not comparable: every graduated version was evaluated differently (last, {last.version}: "
                  + "; ".join(problems) + "); no paired regression check was possible")


def decide_graduation(
    version: str,
    battery_result: EvalResult | dict[str, Any],
    live_result: EvalResult | dict[str, Any] | None,
    lineage_path: Path,
    accept_regressions: Sequence[str],
    note: str | None,
    *,
    seed: int = 0,
    n_resamples: int = 9999,
    date: datetime | None = None,
    live_declared: str | None = None,
    store_dir: Path | None = None,
) -> GraduationDecision:
    """Decide whether ``version`` graduates, append the decision to the lineage file, return it.

    Graduates only when the battery gate is PASS, the live test is PASS, the battery was gated
    under a GLOSS v2 config, no response of either looped, and nothing regressed against the last
    graduated comparable version unless each regression is named in ``accept_regressions`` (which
    requires ``note``); the rules are ``forgegate.gate.graduation.graduation_rules``.
    EVAL_FALSE_POSITIVE is reported when the battery passes and the live test fails. One record is
    appended per decision. ``live_result`` None: the live test was not run because the battery did not PASS.
    A live test other than the spec's 10 tasks needs ``live_declared`` (:func:`check_live_battery`); the record
    keeps the live battery's sha256 and the declaration. The v9 signatures are always checked. ``store_dir``: the
    run store searched for eval runs that show a replacement battery FAILs a checkpoint that slipped through.
    """
    if not version.strip():
        raise UsageError("graduate needs a non-empty version name")
    accepted_names = list(dict.fromkeys(accept_regressions))
    if accepted_names and not (note and note.strip()):
        raise UsageError("--accept-regression needs --note \"why this regression is acceptable\": "
                         "the lineage keeps the note with the accepted regression")
    battery_eval = parse_eval(battery_result, "battery result")
    battery = parse_run_scores(battery_result, "battery result")
    live = _parse_live(live_result) if live_result is not None else None
    if battery.gate == Gate.PASS and live is None:
        raise UsageError("the battery passed: graduation needs its live test result (GLOSS v2: 'After battery PASS, "
                         "run 10 live crew communication tasks')")
    declared = check_live_battery(live.battery.sha256, live_declared) if live is not None else None
    if live is not None and battery.model_digest and live.model_digest and battery.model_digest != live.model_digest:
        raise UsageError(f"the battery ran on model digest {battery.model_digest} and the live test on "
                         f"{live.model_digest}: both must test the same model")
    lineage = read_lineage(lineage_path, missing_ok=True)
    warnings = [str(p) for p in lineage.problems]

    failed = [c for c, s in battery.categories.items() if s.gate not in (None, Gate.PASS.value)]
    baseline, why = _baseline(lineage, battery, version)
    comparison: RunComparison | None = None
    if baseline is not None:
        comparison = compare_runs(RunScores.of_record(baseline), battery, seed=seed, n_resamples=n_resamples,
                                  old_label=baseline.version, new_label=version)
    used = battery_eval.gate_config
    labelled = [*((i.id, tuple(i.all_failure_modes)) for i in battery.items if not i.errored),
                *((f"live:{i.id}", tuple(i.failure_modes)) for i in (live.items if live is not None else ())
                  if i.score is not None)]
    signatures = signatures_present(({"failure_modes": list(modes)} for _, modes in labelled),
                                    stop=result_stop(battery_eval))
    rules = graduation_rules(
        battery_gate=battery.gate, sigma_total=battery.sigma_total, failed_categories=failed,
        live_gate=live.gate if live is not None else None,
        gate_used=GateUsed(name=used.name, gloss_v2=used.gloss_v2, category_floor=used.category_floor,
                           sigma_total_min=used.sigma_total_min, categories=tuple(battery.categories)),
        labelled_items=labelled,
        signatures=signatures,
        baseline_why=why, compared=comparison is not None,
        regressions=[] if comparison is None else [RegressionFound(r.name, r.detail) for r in comparison.regressions],
        comparison_reasons=() if comparison is None else comparison.verdict.reasons,
        accept_regressions=accepted_names, note=note,
        battery_trust=battery_trust_reason(battery.battery.sha256, [
            *(r for _, r in lineage.records),
            *(stored_fails(store_dir, battery.battery.sha256) if store_dir is not None else ())]))
    regressions = list(rules.regressions)
    accepted = [AcceptedRegression(name=name, note=note or "") for name in rules.accepted]
    unused = [name for name in accepted_names if name not in regressions]
    if unused:
        warnings.append(f"--accept-regression {', '.join(unused)}: no such regression against "
                        f"{baseline.version if baseline else 'any graduated version'}; nothing accepted")

    verdict = rules.verdict
    previous = lineage.last
    record = LineageRecord(
        kind="lineage_record",
        schema_version=SCHEMA_VERSION,
        lineage_format=1,
        version=version,
        date=date or now_utc(),
        model=battery.model,
        model_digest=battery.model_digest,
        run_id=battery.run_id,
        live_run_id=live.run_id if live is not None else None,
        live_battery_sha256=live.battery.sha256 if live is not None else None,
        live_battery_declared=declared,
        battery_sha256=battery.battery.sha256,
        gate_config_name=battery.gate_config.name,
        gate_config_sha256=battery.gate_config.sha256,
        category_scores={k: v.score for k, v in battery.categories.items()},
        sigma_total=battery.sigma_total,
        battery_gate=battery.gate,
        live_gate=live.gate if live is not None else None,
        verdict=verdict.gate,
        graduated=verdict.gate == Gate.PASS,
        reasons=[ReasonModel.of(r) for r in verdict.reasons],
        failure_mode_signatures=signatures,
        failure_modes=sorted(battery.all_failure_modes | set(live.failure_modes if live is not None else ())
                             | ({FailureMode.EVAL_FALSE_POSITIVE}
                                if any(r.rule == FailureMode.EVAL_FALSE_POSITIVE for r in verdict.reasons) else set())),
        regressions=regressions,
        accepted_regressions=accepted,
        compared_to=baseline.version if baseline else None,
        comparable_to_previous=None if previous is None else not comparability_problems(
            previous.battery_sha256, previous.gate_config_sha256, battery.battery.sha256,
            battery.gate_config.sha256),
        note=note,
        forgegate_version=__version__,
        items=[i.recorded() for i in battery.items],
        pass_rates=battery.pass_rates,
    )
    line = append_record(lineage_path, record)
    return GraduationDecision(verdict, record, line, comparison, tuple(warnings))
