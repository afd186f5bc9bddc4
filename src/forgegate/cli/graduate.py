"""`forgegate graduate`: battery + live test on one model, then the lineage decision (wiring only)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from forgegate.cli.common import console, exit_with
from forgegate.cli.eval import finish, report_summary
from forgegate.cli.options import JSON_OPTION, session_options, session_parameters, with_options
from forgegate.core.gloss_v2 import GLOSS_V2_TITLE

_P = inspect.Parameter
GRADUATE_OPTIONS = [
    _P("version", _P.KEYWORD_ONLY, annotation=str,
       default=typer.Option(..., help="The version being decided (e.g. v10); required.")),
    _P("lineage", _P.KEYWORD_ONLY, annotation=Path,
       default=typer.Option(..., help="The append-only lineage JSONL (created if absent).")),
    _P("live_battery", _P.KEYWORD_ONLY, annotation=Path | None,
       default=typer.Option(None, help="Live test JSONL (default: GLOSS v2's 10 tasks, bundled); another one needs "
                            "--declare-live-battery.")),
    _P("declare_live_battery", _P.KEYWORD_ONLY, annotation=str | None,
       default=typer.Option(None, "--declare-live-battery", metavar="NOTE",
                            help="Declare a live test other than GLOSS v2's 10 tasks; NOTE says why and the lineage "
                            "record keeps it with the live battery's sha256.")),
    _P("accept_regression", _P.KEYWORD_ONLY, annotation=list[str] | None,
       default=typer.Option(None, "--accept-regression", help="Graduate despite this regression "
                            "(category or failure mode); needs --note.")),
    _P("note", _P.KEYWORD_ONLY, annotation=str | None,
       default=typer.Option(None, help="The operator's note, kept in the lineage record.")),
]


def register(app: typer.Typer) -> None:
    @app.command("graduate", help="Battery + live test + regression check vs the last graduated version; "
                                  "appends one lineage record.")
    # GLOSS v2 always checks failure modes before graduation, and graduate runs no format follow-up
    @with_options([*session_parameters(leave_out=("check_failure_modes", "training_corpus")), *GRADUATE_OPTIONS,
                   JSON_OPTION])
    def graduate(**kw: Any) -> None:
        import hashlib

        from forgegate.battery.resources import bundled_live_test_path
        from forgegate.core.modes import FailureMode
        from forgegate.core.verdict import Gate
        from forgegate.jsonio import read_bytes_or_input_error, write_json_atomic
        from forgegate.lineage import decide_graduation, read_lineage
        from forgegate.lineage.graduation import check_live_battery
        from forgegate.lineage.marks import BatteryMark, append_mark
        from forgegate.pipeline.session.eval_session import run_session
        from forgegate.store import writable_store_dir

        live_path = kw["live_battery"] or bundled_live_test_path()
        live_sha = hashlib.sha256(read_bytes_or_input_error(live_path)).hexdigest()
        check_live_battery(live_sha, kw["declare_live_battery"])  # before anything runs: exit 2, not a verdict
        read_lineage(kw["lineage"], missing_ok=True)  # a device, a pipe or a bad record: exit 2 before generating
        # GLOSS v2: "Before graduation ... --check-failure-modes": always, whatever the flags say
        battery_session = run_session(session_options("eval", {**kw, "check_failure_modes": True}, kw["battery"]))
        report_summary(battery_session.summary)
        battery_result = battery_session.result
        finish(battery_result, None, GLOSS_V2_TITLE)
        live_result = None
        if battery_result.gate == Gate.PASS:  # "After battery PASS, run 10 live crew communication tasks"
            live_session = run_session(session_options("live", kw, kw["live_battery"]))
            report_summary(live_session.summary)
            live_result = live_session.result
            finish(live_result, None, "GLOSS LIVE TEST")
        else:
            console.print(f"\nlive test not run: the battery gate is {battery_result.gate.value} (GLOSS v2 runs it "
                          "'After battery PASS')")
        decision = decide_graduation(kw["version"], battery_result, live_result, kw["lineage"],
                                     kw["accept_regression"] or [], kw["note"],
                                     live_declared=kw["declare_live_battery"],
                                     store_dir=writable_store_dir(kw["store"]))
        if FailureMode.EVAL_FALSE_POSITIVE in decision.record.failure_modes:  # so that `eval` on it says so
            record = decision.record
            append_mark(writable_store_dir(kw["store"]), BatteryMark(
                battery_sha256=record.battery_sha256, version=record.version, model=record.model,
                model_digest=record.model_digest, lineage=str(kw["lineage"])))
        console.print(f"\nGRADUATION {escape(kw['version'])}: [bold]{decision.gate.value}[/] "
                      f"({'graduated' if decision.graduated else 'not graduated'}; lineage line {decision.line})")
        for reason in decision.reasons:
            console.print(f"  [{reason.outcome.value}] {escape(reason.rule)}: {escape(reason.detail)}")
        for warning in decision.warnings:
            console.print(f"  warning: {escape(warning)}")
        if kw["json_out"] is not None:
            write_json_atomic(kw["json_out"], decision.model(battery_result, live_result).to_json())
        exit_with(decision.gate)
