"""The T_GPT v0.8.1 gate (semantic support and recoverability): what the metrics table may be used for.

``semantic/analysis.py`` computes the table, its CIs and its controls; ``pipeline/plan/semantic.py``
runs it on a plan's samples. The words are written here:

* a control that did not come out as expected: INVALID;
* a condition missing from a task, a declared primary endpoint that is NA, too few samples, nothing
  stored: INCOMPLETE;
* otherwise HOLD: T_GPT pre-registers no pass threshold, so an estimate is never a pass (exit 0
  means "ships"); the operator decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from forgegate.core.rules import RELEVANCE_RULE
from forgegate.core.verdict import Gate, Reason, Verdict

NA_WHY = ("NA across tasks (REC_GAIN and IRREV_OBS are NA where ES_LOSS is 0 or NA; every metric is NA "
          "where S_A^+ is empty)")


def primary_na(primary: str, value: Mapping[str, Any]) -> Reason | None:
    """INCOMPLETE when a primary endpoint is NA or was not computed (it decides nothing); None when it has a number.

    The one rule for both paths: ``semantic metrics`` on its declared experiment's primary endpoint and
    ``forgegate run`` on a comparison's primary. ``value`` is ``{"value", "ci", ...}``, or
    ``{"control", "candidate"}`` (per-condition metrics), or carries a ``note`` saying why there is none.
    """
    numbers = [value.get("value")] if "value" in value else [value.get("control"), value.get("candidate")]
    if value.get("note") or any(n is None or (isinstance(n, dict) and n.get("value") is None) for n in numbers):
        return Reason(f"primary {primary}", Gate.INCOMPLETE, f"{primary}: {value.get('note') or NA_WHY}")
    return None


def metrics_verdict(controls: Sequence[Mapping[str, Any]], incomplete: Iterable[str],
                    primaries: Iterable[tuple[str, Mapping[str, Any]]]) -> Verdict:
    """The metrics table's word: its controls (``name``, ``expected``, ``observed``, ``passed``), the tasks that
    miss a condition, the declared primary endpoint's value(s), and no pass rule (HOLD)."""
    reasons = [Reason("controls", Gate.PASS if all(c["passed"] for c in controls) else Gate.INVALID,
                      "; ".join(f"{c['name']}: expected {c['expected']}, observed {c['observed']}"
                                for c in controls))]
    for text in incomplete:
        reasons.append(Reason("conditions-present", Gate.INCOMPLETE, text))
    reasons.extend(r for label, value in primaries if (r := primary_na(label, value)) is not None)
    # T_GPT declares no pass threshold: an estimate is never a pass (exit 0 means "ships"); the operator decides
    reasons.append(Reason("metrics-computed", Gate.HOLD,
                          "metrics computed from frozen assignments; no pre-registered pass rule: estimate only, "
                          "the operator decides"))
    return Verdict.combine(reasons)


def semantic_unscored(rule: str, why: str) -> Verdict:
    """A plan's semantic instrument that could not compute its table (no samples, too few): INCOMPLETE."""
    return Verdict.combine([Reason(rule, Gate.INCOMPLETE, why)])


def plan_semantic_verdict(library_reasons: Iterable[Mapping[str, Any]], *, draft_codebook: bool,
                          relevance: Reason | None = None) -> Verdict:
    """A plan's semantic verdict: the metrics table's reasons (read back from its JSON) under ``semantic:``,
    the relevance reason (``relevance_reason``), and a note when the codebook is a draft built on the run's own
    samples (the table is exploratory)."""
    reasons = [Reason(f"semantic: {r['rule']}", Gate(r["outcome"]), r["detail"], r.get("numbers", {}))
               for r in library_reasons]
    if relevance is not None:
        reasons.append(relevance)
    if draft_codebook:
        reasons.append(Reason("semantic: codebook", Gate.PASS, "draft codebook built on this run's samples with the "
                              "embedding judge (not frozen): the table is exploratory"))
    return Verdict.combine(reasons)


def relevance_reason(*, confirmatory: bool, adjudication: Mapping[str, Any] | None, source: str,
                     remedy: str) -> Reason:
    """R(c) in a plan: T_GPT v0.8.1 defines it as "Binary adjudicated relevance of frozen cluster c to the task,
    based on condition-masked double annotation", with the author forbidden as a primary annotator.

    ``adjudication`` is the record's provenance (annotators, adjudicator, when, kappa) or None (a bare file, or
    no file: ``source`` says which). A confirmatory plan without an adjudicated record is INCOMPLETE (its
    relevance-filtered numbers rest on an unaudited R(c)); ``remedy`` names the commands that make one. An
    exploratory plan is told the same, without a change of word.
    """
    if adjudication is not None:
        kappa = adjudication.get("cohens_kappa")
        return Reason(RELEVANCE_RULE, Gate.PASS,
                      f"adjudicated by {adjudication['adjudicator']} at {adjudication['adjudicated_at']} from the "
                      f"double annotation of {' and '.join(adjudication['annotators'])} (not the plan's author "
                      f"{adjudication['plan_author']}): Cohen's kappa {'NA' if kappa is None else f'{kappa:.3f}'}, "
                      f"observed agreement {adjudication['observed_agreement']:.3f}, "
                      f"{adjudication['disagreements']} disagreement(s) adjudicated",
                      {"cohens_kappa": kappa, "observed_agreement": adjudication["observed_agreement"]})
    missing = f"R(c) is not adjudicated ({source}): no double annotation, agreement or adjudicator on record"
    if confirmatory:
        return Reason(RELEVANCE_RULE, Gate.INCOMPLETE, f"{missing}; a confirmatory table needs it: {remedy}")
    return Reason(RELEVANCE_RULE, Gate.PASS, f"{missing}: the table is exploratory")


MARGIN_TOLERANCE = 1e-12
"""A loss equal to the declared margin is within it: float sums of 0/1 means must not flag it by rounding."""


def quality_guardrails(quality: Mapping[str, Mapping[str, Any]]) -> list[Reason]:
    """T_GPT v0.8.1's Q_task / Q_fact guardrails (E1_STAGE: "... with Q_task/Q_fact guardrails"), from the
    quality tables (``semantic.quality``): a task the measure could not score (a human-review sheet not written
    or not filled) is INCOMPLETE with the command that writes the sheet; a stage change (reference ->
    contracted) that loses more of the measure than its declared margin is flagged FAIL; a loss within the margin
    is PASS only when its whole interval is (judged on its interval, not its point estimate), else HOLD; a change
    that cannot be computed INCOMPLETE. Without a margin the measure is reported, not a guardrail."""
    reasons: list[Reason] = []
    for measure, table in quality.items():
        rule = f"semantic: {measure} guardrail"
        for miss in table.get("missing", ()):
            reasons.append(Reason(f"semantic: {measure} scored", Gate.INCOMPLETE,
                                  f"{measure} of task {miss['task']!r}: {miss['why']}; write the review sheet "
                                  f"with `{miss['command']}`, fill every row's score (0 to 1), run again"))
        margin, change = table.get("margin"), table["change"]
        if table.get("missing"):  # a change over the tasks scored so far is not the measure's change: no PASS
            unscored = ", ".join(repr(m["task"]) for m in table["missing"])
            reasons.append(Reason(rule, Gate.INCOMPLETE, f"{measure} change not judged while task(s) {unscored} "
                                  "have no scores"))
            continue
        if margin is None:
            reasons.append(Reason(rule, Gate.PASS, f"{measure} reported beside the metrics; no margin declared, "
                                  "so it flags nothing"))
            continue
        loss = change.get("loss")
        numbers = {"margin": margin, "loss": loss, "reference": change["reference"],
                   "contracted": change["contracted"]}
        if loss is None:
            reasons.append(Reason(rule, Gate.INCOMPLETE, f"{measure} change from {change['reference']} to "
                                  f"{change['contracted']} not computed: {change.get('note', 'no scores')}", numbers))
        elif loss > margin + MARGIN_TOLERANCE:
            reasons.append(Reason(rule, Gate.FAIL, f"flagged: {measure} fell by {loss:.3f} from "
                                  f"{change['reference']} to {change['contracted']}, beyond the declared margin "
                                  f"{margin:g}", numbers))
        elif change.get("ci") is None or -change["ci"][0] > margin + MARGIN_TOLERANCE:
            # judged on its interval: a point estimate inside the margin whose interval reaches past it
            # has not shown the loss is within the margin; that is the operator's call, never a pass
            worst = None if change.get("ci") is None else -change["ci"][0]
            reasons.append(Reason(rule, Gate.HOLD, f"{measure} change from {change['reference']} to "
                                  f"{change['contracted']} is {-loss:+.3f}, but "
                                  + ("it has no interval" if worst is None else
                                     f"its 95% interval allows a loss of {worst:.3f}")
                                  + f", past the declared margin {margin:g}: not shown within it",
                                  {**numbers, "loss_high": worst}))
        else:
            reasons.append(Reason(rule, Gate.PASS, f"{measure} change from {change['reference']} to "
                                  f"{change['contracted']} is {-loss:+.3f}: within the declared margin "
                                  f"{margin:g}", numbers))
    return reasons


def with_quality_guardrails(verdict: Verdict, quality: Mapping[str, Mapping[str, Any]] | None) -> Verdict:
    """A plan's semantic verdict with its declared quality guardrails' reasons added (none declared: unchanged)."""
    if not quality:
        return verdict
    return Verdict.combine([*verdict.reasons, *quality_guardrails(quality)])


def relevance_gate(complete: bool) -> Gate:
    """``semantic relevance``: adjudicated relevance is PASS once every disagreement is settled, else INCOMPLETE."""
    return Gate.PASS if complete else Gate.INCOMPLETE


VALIDATION_RULE = "codebook validation"
"""The reason's rule name: the blinded human validation of the codebook's clustering."""


def validation_reason(score: Mapping[str, Any] | None, minimum: float | None, missing: str = "") -> Reason:
    """The blinded human validation's word (``semantic validate``; a plan's ``[instruments.semantic.validation]``).

    T_GPT v0.8.1 builds the codebook "using bidirectional entailment ... and blinded human validation":
    * no filled sheet (``score`` None, ``missing`` says why) or rows still blank: INCOMPLETE (a missing
      answer is never a pass);
    * human/clustering agreement (the point estimate) below the declared ``minimum``: INVALID. The
      clustering is the instrument every semantic number is measured with; one humans do not confirm
      makes the table invalid, it says nothing against the candidate (that would be FAIL);
    * otherwise PASS, the agreement and its interval stated (no minimum declared: reported only).
    """
    if score is None:
        return Reason(VALIDATION_RULE, Gate.INCOMPLETE, f"validation sheet not scored: {missing}")
    agreement = score["agreement"]
    numbers: dict[str, Any] = {"agreement": agreement["value"], "pairs": score["labelled"]}
    if agreement["ci"] is not None:
        numbers |= {"ci_low": agreement["ci"][0], "ci_high": agreement["ci"][1]}
    if minimum is not None:
        numbers["minimum"] = minimum
    if not score["complete"] or agreement["value"] is None:
        rows = score["unlabelled_rows"]
        return Reason(VALIDATION_RULE, Gate.INCOMPLETE,
                      f"{len(rows)} of {score['pairs']} validation pairs have no same_meaning label yet "
                      f"(rows {', '.join(rows[:8])}{' ...' if len(rows) > 8 else ''})", numbers)
    ci = agreement["ci"]
    shown = f"{agreement['value']:.3f}" + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]")
    if minimum is None:
        return Reason(VALIDATION_RULE, Gate.PASS, f"human/clustering agreement {shown} over {score['labelled']} "
                      "pairs; no minimum declared (reported only)", numbers)
    if agreement["value"] < minimum:
        return Reason(VALIDATION_RULE, Gate.INVALID,
                      f"human/clustering agreement {shown} is below the declared minimum {minimum:g}: the humans "
                      "do not confirm the codebook's clustering, so no semantic number measured with it is valid",
                      numbers)
    return Reason(VALIDATION_RULE, Gate.PASS,
                  f"human/clustering agreement {shown} meets the declared minimum {minimum:g}", numbers)


def validation_verdict(score: Mapping[str, Any] | None, minimum: float | None, missing: str = "") -> Verdict:
    """``semantic validate``'s word: the one validation reason."""
    return Verdict.combine([validation_reason(score, minimum, missing)])


def with_validation(verdict: Verdict, score: Mapping[str, Any] | None, minimum: float | None,
                    missing: str = "") -> Verdict:
    """A plan's semantic verdict with its declared codebook validation's reason added (``semantic: ...``)."""
    reason = validation_reason(score, minimum, missing)
    return Verdict.combine([*verdict.reasons, Reason(f"semantic: {reason.rule}", reason.outcome, reason.detail,
                                                     reason.numbers)])


def topology_missing(verdict: Verdict, why: str) -> Verdict:
    """E3_TOPOLOGY without its aggregates file: the primary endpoint AGG_COVERAGE has no value, INCOMPLETE."""
    return Verdict.combine([*verdict.reasons, Reason("semantic: E3 aggregates", Gate.INCOMPLETE,
                                                     f"E3_TOPOLOGY's aggregates are not there: {why}")])


def topology_budget_unknown(verdict: Verdict, why: str) -> Verdict:
    """E3_TOPOLOGY whose token budgets the run store cannot give (a failed request, an unreported count): "matched
    total-token budget" is not shown, so AGG_COVERAGE decides nothing, INCOMPLETE (never a self-reported figure)."""
    return Verdict.combine([*verdict.reasons, Reason("semantic: E3 budget", Gate.INCOMPLETE,
                                                     f"E3_TOPOLOGY's token budgets are not in the run store: {why}")])


def recurrence_reason(verdict: Verdict, score: Mapping[str, Any] | None, why: str = "") -> Verdict:
    """E4_R_META's blinded recurrence difference: no filled sheet, or a row still blank, is INCOMPLETE (a missing
    label is never a 0); a difference with its interval is an estimate with no pre-registered pass rule (HOLD)."""
    if score is None:
        reason = Reason("semantic: E4 recurrence", Gate.INCOMPLETE, f"E4_R_META's blinded sheet is not there: {why}")
    elif score["difference"] is None:
        rows = score["unlabelled_rows"]
        reason = Reason("semantic: E4 recurrence", Gate.INCOMPLETE,
                        f"{len(rows)} of {score['rows']} rows of the blinded recurrence sheet have no label yet"
                        + ("" if rows else " (or an arm has no labelled answer)"))
    else:
        diff = score["difference"]
        ci = "" if diff["ci"] is None else f" [{diff['ci'][0]:+.3f}, {diff['ci'][1]:+.3f}]"
        reason = Reason("semantic: E4 recurrence", Gate.HOLD,
                        f"structural-recurrence rate {score['structural']} - {score['style_control']}: "
                        f"{diff['value']:+.3f}{ci}; no pre-registered pass rule: estimate only",
                        {"difference": diff["value"]})
    return Verdict.combine([*verdict.reasons, reason])
