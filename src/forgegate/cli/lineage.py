"""`forgegate compare` (paired regression check of two runs) and `forgegate lineage show`: wiring only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from forgegate.cli.common import console, err_console, exit_with
from forgegate.core.limits import DEFAULT_BOOTSTRAP_RESAMPLES, MIN_BOOTSTRAP_RESAMPLES, bootstrap_problem
from forgegate.errors import UsageError


def register(app: typer.Typer) -> None:
    @app.command(
        "compare",
        help="Paired regression check: OLD and NEW eval results (`forgegate eval --json`) on the same "
        "battery and gate config. Items pair by (id, seed); per category: both scores, the difference with a "
        "paired-bootstrap 95% CI resampling items, McNemar's exact test, Holm across categories. "
        "When both runs have --samples K > 1, items pair by id on their pass rates over the samples "
        "(paired bootstrap; the output names the test used). "
        "Exit 0 PASS (no regression), 1 FAIL (regression), 2 not comparable / bad input, 3 INCOMPLETE.",
    )
    def compare(
        old: Annotated[str, typer.Argument(help="The earlier run: a result JSON, or a stored run id.")],
        new: Annotated[str, typer.Argument(help="The later run: a result JSON, or a stored run id.")],
        json_path: Annotated[
            Path | None, typer.Option("--json", help="Write the full comparison here.")
        ] = None,
        seed: Annotated[int, typer.Option(help="Seed of the bootstrap (recorded in the JSON).")] = 0,
        resamples: Annotated[int, typer.Option(help=f"Bootstrap resamples (at least {MIN_BOOTSTRAP_RESAMPLES}).")
                             ] = DEFAULT_BOOTSTRAP_RESAMPLES,
        store: Annotated[Path | None, typer.Option(help="Run store directory (for run ids).")] = None,
    ) -> None:
        from forgegate.jsonio import write_json_atomic
        from forgegate.lineage import compare_runs, print_comparison
        from forgegate.pipeline.session.sources import eval_run_scores

        if (problem := bootstrap_problem(seed, resamples)) is not None:
            raise UsageError(problem)
        comparison = compare_runs(eval_run_scores(old, store), eval_run_scores(new, store), seed=seed,
                                  n_resamples=resamples, old_label=old, new_label=new)
        print_comparison(console, comparison)
        if json_path is not None:
            write_json_atomic(json_path, comparison.model().to_json())
        exit_with(comparison.gate)

    lineage_app = typer.Typer(help="The graduation record across model versions.", no_args_is_help=True)
    app.add_typer(lineage_app, name="lineage")

    @lineage_app.command("show", help="The lineage table, newest last; ↓ marks a score lower than in the "
                         "previous record on the same battery and gate config.")
    def show(
        path: Annotated[Path, typer.Argument(help="The lineage JSONL file.")],
        markdown: Annotated[
            bool, typer.Option("--markdown", help="Print a Markdown table (for a README).")
        ] = False,
    ) -> None:
        from forgegate.lineage import lineage_markdown, lineage_table, read_lineage

        lineage = read_lineage(path)
        for problem in lineage.problems:
            err_console.print(f"[yellow]warning:[/] {escape(str(problem))}")
        if markdown:
            typer.echo(lineage_markdown(lineage), nl=False)
        else:
            console.print(lineage_table(lineage, console))
