"""`forgegate graduate`: battery + live test on one model, then the lineage decision (wiring only)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from forgegate.cli.common import console, exit_with
from forgegate.cli.eval import finish, report_summary
from forgegate.cli.options import BATTERY_OPTION, JSON_OPTION, MODEL_OPTIONS, session_options, with_options
from forgegate.core.gloss_v2 import GLOSS_V2_TITLE

_P = inspect.Parameter
GRADUATE_OPTIONS = [
    _P("version", _P.KEYWORD_ONLY, annotation=str,
       default=typer.Option(..., help="The version being decided (e.g. v10); required.")),
    _P("lineage", _P.KEYWORD_ONLY, annotation=Path,
       default=typer.Option(..., help="The append-only lineage JSONL (created if absent).")),
    _P("live_battery", _P.KEYWORD_ONLY, annotation=Path | None,
       default=typer.Option(None, help="Live test JSONL (default: the bundled 10 tasks).")),
    _P("accept_regression", _P.KEYWORD_ONLY, annotation=list[str] | None,
       default=typer.Option(None, "--accept-regression", help="Graduate despite this regression "
                            "(category or failure mode); needs --note.")),
    _P("accept_battery_exception", _P.KEYWORD_ONLY, annotation=str | None,
       default=typer.Option(None, "--accept-battery-exception", metavar="NOTE",
                            help="Graduate on a battery the lineage marked as not predicting live behaviour "
                            "(an earlier EVAL_FALSE_POSITIVE on the same battery sha256); NOTE says why and is "
                            "kept in the record.")),
    _P("note", _P.KEYWORD_ONLY, annotation=str | None,
       default=typer.Option(None, help="The operator's note, kept in the lineage record.")),
]


def register(app: typer.Typer) -> None:
    @app.command("graduate", help="Battery + live test + regression check vs the last graduated version; "
                                  "appends one lineage record.")
    @with_options([BATTERY_OPTION, *MODEL_OPTIONS, *GRADUATE_OPTIONS, JSON_OPTION])
    def graduate(**kw: Any) -> None:
        from forgegate.jsonio import write_json_atomic
        from forgegate.lineage import decide_graduation
        from forgegate.pipeline.eval_session import run_session

        battery_session = run_session(session_options("eval", kw, kw["battery"]))
        report_summary(battery_session.summary)
        battery_result = battery_session.result
        finish(battery_result, None, GLOSS_V2_TITLE)
        live_session = run_session(session_options("live", kw, kw["live_battery"]))
        report_summary(live_session.summary)
        live_result = live_session.result
        finish(live_result, None, "GLOSS LIVE TEST")
        decision = decide_graduation(kw["version"], battery_result, live_result, kw["lineage"],
                                     kw["accept_regression"] or [], kw["note"],
                                     battery_exception=kw["accept_battery_exception"])
        console.print(f"\nGRADUATION {escape(kw['version'])}: [bold]{decision.gate.value}[/] "
                      f"({'graduated' if decision.graduated else 'not graduated'}; lineage line {decision.line})")
        for reason in decision.reasons:
            console.print(f"  [{reason.outcome.value}] {escape(reason.rule)}: {escape(reason.detail)}")
        for warning in decision.warnings:
            console.print(f"  warning: {escape(warning)}")
        if kw["json_out"] is not None:
            write_json_atomic(kw["json_out"], {**decision.to_json(), "battery": battery_result.to_json(),
                                               "live": live_result.to_json()})
        exit_with(decision.gate)
