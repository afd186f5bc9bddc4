"""``forgegate plan new|lock|check``: write a preset, freeze a plan, validate one (wiring only)."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.cli.common import console
from forgegate.core.verdict import EXIT_BAD_INPUT
from forgegate.plan.presets import PRESETS
from forgegate.training.drop_on import DROP_ON_DEFAULT

plan_app = typer.Typer(help="Pre-registered plans: write one from a preset, lock it, check it.",
                       no_args_is_help=True)

_STORE = typer.Option(None, "--store", help="Run store folder (default: $FORGEGATE_HOME/runs or ./.forgegate/runs).")


@plan_app.command("new")
def new(
    preset: str = typer.Option(..., "--preset", help=f"One of: {', '.join(PRESETS)}."),
    out: Path = typer.Option(Path("plan.toml"), "--out", help="Where to write the plan."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
) -> None:
    """Write a commented starting plan; edit it, then `forgegate plan lock`."""
    from forgegate.plan import write_preset

    path = write_preset(preset, out, overwrite=force)
    console.print(f"wrote {path} (preset {preset}); fill in your paths, then: forgegate plan lock {path}")


@plan_app.command("lock")
def lock(
    plan: Path = typer.Argument(..., help="The plan TOML."),
    store: Path | None = _STORE,
) -> None:
    """Freeze the plan: write PLAN.lock with its content hash (refused once its run has generations, or when the
    plan's [leak_audit] found a leak, exit 1, or failed a control, exit 4)."""
    from forgegate.cli.common import exit_with
    from forgegate.pipeline.plan.audit import AuditLockRefusedError, lock_with_audit
    from forgegate.pipeline.plan.store import plan_run_state
    from forgegate.plan import lock_path

    state = plan_run_state(plan, store)
    try:
        written, audit = lock_with_audit(plan, run_has_generations=state.has_generations,
                                         stored_plan_hash=state.stored_plan_hash)
    except AuditLockRefusedError as refused:
        console.print(f"NOT LOCKED: {refused.message}", markup=False, soft_wrap=True)
        exit_with(refused.gate)
        return
    console.print(f"locked {plan} -> {lock_path(plan)}")
    console.print(f"plan_hash {written.plan_hash}")
    for name, digest in written.inputs.items():
        console.print(f"  input {name}  sha256 {digest[:16]}")
    if audit is not None and written.leak_audit is not None:
        console.print(f"  leak audit ({written.leak_audit['origin']})  sha256 {written.leak_audit['sha256'][:16]}  "
                      f"gate {written.leak_audit['gate']}  finding {written.leak_audit['finding']}", markup=False)


@plan_app.command("check")
def check(
    plan: Path = typer.Argument(..., help="The plan TOML."),
    store: Path | None = _STORE,
) -> None:
    """Validate the plan and its files; say whether it is locked and whether its run has started."""
    from forgegate.cli.common import exit_with
    from forgegate.pipeline.plan.audit import AuditLockRefusedError, lockable
    from forgegate.pipeline.plan.store import plan_run_state
    from forgegate.plan import RULE_DOES_NOT_MOVE, check_adapters, check_inputs, load_plan, read_lock
    from forgegate.plan.inputs import read_inputs
    from forgegate.plan.lock import current_lock

    loaded = load_plan(plan)
    inputs = check_inputs(loaded)
    check_adapters(loaded)
    audited: dict[str, bytes] = {}
    try:  # every refusal of `plan lock`, so that check never says valid where lock refuses
        lockable(loaded, audited, plan)
    except AuditLockRefusedError as refused:
        console.print(f"NOT LOCKABLE: {refused.message}", markup=False, soft_wrap=True)
        exit_with(refused.gate)
        return
    now = current_lock(loaded, read_inputs(loaded, audited))  # read as lock reads them: the one bounded reader
    locked = read_lock(plan)
    state = plan_run_state(loaded, store)
    p = loaded.plan
    console.print(f"plan {p.name}: valid; {len(p.arms)} arms, {len(p.seed_list())} seeds"
                  f"{f' x {p.samples} samples' if p.samples > 1 else ''}, "
                  f"instruments {', '.join(p.instruments.declared())}, {len(p.comparisons)} comparisons, "
                  f"{len(inputs)} input files present")
    if p.author:
        console.print(f"author: {p.author}")
    console.print(f"plan_hash {now.plan_hash}")
    if locked is None:
        console.print(f"NOT LOCKED: forgegate plan lock {plan}")
        raise typer.Exit(code=EXIT_BAD_INPUT)
    if locked.plan_hash != now.plan_hash:
        console.print(f"CHANGED since its lock ({locked.plan_hash[:12]})"
                      + (": its run has generations, the change is refused" if state.has_generations
                         else ": no generation yet, re-lock to accept it"))
        raise typer.Exit(code=EXIT_BAD_INPUT)
    if state.has_generations and state.stored_plan_hash not in (None, now.plan_hash):
        console.print(f"REFUSED: run store {state.store_path} holds {state.generations} generations made under "
                      f"plan hash {str(state.stored_plan_hash)[:12]}: {RULE_DOES_NOT_MOVE}")
        raise typer.Exit(code=EXIT_BAD_INPUT)
    if p.leak_audit is not None and locked.leak_audit is None:
        console.print(f"NO LEAK AUDIT on the lock: re-lock it (forgegate plan lock {plan}) to put it on the record")
        raise typer.Exit(code=EXIT_BAD_INPUT)
    if locked.leak_audit is not None:
        audit = locked.leak_audit
        console.print(f"leak audit on the lock ({audit.get('origin')}): gate {audit.get('gate')}, finding "
                      f"{audit.get('finding')}, sha256 {audit.get('sha256', '')[:16]}", markup=False)
    console.print(f"locked {locked.locked_at}; run store {state.store_path}: {state.generations} generations")


@plan_app.command("from-training")
def from_training(
    output_dir: Path = typer.Argument(..., help="The Trainer's output_dir (trainer_state.json, checkpoint-N/)."),
    base: str = typer.Option(..., "--base", help="The base model the checkpoints were trained from (the "
                             "control arm base-unadapted; the model under each adapter)."),
    preset: str = typer.Option(..., "--preset", help="The plan whose instruments and settings to use: "
                               "hemingway (a control and candidate arms)."),
    out: Path = typer.Option(Path("plan.toml"), "--out", help="Where to write the plan."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
    drop_on: list[str] = typer.Option([m.value for m in DROP_ON_DEFAULT], "--drop-on",
                                      help="Failure modes that drop a tied checkpoint when its training probe "
                                      "shows more of them than the step-0 baseline (repeat the option, or "
                                      "separate with commas)."),
) -> None:
    """Write a plan from a finished training run: the checkpoints tied at the eval_loss minimum (within one
    median neighbour jitter), less those whose training probes showed a failure mode, as candidate arms."""
    from rich.markup import escape

    from forgegate.cli.common import err_console
    from forgegate.training.drop_on import drop_on_modes
    from forgegate.training.plan_writer import summary_lines, write_plan_from_training

    selection = write_plan_from_training(output_dir, base, preset, out, force=force, drop_on=drop_on_modes(drop_on))
    for problem in selection.probe_problems:
        err_console.print(f"[yellow]warning:[/] {escape(str(problem))}", soft_wrap=True)
    for line in summary_lines(selection, out):
        console.print(escape(line), soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(plan_app, name="plan")
