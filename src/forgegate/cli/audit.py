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
    from forgegate.jsonio import write_json_atomic

    for line in lines:
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
    from forgegate.audit import read_corpus, run_loop_audit, with_clean_copy
    from forgegate.audit.outcome import AuditFinding
    from forgegate.audit.render import loop_lines, verdict_lines
    from forgegate.results.audit import LoopAuditResult

    report = run_loop_audit(read_corpus(corpus), seed=seed, top=top, min_repeats=min_repeats)
    if write_clean is not None:
        report = with_clean_copy(report, corpus, write_clean, LoopAuditResult.of(report).gate)
    result = LoopAuditResult.of(report)
    _finish([*loop_lines(report), *verdict_lines(result.gate, AuditFinding(result.finding))], result, json_out)


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
    from forgegate.audit import run_leak_audit
    from forgegate.audit.outcome import AuditFinding
    from forgegate.audit.render import leak_lines, verdict_lines
    from forgegate.results.audit import LeakAuditResult

    report = run_leak_audit(source, renamed, pairs, seed=seed, rename_map=rename_map, planted=planted,
                            glob=glob)
    from forgegate.fixture.provenance import sha256_bytes_of

    result = LeakAuditResult.of(report).model_copy(update={"pairs_sha256": {str(p): sha256_bytes_of(p)
                                                                            for p in pairs}})
    _finish([*leak_lines(report), *verdict_lines(result.gate, AuditFinding(result.finding))], result, json_out)


@audit_app.command("format")
def format_(
    battery: Path = _BATTERY,
    corpus: Path = _CORPUS,
    min_rows: int = typer.Option(1, "--min-rows", min=1,
                                 help="Corpus rows a template/prefix/symbol needs to count as trained on."),
    json_out: Path | None = _JSON,
) -> None:
    """EVAL_FALSE_NEGATIVE: battery prompts shaped unlike the training prompts."""
    from forgegate.audit import load_battery_prompts, read_corpus, run_format_audit
    from forgegate.audit.outcome import AuditFinding
    from forgegate.audit.render import format_lines, verdict_lines
    from forgegate.results.audit import FormatAuditResult

    report = run_format_audit(load_battery_prompts(battery), read_corpus(corpus), min_rows=min_rows)
    result = FormatAuditResult.of(report)
    _finish([*format_lines(report), *verdict_lines(result.gate, AuditFinding(result.finding))], result, json_out)


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
    from forgegate.audit import load_battery_prompts, read_corpus, run_contamination_audit
    from forgegate.audit.outcome import AuditFinding
    from forgegate.audit.render import contamination_lines, verdict_lines
    from forgegate.results.audit import ContaminationAuditResult

    report = run_contamination_audit(load_battery_prompts(battery), read_corpus(corpus), n=ngram,
                                     seed=seed, planted=planted)
    result = ContaminationAuditResult.of(report)
    _finish([*contamination_lines(report), *verdict_lines(result.gate, AuditFinding(result.finding))], result, json_out)


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
