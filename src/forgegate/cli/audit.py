"""`forgegate audit loops|leak|format|contamination`: training-data audits, wiring only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from forgegate.cli.common import console, exit_with

if TYPE_CHECKING:
    from forgegate.results.audit import AuditResult

audit_app = typer.Typer(
    help="Training-data audits before the forge; each runs its controls every time "
    "(exit 0 PASS: clean, 1 FAIL: found, 2 bad input, 4 INVALID: a control failed).",
    no_args_is_help=True,
)

_JSON = typer.Option(None, "--json", help='Write every count printed here (JSON: "gate" PASS/FAIL/INVALID, '
                     '"finding" what was found).')
_SEED = typer.Option(0, "--seed", help="Seed of the controls' random choices (printed in the JSON).")
_BATTERY = typer.Option(..., "--battery", help="Battery JSONL (the eval's items).")
_CORPUS_HELP = "Training corpus JSONL: prompt/completion or chat messages rows."
_CORPUS = typer.Option(..., "--corpus", help=_CORPUS_HELP)


def _finish(lines: list[str], result: AuditResult, json_out: Path | None) -> None:
    """Print the audit's lines and the verdict's (its word and finding), write the JSON, exit with the word."""
    from forgegate.audit.outcome import AuditFinding
    from forgegate.audit.render import verdict_lines
    from forgegate.jsonio import write_json_atomic

    for line in [*lines, *verdict_lines(result.gate, AuditFinding(result.finding))]:
        console.print(line, markup=False, soft_wrap=True)
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    exit_with(result.gate)


@audit_app.command("loops")
def loops(
    corpus: Path = typer.Argument(..., help=_CORPUS_HELP),
    write_clean: Path | None = typer.Option(None, "--write-clean",
                                            help="Write a copy without the flagged rows here."),
    top: int = typer.Option(10, "--top", min=0, help="Worst offenders to list."),
    min_repeats: int = typer.Option(3, "--min-repeats", min=2, help="Repeats that make a phrase a loop."),
    seed: int = _SEED,
    json_out: Path | None = _JSON,
) -> None:
    """CORPUS_LOOP_INJECTION: rows that repeat a phrase, escalate a symbol, echo the prompt, or
    near-duplicate one prompt."""
    from forgegate.audit.render import loop_lines
    from forgegate.pipeline.audits import loop_audit

    done = loop_audit(corpus, seed=seed, top=top, min_repeats=min_repeats, write_clean=write_clean)
    _finish(loop_lines(done.report), done.result, json_out)


@audit_app.command("leak")
def leak(
    source: Path = typer.Option(..., "--source", help="The unrenamed source tree (folder of .txt)."),
    renamed: list[Path] = typer.Option(..., "--renamed",
                                       help="A renamed copy of the source; repeat for several."),
    pairs: list[Path] = typer.Option(..., "--pairs",
                                     help='Built pairs JSONL {"split","instruction","response"}; '
                                     "repeat for several files."),
    rename_map: Path | None = typer.Option(None, "--map",
                                           help="Rename map (.json object or .tsv canonical<TAB>replacement); "
                                           "default: the source/renamed difference."),
    planted: int = typer.Option(6, "--planted", min=1,
                                help="Canonical names planted in the positive control."),
    glob: str = typer.Option("**/*.txt", "--glob", help="Which files of the trees to read."),
    seed: int = _SEED,
    json_out: Path | None = _JSON,
) -> None:
    """Removed character names still present in built pairs, per split and half."""
    from forgegate.audit.render import leak_lines
    from forgegate.pipeline.audits import leak_audit

    done = leak_audit(source, renamed, pairs, seed=seed, rename_map=rename_map, planted=planted, glob=glob)
    _finish(leak_lines(done.report), done.result, json_out)


@audit_app.command("format")
def format_(
    battery: Path = _BATTERY,
    corpus: Path = _CORPUS,
    min_rows: int = typer.Option(1, "--min-rows", min=1,
                                 help="Corpus rows a template/prefix/symbol needs to count as trained on."),
    json_out: Path | None = _JSON,
) -> None:
    """EVAL_FALSE_NEGATIVE: battery prompts shaped unlike the training prompts."""
    from forgegate.audit.render import format_lines
    from forgegate.pipeline.audits import format_audit

    done = format_audit(battery, corpus, min_rows=min_rows)
    _finish(format_lines(done.report), done.result, json_out)


@audit_app.command("contamination")
def contamination(
    battery: Path = _BATTERY,
    corpus: Path = _CORPUS,
    ngram: int = typer.Option(13, "--ngram", min=1,
                              help="Words per n-gram (13: the lm-evaluation-harness convention); "
                              "shorter items are matched whole."),
    planted: int = typer.Option(3, "--planted", min=1,
                                help="Battery items planted in the positive control."),
    seed: int = _SEED,
    json_out: Path | None = _JSON,
) -> None:
    """Battery items present verbatim or near-verbatim in the training corpus."""
    from forgegate.audit.render import contamination_lines
    from forgegate.pipeline.audits import contamination_audit

    done = contamination_audit(battery, corpus, ngram=ngram, seed=seed, planted=planted)
    _finish(contamination_lines(done.report), done.result, json_out)


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
