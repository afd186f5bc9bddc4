"""One self-contained HTML page for any forgegate result: the verdict and every reason on top, then its section."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache

import jinja2
from markupsafe import Markup

from forgegate.core.gloss_v2 import report_title
from forgegate.core.verdict import Gate
from forgegate.core.version import __version__
from forgegate.report.arms_cells import AXIS_TITLES
from forgegate.report.arms_section import comparisons
from forgegate.report.gloss_section import gloss_view
from forgegate.report.quality_section import quality_view
from forgegate.report.sampling_text import sampling_line
from forgegate.report.sections import Kind, Renderable, ReportSource, report_result
from forgegate.report.semantic_section import semantic_view
from forgegate.report.templates import CSS, TEMPLATES, svg_filter
from forgegate.results import (
    DamageResult,
    EvalResult,
    MemorizationResult,
    PlanRunResult,
    SemanticMetricsResult,
    VoiceResult,
)
from forgegate.textsafe import visible

NOT_RECORDED = "not recorded in the result"


@dataclass(frozen=True)
class Header:
    gate: str
    label: str
    subject: str
    line: str
    reasons: tuple[dict[str, str], ...]
    provenance: tuple[tuple[str, str], ...]
    renderer_version: str
    rendered_at: str


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.DictLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["svg"] = svg_filter
    return env


def _digest(value: str | None) -> str:
    return str(value) if value else "not reported by the backend"


def _digests(value: dict[str, str | None]) -> str:
    return "; ".join(f"{arm}: {_digest(digest)}" for arm, digest in value.items()) or NOT_RECORDED


def _provenance(result: Renderable, kind: Kind, created: str | None) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = [("result", kind)]
    if isinstance(result, EvalResult):
        battery, config, sampling = result.battery, result.gate_config, result.sampling
        rows += [("model", f"{result.model} (backend {result.backend})"),
                 ("run id", str(result.run_id)),
                 ("plan hash", "none: a battery run, not a plan"),
                 ("battery", f"{battery.path} ({battery.items} items)"),
                 ("battery sha256", str(battery.sha256 or NOT_RECORDED)),
                 ("gate config", f"{config.name} sha256 {config.sha256}"),
                 ("model digest", _digest(result.model_digest)),
                 ("seed / sampling", f"seed {result.seed}; {sampling_line(sampling)}"),
                 ("token counts from", ", ".join(result.token_sources) or "n/a"),
                 ("store", str(result.store))]
    elif isinstance(result, PlanRunResult):
        plan = result.plan
        rows += [("plan", f"{plan.name} ({plan.path})"),
                 ("plan hash", str(plan.plan_hash or NOT_RECORDED)),
                 *((f"input sha256: {path}", str(sha)) for path, sha in plan.inputs.items()),
                 ("battery sha256", "see the fixture input above (a plan's fixture is locked by its sha256)"),
                 ("author", str(result.author)),
                 ("model digests", _digests(result.model_digests)),
                 ("generation", ", ".join(f"{k} {v}" for k, v in result.generation)),
                 ("store", str(result.store))]
        audit = result.leak_audit
        rows.append(("leak audit (on the lock)",
                     f"gate {audit.gate}, finding {audit.finding}, {audit.origin}, sha256 {audit.sha256}"
                     if audit else "none named by the plan"))
    elif isinstance(result, SemanticMetricsResult):
        rows += [("schema", str(result.metrics_schema)),
                 ("plan hash", "none: semantic metrics on assignment files"),
                 ("battery sha256", "none: assignment files input"),
                 ("model digests", NOT_RECORDED),
                 *((f"input: {k}", str(v)) for k, v in result.inputs)]
    else:  # one axis (voice, memorization, damage)
        rows += [("control / candidate", f"{result.control} / {result.candidate}"),
                 ("plan hash", "none: a single-axis command, not a plan run"),
                 ("battery sha256", "none: generations file input"),
                 ("model digests", NOT_RECORDED)]
        rows += [(k, str(v)) for k, v in _axis_inputs(result).items() if v is not None]
    version = getattr(result, "forgegate_version", None)
    rows.append(("forgegate version (result)", str(version or NOT_RECORDED)))
    rows.append(("date (run created)", created or NOT_RECORDED))
    return rows


def _axis_inputs(result: VoiceResult | MemorizationResult | DamageResult) -> dict[str, object]:
    """What a one-axis command was given beside its generations, as its JSON records it."""
    if isinstance(result, VoiceResult):
        return {"reference": dict(result.reference)}  # printed as the JSON block reads
    if isinstance(result, MemorizationResult):
        return {"corpus": result.corpus, "control_seed": result.control_seed}
    return {}


def _subject(result: Renderable, kind: Kind) -> tuple[str, str]:
    if isinstance(result, EvalResult):
        return str(result.model), report_title(result.live, result.gate_config.gloss_v2, str(result.gate_config.name))
    if isinstance(result, PlanRunResult):
        return str(result.plan.name), f"plan run, {len(result.comparisons)} comparison(s)"
    if isinstance(result, SemanticMetricsResult):
        return "T_GPT semantic metrics", f"{result.mode} analysis"
    return f"{result.candidate} vs {result.control}", f"{AXIS_TITLES[kind]} axis"


def header(result: Renderable, kind: Kind, *, created: str | None, rendered_at: str) -> Header:
    reasons = tuple({"rule": r.rule, "outcome": r.outcome.value, "detail": r.detail} for r in result.reasons)
    subject, what = _subject(result, kind)
    not_passed = sum(r.outcome is not Gate.PASS for r in result.reasons)
    line = f"{what} — {subject} — {not_passed} of {len(reasons)} rules did not pass"
    gate = result.gate.value
    label = result.label if isinstance(result, PlanRunResult) else gate
    return Header(gate, label or gate, subject, line, reasons, tuple(_provenance(result, kind, created)),
                  __version__, rendered_at)


def render_html(result: ReportSource, *, created: str | None = None, rendered_at: str | None = None,
                source: str = "result") -> str:
    """The whole report as one HTML string (inline CSS and SVG, nothing fetched, nothing executed); control,
    bidi and zero-width characters from model output are shown (``␛``, ``\\u202e``), never emitted.

    ``result`` is the typed result; a JSON object (a result file's content) is validated into one first."""
    kind, typed = report_result(result, source)
    when = rendered_at or datetime.now(UTC).isoformat(timespec="seconds")
    head = header(typed, kind, created=created, rendered_at=when)
    env = _environment()
    view: object
    if isinstance(typed, EvalResult):  # kind "gloss"
        section, view = "gloss", gloss_view(typed)
    elif isinstance(typed, SemanticMetricsResult):
        section, view = "semantic", semantic_view(typed)
    else:
        section, view = "arms", comparisons(typed)
    page = env.get_template("page").render(head=head, css=Markup(CSS),  # our constant, not user text
                                           section=section, view=view, axes_titles=AXIS_TITLES,
                                           ships=typed.ships if isinstance(typed, PlanRunResult) else None,
                                           quality=quality_view(typed.semantic)
                                           if isinstance(typed, PlanRunResult) else None)
    return visible(page)  # last, over the whole page: no control character reaches the file, wherever it sat
