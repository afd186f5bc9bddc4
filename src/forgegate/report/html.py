"""One self-contained HTML page for any forgegate result: the verdict and every reason on top, then its section."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from forgegate.core.kinds import AXES
from forgegate.core.version import __version__
from forgegate.report.arms_cells import AXIS_TITLES
from forgegate.report.arms_section import comparisons
from forgegate.report.gloss_section import gloss_view
from forgegate.report.quality_section import quality_view
from forgegate.report.sections import Kind, report_result
from forgegate.report.semantic_section import semantic_view
from forgegate.report.templates import CSS, TEMPLATES, svg_filter
from forgegate.results import EvalResult
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


def _digests(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{arm}: {digest or 'not reported by the backend'}" for arm, digest in value.items()) or \
            NOT_RECORDED
    return str(value) if value else "not reported by the backend"


def _provenance(payload: dict[str, Any], kind: Kind, created: str | None) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = [("result", kind)]
    if kind in ("gloss",):
        battery, config = payload.get("battery") or {}, payload.get("gate_config") or {}
        sampling = payload.get("sampling") or {}
        rows += [("model", f"{payload.get('model')} (backend {payload.get('backend')})"),
                 ("run id", str(payload.get("run_id"))),
                 ("plan hash", "none: a battery run, not a plan"),
                 ("battery", f"{battery.get('path')} ({battery.get('items')} items)"),
                 ("battery sha256", str(battery.get("sha256") or NOT_RECORDED)),
                 ("gate config", f"{config.get('name')} sha256 {config.get('sha256')}"),
                 ("model digest", _digests(payload.get("model_digest"))),
                 ("seed / sampling", f"seed {payload.get('seed')}, temperature {sampling.get('temperature')}, "
                                     f"top_p {sampling.get('top_p')}"),
                 ("token counts from", ", ".join(payload.get("token_sources") or ()) or "n/a"),
                 ("store", str(payload.get("store")))]
    elif kind == "plan":
        plan = payload.get("plan") or {}
        gen = payload.get("generation") or {}
        rows += [("plan", f"{plan.get('name')} ({plan.get('path')})"),
                 ("plan hash", str(plan.get("plan_hash") or NOT_RECORDED)),
                 *((f"input sha256: {path}", str(sha)) for path, sha in (plan.get("inputs") or {}).items()),
                 ("battery sha256", "see the fixture input above (a plan's fixture is locked by its sha256)"),
                 ("author", str(payload.get("author"))),
                 ("model digests", _digests(payload.get("model_digests") or {})),
                 ("generation", ", ".join(f"{k} {v}" for k, v in gen.items())),
                 ("store", str(payload.get("store")))]
        audit = payload.get("leak_audit")
        rows.append(("leak audit (on the lock)",
                     f"gate {audit['gate']}, finding {audit['finding']}, {audit['origin']}, sha256 {audit['sha256']}"
                     if audit else "none named by the plan"))
    elif kind in AXES:
        rows += [("control / candidate", f"{payload.get('control')} / {payload.get('candidate')}"),
                 ("plan hash", "none: a single-axis command, not a plan run"),
                 ("battery sha256", "none: generations file input"),
                 ("model digests", NOT_RECORDED)]
        inputs = {k: payload[k] for k in ("reference", "corpus", "control_seed") if payload.get(k) is not None}
        rows += [(k, str(v)) for k, v in inputs.items()]
    else:
        rows += [("schema", str(payload.get("schema"))),
                 ("plan hash", "none: semantic metrics on assignment files"),
                 ("battery sha256", "none: assignment files input"),
                 ("model digests", NOT_RECORDED),
                 *((f"input: {k}", str(v)) for k, v in (payload.get("inputs") or {}).items())]
    rows.append(("forgegate version (result)", str(payload.get("forgegate_version") or NOT_RECORDED)))
    rows.append(("date (run created)", created or NOT_RECORDED))
    return rows


def _subject(payload: dict[str, Any], kind: Kind) -> tuple[str, str]:
    if kind == "gloss":
        title = "GLOSS live test" if payload.get("kind") == "live" else "GLOSS eval"
        return str(payload.get("model")), title
    if kind == "plan":
        plan = payload.get("plan") or {}
        return str(plan.get("name")), f"plan run, {len(payload.get('comparisons') or [])} comparison(s)"
    if kind in AXES:
        return f"{payload.get('candidate')} vs {payload.get('control')}", f"{AXIS_TITLES[kind]} axis"
    return "T_GPT semantic metrics", f"{payload.get('mode')} analysis"


def header(payload: dict[str, Any], kind: Kind, *, created: str | None, rendered_at: str) -> Header:
    reasons = tuple({"rule": str(r.get("rule")), "outcome": str(r.get("outcome")), "detail": str(r.get("detail"))}
                    for r in payload.get("reasons") or ())
    subject, what = _subject(payload, kind)
    not_passed = sum(r["outcome"] != "PASS" for r in reasons)
    line = f"{what} — {subject} — {not_passed} of {len(reasons)} rules did not pass"
    gate = str(payload["gate"])
    label = str(payload.get("label") or gate)
    return Header(gate, label, subject, line, reasons, tuple(_provenance(payload, kind, created)), __version__,
                  rendered_at)


def render_html(payload: dict[str, Any], *, created: str | None = None, rendered_at: str | None = None,
                source: str = "result") -> str:
    """The whole report as one HTML string (inline CSS and SVG, nothing fetched, nothing executed); control,
    bidi and zero-width characters from model output are shown (``␛``, ``\\u202e``), never emitted."""
    kind, result, payload = report_result(payload, source)
    when = rendered_at or datetime.now(UTC).isoformat(timespec="seconds")
    head = header(payload, kind, created=created, rendered_at=when)
    env = _environment()
    view: object
    if isinstance(result, EvalResult):  # kind "gloss"
        section, view = "gloss", gloss_view(result)
    elif kind == "semantic":
        section, view = "semantic", semantic_view(payload)
    else:
        section, view = "arms", comparisons(payload, kind)
    page = env.get_template("page").render(head=head, css=Markup(CSS),  # our constant, not user text
                                           section=section, view=view, axes_titles=AXIS_TITLES,
                                           ships=payload.get("ships") if kind == "plan" else None,
                                           quality=quality_view(payload.get("semantic")) if kind == "plan" else None)
    return visible(page)  # last, over the whole page: no control character reaches the file, wherever it sat
