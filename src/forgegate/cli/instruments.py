"""`forgegate voice`, `memorization`, `damage`, `checkpoints` and `fixture build`: wiring only."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.cli.common import console, exit_with
from forgegate.core.declared import DAMAGE_METRICS

_JSON = typer.Option(None, "--json", help="Write the full result here (JSON, carries \"gate\").")
_GENS = typer.Option(..., "--generations", help='gens.jsonl: rows {"arm", "seed", "text"} '
                     '(optional "item", "finish", "tokens", "max_tokens").')
_CONTROL = typer.Option(..., "--control", help="The control arm (e.g. base-unadapted).")
_CANDIDATE = typer.Option(..., "--candidate", help="The candidate arm being gated.")


def voice(
    author: str = typer.Option(..., "--author", help="The author whose voice the reference holds (required, "
                               "printed on every output)."),
    reference: list[Path] = typer.Option(..., "--reference", help="Held-out reference text(s) of the author."),
    generations: Path = _GENS,
    control: str = _CONTROL,
    candidate: str = _CANDIDATE,
    features: int = typer.Option(300, "--features", min=1, help="Most frequent reference character bigrams."),
    segment_words: int = typer.Option(1000, "--segment-words", min=1,
                                      help="Words per reference segment (z-score mean and sd over segments)."),
    folds: int = typer.Option(5, "--folds", min=2, help="Held-out reference folds of the voice control."),
    floor: str = typer.Option("pairwise", "--floor", help="Floor the verdict uses: pairwise, the only rule that "
                              "decides (the all-arms floor is printed beside it as the sensitivity line)."),
    contrast: list[Path] = typer.Option([], "--contrast", help="Text(s) by other authors: extra negative "
                                        "controls the held-out reference must beat."),
    json_out: Path | None = _JSON,
) -> None:
    """Axis A: Burrows's Delta over character bigrams to a held-out reference, per arm and seed."""
    from forgegate.core.declared import floor_rule_refusal
    from forgegate.errors import UsageError
    from forgegate.jsonio import write_json_atomic
    from forgegate.metrics import load_generations, read_text, require_arms, voice_report
    from forgegate.metrics.voice import parse_floor_rule
    from forgegate.pipeline.axes import gate_voice
    from forgegate.report.metrics_terminal import print_voice

    rule = parse_floor_rule(floor)
    if (why := floor_rule_refusal(rule)) is not None:  # refused as plans refuse it
        raise UsageError(f"--floor {floor}: {why}; leave --floor out (pairwise)")
    gens = load_generations(generations)
    require_arms(gens, (control, candidate), source=str(generations))
    ref = "\n\n".join(read_text(p).text for p in reference)
    report = voice_report(author, ref, gens, control=control, candidate=candidate, segment_words=segment_words,
                          n_features=features, folds=folds, floor_rule=rule,
                          contrasts={str(p): read_text(p).text for p in contrast},
                          reference_label=", ".join(map(str, reference)))
    result = gate_voice(report).result([str(p) for p in reference])
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    print_voice(result, console)
    exit_with(result.gate)


def memorization(
    corpus: list[Path] = typer.Option(..., "--corpus", help="Training-corpus file(s) (the renamed copies)."),
    generations: Path = _GENS,
    control: str = _CONTROL,
    candidate: str = _CANDIDATE,
    n: int = typer.Option(8, "--n", min=1, help="Words in a row that count as a verbatim hit."),
    hit_rate_margin: float = typer.Option(0.0, "--hit-rate-margin", min=0.0, max=1.0,
                                          help="The candidate's hit rate may exceed the control's by this."),
    max_margin: int = typer.Option(0, "--max-margin", min=0,
                                   help="The candidate's longest run may exceed the control's by this (words)."),
    passages: int = typer.Option(20, "--control-passages", min=1, help="Corpus passages in each control."),
    control_seed: int = typer.Option(0, "--control-seed", help="Seed that picks the control passages."),
    json_out: Path | None = _JSON,
) -> None:
    """Axis B: longest verbatim n-gram of each generation against the corpus, beside the control arm."""
    import numpy as np

    from forgegate.jsonio import write_json_atomic
    from forgegate.metrics import load_generations, memorization_report, read_text, require_arms
    from forgegate.pipeline.axes import gate_memorization
    from forgegate.report.metrics_terminal import print_memorization

    gens = load_generations(generations)
    require_arms(gens, (control, candidate), source=str(generations))
    documents = [read_text(p, strip=False).text for p in corpus]
    report = memorization_report(documents, gens, control=control, candidate=candidate, n=n,
                                 hit_rate_margin=hit_rate_margin, max_margin=max_margin,
                                 rng=np.random.default_rng(control_seed), passages=passages)
    result = gate_memorization(report).result([str(p) for p in corpus], control_seed)
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    print_memorization(result, console)
    exit_with(result.gate)


def damage(
    generations: Path = _GENS,
    band: str = typer.Option(..., "--band", help="Inclusive word band, LOW-HIGH (e.g. 90-150)."),
    control: str = _CONTROL,
    candidate: str = _CANDIDATE,
    metrics: str = typer.Option(",".join(DAMAGE_METRICS), "--metrics",
                                help="Comma-separated: out_of_band, ran_on."),
    json_out: Path | None = _JSON,
) -> None:
    """Axis C: ran-on and out-of-band rates per arm and seed against the control's seed spread."""
    from forgegate.jsonio import write_json_atomic
    from forgegate.metrics import damage_report, load_generations, require_arms
    from forgegate.metrics.damage import parse_band, parse_metrics
    from forgegate.pipeline.axes import gate_damage
    from forgegate.report.metrics_terminal import print_damage

    chosen = parse_metrics(metrics)
    gens = load_generations(generations)
    require_arms(gens, (control, candidate), source=str(generations))
    report = damage_report(gens, parse_band(band), control=control, candidate=candidate, metrics=chosen)
    result = gate_damage(report).result()
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    print_damage(result, console)
    exit_with(result.gate)


def checkpoints(
    trainer_state: Path = typer.Argument(..., help="A Hugging Face Trainer trainer_state.json."),
    json_out: Path | None = _JSON,
) -> None:
    """Loss-curve ties: median neighbour jitter, the minimum, and which checkpoints it cannot separate."""
    from forgegate.jsonio import write_json_atomic
    from forgegate.pipeline.checkpoints import checkpoint_ties_of
    from forgegate.report.metrics_terminal import print_checkpoints

    result = checkpoint_ties_of(trainer_state)
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    print_checkpoints(result, console)


def fixture_build(
    pairs: Path = typer.Option(..., "--pairs", help='Pairs JSONL: {"split", "instruction", "response", '
                               '"work"} (optional "id").'),
    split: str = typer.Option(..., "--split", help="The held-out split to sample (e.g. val)."),
    n: int = typer.Option(..., "--n", min=1, help="How many items."),
    band: str = typer.Option(..., "--band", help="Inclusive response word band, LOW-HIGH (e.g. 90-150)."),
    seed: int = typer.Option(..., "--seed", help="Sampling seed (reproducible)."),
    out: Path = typer.Option(..., "--out", help='Fixture JSONL to write: {"id", "prompt", "work", ...}.'),
    reference_out: Path | None = typer.Option(None, "--reference-out",
                                              help="Also write the split's responses: a voice reference."),
    json_out: Path | None = _JSON,
) -> None:
    """Sample a beat fixture from a held-out split inside a word band, round-robin across works."""
    from forgegate.fixture import build_fixture, read_pairs, split_responses
    from forgegate.fixture.provenance import write_provenance
    from forgegate.jsonio import write_json_atomic
    from forgegate.metrics.damage import parse_band
    from forgegate.report.metrics_terminal import print_fixture
    from forgegate.results.fixture_build import FixtureBuildResult

    rows = read_pairs(pairs)
    build = build_fixture(rows, split=split, n=n, band=parse_band(band), seed=seed, source=str(pairs))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(item.model_dump_json(exclude_none=True) + "\n" for item in build.items),
                   encoding="utf-8")
    write_provenance(out, pairs, split)  # plan lock ties the fixture to a leak audit of this same pairs file
    if reference_out is not None:
        reference_out.write_text(split_responses(rows, split) + "\n", encoding="utf-8")
    result = FixtureBuildResult.of(build, pairs=str(pairs), out=str(out))
    if json_out is not None:
        write_json_atomic(json_out, result.to_json())
    print_fixture(result, console)


def register(app: typer.Typer) -> None:
    app.command("voice")(voice)
    app.command("memorization")(memorization)
    app.command("damage")(damage)
    app.command("checkpoints")(checkpoints)
    fixture_app = typer.Typer(help="Build eval fixtures.", no_args_is_help=True)
    fixture_app.command("build")(fixture_build)
    app.add_typer(fixture_app, name="fixture")
