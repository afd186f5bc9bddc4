"""`forgegate runs`, `show` and `review`: reading the run store, and recording human reviews."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from forgegate.cli.common import console, err_console
from forgegate.errors import StoreError, UsageError

if TYPE_CHECKING:
    from rich.table import Table


def runs_table(id_width: int) -> Table:
    """The table ``forgegate runs`` prints, narrow enough for an 80-column CI log: a run id is never cut (the
    model or plan cell folds instead), a model given by path shows its file name, the date its minute."""
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1), collapse_padding=True)
    table.add_column("run", no_wrap=True, min_width=id_width)
    table.add_column("kind", no_wrap=True)
    table.add_column("model / plan", overflow="fold", min_width=12)
    table.add_column("backend", overflow="fold")
    table.add_column("answers", overflow="fold")
    table.add_column("verdict", no_wrap=True)
    table.add_column("created, UTC", overflow="fold", min_width=10)
    return table


def _created(created: str | None) -> str:
    """``2026-12-05T01:56:39+00:00`` (stored, UTC) as ``2026-12-05 01:56``."""
    return "-" if created is None else created[:16].replace("T", " ")


def register(app: typer.Typer) -> None:
    @app.command("runs", help="List the runs in the store: id, kind, model or plan, backend, answers, verdict, "
                      "date.")
    def runs(store: Path | None = typer.Option(None, help="Run store directory.")) -> None:
        from forgegate.report.fmt import model_shown
        from forgegate.store import RunStore, list_runs
        from forgegate.store.faults import DamagedStoreError

        paths = list_runs(store)
        table = runs_table(max((len(p.stem) for p in paths), default=3))
        unusable: list[StoreError] = []
        for path in paths:
            try:
                with RunStore.open(path, readonly=True) as opened:
                    meta, latest = opened.meta(), opened.latest()
            except StoreError as exc:  # one bad file must not hide the others
                unusable.append(exc)
                kind = "damaged" if isinstance(exc, DamagedStoreError) else "unreadable"
                table.add_row(path.stem, f"[red]{kind}[/]", *["-"] * 5)
                continue
            arms = sorted({r.arm for r in latest})
            label = model_shown(meta.label or "-") + (f" (arms {', '.join(arms)})" if meta.kind == "plan" else "")
            errors = sum(not r.ok for r in latest)
            answers = str(sum(r.ok for r in latest)) + (f" +{errors} err" if errors else "")
            table.add_row(path.stem, meta.kind or "-", escape(label), escape(meta.backend or "-"), answers,
                          meta.last_gate or "-", _created(meta.created))
        console.print(table)
        for problem in unusable:
            err_console.print(f"[bold yellow]warning:[/] {escape(str(problem))}", soft_wrap=True)

    @app.command("show", help="Print one item of a run: prompt, response, tokens, finish, checks, history.")
    def show(
        run: str = typer.Argument(..., help="Run id, unique prefix, or .sqlite path."),
        item: str = typer.Argument(..., help="Item id (or full request key arm/item/seed)."),
        store: Path | None = typer.Option(None, help="Run store directory."),
    ) -> None:
        from forgegate.pipeline.review import item_checks, run_battery, run_loop_settings
        from forgegate.store import RunStore, find_run

        with RunStore.open(find_run(run, store), readonly=True) as opened:
            meta = opened.meta()
            battery, loop_settings = run_battery(meta), run_loop_settings(meta)
            rows = [r for r in opened.latest() if item in (r.item_id, r.request_key)]
            if not rows:
                raise UsageError(f"run {run} has no item '{item}'")
            for row in rows:
                latency = "-" if row.latency_s is None else f"{row.latency_s:.2f} s"
                console.print(f"[bold]{escape(row.request_key)}[/]  finish {row.finish}, {row.tokens} tokens "
                              f"({row.token_source}), {row.attempts} attempt(s), latency {latency}")
                console.print(f"prompt:   {escape(repr(row.request.prompt))}")
                shown = escape(repr(row.response)) if row.ok else f"[red]{escape(str(row.error))}[/]"
                console.print(f"response: {shown}")
                checks = item_checks(battery, row, loop_settings)
                if checks is not None:
                    modes = ", ".join(checks.failure_modes) or "none"
                    console.print(f"checks:   score {checks.score:.0f}, failure modes {modes}; {escape(checks.detail)}")
                history = list(opened.history(row.request_key))
                if len(history) > 1:
                    console.print(f"history: {len(history)} rows ({', '.join(h['finish'] for h in history)})")

    @app.command("review", help="List items awaiting human review, or record a reviewer's pass/fail.")
    def review(
        run: str = typer.Argument(..., help="Run id, unique prefix, or .sqlite path."),
        item: str | None = typer.Argument(None, help="Item to decide; omit to list what is pending."),
        pass_: bool = typer.Option(False, "--pass", help="The reviewer's decision: the answer passes."),
        fail: bool = typer.Option(False, "--fail", help="The reviewer's decision: the answer fails."),
        reviewer: str | None = typer.Option(None, help="Who decided (required with a decision)."),
        note: str | None = typer.Option(None, help="Why."),
        store: Path | None = typer.Option(None, help="Run store directory."),
    ) -> None:
        from forgegate.pipeline.review import provenance, record_review, review_states
        from forgegate.store import find_run

        if pass_ and fail:  # one flag pair would let the last one win silently: a decision nobody made
            raise UsageError("--pass and --fail were both given: a review records one decision; pass one of them")
        passed = True if pass_ else False if fail else None
        path = find_run(run, store)
        if item is None:
            states = review_states(path)
            for state in states:
                shown = escape(f"[{state.decision or 'pending'}]")
                console.print(f"{escape(state.row.item_id)} {shown} prompt {escape(repr(state.row.request.prompt))}"
                              f" -> {escape(repr(state.row.response))}")
                for number, decision in enumerate(reversed(state.trail)):  # the one that counts first
                    label = "decided" if number == 0 else "replaced"
                    console.print(f"  {label}: {escape(provenance(decision))}", soft_wrap=True)
            console.print(f"{sum(s.decision is None for s in states)} pending of {len(states)}")
            return
        decided = record_review(path, item, passed=passed, reviewer=reviewer, note=note)
        assert decided.latest is not None  # record_review has just appended it
        earlier = f" (replaces {len(decided.trail) - 1} earlier decision(s), kept)" if len(decided.trail) > 1 else ""
        console.print(f"recorded {escape(provenance(decided.latest))} for {escape(item)}{earlier}; "
                      "run `forgegate rescore` for the new verdict", soft_wrap=True)
