"""``forgegate plan from-training``: a preset's plan with its example arms replaced by a training run's ties.

The preset's text (``plan/presets/``) stays the one home of every comment and default: this module
keeps it line for line and replaces only its ``[[arms]]`` and ``[[comparisons]]`` tables (and the
plan's ``name`` and ``description``, which describe the preset's example). The control arm is the
preset's control table with ``model`` set to the base; each candidate is the preset's first candidate
table filled in for one checkpoint (its example comments dropped: the jitter arithmetic above the
table says why this arm is there); each comparison is the preset's first comparison for that
candidate. A preset whose tables cannot be filled in this way (no control arm, an instrument that
names arms) is refused.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path

from forgegate.core.modes import FailureMode
from forgegate.errors import InputError, UsageError
from forgegate.metrics.checkpoints import Ranked
from forgegate.plan.load import parse_plan_text
from forgegate.plan.plan_file import CANDIDATE_ROLES
from forgegate.plan.presets import PRESETS, refuse_existing
from forgegate.textsafe import visible
from forgegate.training.drop_on import DROP_ON_DEFAULT
from forgegate.training.plan_select import TiedCheckpoint, TrainingSelection, select_checkpoints

CONTROL = "base-unadapted"
BACKEND = "transformers"
"""The backend that loads a PEFT checkpoint folder (and a full fine-tune's folder) as it was saved."""
ARM_TABLES = ("arms", "comparisons")
"""Tables this command writes; every other table of the preset is kept as it is."""
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]\s]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^(?P<head>\s*(?P<key>[A-Za-z0-9_-]+)\s*=\s*)(?P<value>\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^#]*?)"
                  r"(?P<pad>\s*)(?P<comment>#.*)?$")


@dataclass
class _Block:
    """A table of the preset: the comment lines right above its header, then the header and its lines."""

    name: str
    array: bool
    lead: list[str]
    body: list[str]


def preset_shape_problem(preset: str) -> str | None:
    """Why ``preset``'s plan cannot take a run's ties as candidate arms, or None."""
    if preset not in PRESETS:
        return f"unknown preset '{preset}': choose one of {', '.join(PRESETS)}"
    why = _shape(preset)
    if why is None:
        return None
    fits = [name for name in PRESETS if _shape(name) is None]
    return (f"preset '{preset}' cannot take a training run's checkpoints as arms: {why}; use "
            f"--preset {' or '.join(fits)}, or write its arms by hand after forgegate plan new")


def _shape(preset: str) -> str | None:
    """What in the preset's tables keeps a list of checkpoints from filling them in, or None."""
    data = tomllib.loads(PRESETS[preset])
    arms = data.get("arms", [])
    if not any(arm.get("role") == "control" for arm in arms):
        return "it has no control arm to compare checkpoints with"
    if not any(arm.get("role") in CANDIDATE_ROLES for arm in arms):
        return "it has no candidate arm"
    if not data.get("comparisons"):
        return "it declares no [[comparisons]]"
    names = {arm.get("name") for arm in arms}
    naming = [f"[instruments.{name}]" for name, table in data.get("instruments", {}).items()
              if any(isinstance(value, str) and value in names for value in table.values())]
    if naming:
        return f"{', '.join(naming)} names its arms, which a list of checkpoints cannot fill in"
    return None


def plan_text(selection: TrainingSelection, base: str, preset: str, out: Path) -> str:
    """The plan's TOML: the preset's text with the run's control, candidates and comparisons."""
    if (problem := preset_shape_problem(preset)) is not None:
        raise UsageError(problem)
    prelude, blocks = _split(PRESETS[preset])
    arms = [b for b in blocks if b.name == "arms"]
    roles = [tomllib.loads("\n".join(b.body))["arms"][0].get("role") for b in arms]
    control = arms[roles.index("control")]
    candidate = arms[next(i for i, role in enumerate(roles) if role in CANDIDATE_ROLES)]
    ship = _ship_roles(selection) if any(b.name == "tiebreak" for b in blocks) else None
    comparison = next(b for b in blocks if b.name == "comparisons")
    base_written = _model_path(base)
    run_name = selection.output_dir.resolve().name or "training-run"
    lines = _intro(selection, preset, out)
    lines += _fill(prelude, {"name": run_name,
                             "description": f"checkpoints of {run_name} tied at the eval_loss minimum, "
                                            f"over {base_written}"}, keep_comments=True)
    written = {"arms": False, "comparisons": False}
    for block in blocks:
        if block.name == "tiebreak":
            if ship is not None:  # the run's own arms: the example's prior names none of them
                lines += block.lead + _fill(block.body, {"prior": None}, keep_comments=True)
                lines += _comment("prior: add the checkpoint your prior favours, e.g. the earlier one (a hypothesis "
                                  "under test: the result says whether the axes bore it out; it never decides)")
                lines += [""]
            continue
        if block.name not in ARM_TABLES:
            lines += block.lead + block.body
            continue
        if written[block.name]:
            continue
        written[block.name] = True
        lines += block.lead
        if block.name == "arms":
            lines += _curve_comments(selection)
            lines += _comment(f"the base the checkpoints were trained from (--base {base})")
            lines += _fill(_table(control), {"name": CONTROL, "backend": BACKEND, "model": base_written,
                                             "adapter": None}, keep_comments=True) + [""]
            for tied in selection.kept:
                lines += _arm_comments(tied, selection)
                values = {**_candidate_values(tied, base_written, out),
                          "role": ship[arm_name(tied)] if ship is not None else "candidate"}
                lines += _fill(_table(candidate), values, keep_comments=False) + [""]
        else:
            for tied in selection.kept:
                lines += _fill(_table(comparison), {"control": CONTROL, "candidate": arm_name(tied)},
                               keep_comments=True) + [""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _ship_roles(selection: TrainingSelection) -> dict[str, str] | None:
    """The spec's roles for the kept ties: the lowest eval_loss is the ship candidate, the rest tied candidates;
    None when fewer than two are kept (nothing to separate: plain candidates, no tiebreak)."""
    if len(selection.kept) < 2:
        return None
    ship = min(selection.kept, key=lambda t: (t.tie.point.eval_loss, -t.step))
    return {arm_name(t): "ship_candidate" if t is ship else "tied_candidate" for t in selection.kept}


def arm_name(tied: TiedCheckpoint) -> str:
    return f"ckpt{tied.step}"


def plan_path_of(folder: Path, out: Path) -> str:
    """``folder`` as the plan at ``out`` names it: relative to the plan's folder when it lies inside it,
    otherwise absolute (the plan then works from wherever it is run)."""
    target = folder.resolve()
    relative = os.path.relpath(target, out.parent.resolve())
    return Path(relative).as_posix() if not relative.startswith("..") else str(target)


def _model_path(model: str) -> str:
    """A local model as an absolute path (an arm's ``model`` is opened from the working directory, not the
    plan's folder); a hub id or a path that does not exist here, as given."""
    path = Path(model).expanduser()
    return str(path.resolve()) if path.exists() and not Path(model).is_absolute() else model


def _candidate_values(tied: TiedCheckpoint, base: str, out: Path) -> dict[str, str | None]:
    if tied.kind == "adapter":
        return {"name": arm_name(tied), "backend": BACKEND, "model": base, "adapter": plan_path_of(tied.folder, out)}
    return {"name": arm_name(tied), "backend": BACKEND, "model": str(tied.folder.resolve()), "adapter": None}


def _intro(selection: TrainingSelection, preset: str, out: Path) -> list[str]:
    return _comment(f"Written by `forgegate plan from-training` from {selection.output_dir} "
                    f"({selection.state_path}): the control and every checkpoint the loss curve cannot "
                    "separate from its minimum, less those whose training probes showed a failure mode. "
                    f"What follows is the '{preset}' preset with its example arms and comparisons replaced "
                    "by these; fill in the author, fixture, reference and corpus, then: "
                    f"forgegate plan lock {out}") + [""]


def _comment(text: str) -> list[str]:
    """``text`` as TOML comment lines (wrapped; control characters shown, never written raw)."""
    return textwrap.wrap(visible(text), width=110, initial_indent="# ", subsequent_indent="#   ",
                         break_long_words=False, break_on_hyphens=False)


def _fmt(value: float) -> str:
    return f"{value:.2e}" if 0 < abs(value) < 0.001 else f"{value:.4f}"


def _jitters(row: Ranked) -> str:
    return f"{row.jitters:.2f} jitters" if row.jitters is not None else "the jitter is 0: only an exact tie"


def _curve_comments(selection: TrainingSelection) -> list[str]:
    ties = selection.ties
    lines = _comment(f"The curve: {len(ties.points)} eval points, median neighbour jitter {_fmt(ties.jitter)} "
                     "(the median absolute difference between neighbouring eval points); minimum eval_loss "
                     f"{_fmt(ties.best.eval_loss)} at step {ties.best.step}.")
    lines += _comment("Tied (within one jitter of the minimum): steps "
                      f"{', '.join(str(r.point.step) for r in ties.ties)}.")
    if ties.others:
        nearest, last = ties.others[0], max(ties.others, key=lambda r: r.point.step)
        lines += _comment(f"Outside one jitter: {len(ties.others)} points; the nearest, step "
                          f"{nearest.point.step}, at +{_fmt(nearest.above_min)} ({_jitters(nearest)}); the last, "
                          f"step {last.point.step}, at +{_fmt(last.above_min)} ({_jitters(last)}).")
    if selection.dropped:
        watched = ", ".join(m.value for m in selection.drop_on)
        lines += _comment(f"Dropped by their training probes (watching {watched}; {selection.baseline_note}):")
        for t in selection.dropped:
            lines += _comment(f"  step {t.step} ({t.folder.name}): {t.probe_note}")
    return [*lines, ""]


def _arm_comments(tied: TiedCheckpoint, selection: TrainingSelection) -> list[str]:
    row, ties = tied.tie, selection.ties
    epoch = f", epoch {row.point.epoch:.3f}" if row.point.epoch is not None else ""
    where = ("the curve's minimum" if row.point.step == ties.best.step else
             f"+{_fmt(row.above_min)} above the minimum ({_fmt(ties.best.eval_loss)} at step {ties.best.step})")
    what = ("a LoRA adapter (adapter_config.json) over the base" if tied.kind == "adapter" else
            "a full fine-tune: the whole model is this folder")
    return (_comment(f"step {row.point.step}{epoch}: eval_loss {_fmt(row.point.eval_loss)}, {where}, "
                     f"{_jitters(row)} (median neighbour jitter {_fmt(ties.jitter)} over {len(ties.points)} "
                     "eval points): a tie")
            + _comment(f"{tied.folder.name}: {what}; {tied.probe_note}"))


def _split(text: str) -> tuple[list[str], list[_Block]]:
    """The top-level lines, then each table with the comment lines right above its header."""
    lines = text.splitlines()
    headers = [(i, m) for i, line in enumerate(lines) if (m := _HEADER.match(line)) is not None]
    starts = []
    for index, _ in headers:
        start = index
        while start > 0 and lines[start - 1].lstrip().startswith("#"):
            start -= 1
        starts.append(start)
    blocks = []
    for n, (index, match) in enumerate(headers):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        blocks.append(_Block(match.group(1), lines[index].lstrip().startswith("[["), lines[starts[n]:index],
                             lines[index:end]))
    return lines[:starts[0]] if starts else lines, blocks


def _table(block: _Block) -> list[str]:
    """A table's lines without the blank lines that end it."""
    body = list(block.body)
    while body and not body[-1].strip():
        body.pop()
    return body


def _fill(lines: list[str], values: dict[str, str | None], *, keep_comments: bool) -> list[str]:
    """``lines`` with each key of ``values`` set (None: removed; a key the lines lack goes after the last key
    set before it). A kept comment stays in its column; with ``keep_comments`` False, comments after a
    value and whole-line comments inside the table are dropped."""
    result: list[str] = []
    placed: set[str] = set()
    for line in lines:
        match = _KEY.match(line)
        if match is None:
            if keep_comments or not line.lstrip().startswith("#"):
                result.append(line)
            continue
        key = match.group("key")
        if key in values:
            placed.add(key)
            if values[key] is None:
                continue
            line = _set(match, _toml_string(str(values[key])), keep_comments)
        elif not keep_comments:
            line = _set(match, match.group("value"), False)
        result.append(line)
    order = list(values)
    for key in order:
        if key in placed or values[key] is None:
            continue
        before = [k for k in order[:order.index(key)] if k in placed]
        at = max((i for i, line in enumerate(result) if (m := _KEY.match(line)) and m.group("key") in before),
                 default=len(result) - 1)
        result.insert(at + 1, f"{key} = {_toml_string(str(values[key]))}")
        placed.add(key)
    return result


def _set(match: re.Match[str], value: str, keep_comment: bool) -> str:
    line = match.group("head") + value
    comment = match.group("comment")
    if not keep_comment or not comment:
        return line
    column = match.start("comment")
    return (line.ljust(column) if len(line) < column else line + "   ") + comment


def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; DEL, which JSON leaves raw, is escaped too)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def write_plan_from_training(output_dir: Path, base: str, preset: str, out: Path, *, force: bool = False,
                             drop_on: tuple[FailureMode, ...] = DROP_ON_DEFAULT) -> TrainingSelection:
    """Decide the run's checkpoints and write the plan to ``out``; nothing is written on any refusal."""
    if (problem := preset_shape_problem(preset)) is not None:
        raise UsageError(problem)
    refuse_existing(out, force)
    selection = select_checkpoints(output_dir, base, drop_on)
    text = plan_text(selection, base, preset, out)
    try:
        parse_plan_text(out, text)
    except InputError as exc:  # the text is derived from a preset that validates: this is forgegate's bug
        raise RuntimeError(f"the plan derived from preset '{preset}' does not validate: {exc}") from exc
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return selection


def summary_lines(selection: TrainingSelection, out: Path) -> list[str]:
    """What the command prints: the curve, each tie's fate and why, the plan written."""
    ties = selection.ties
    lines = [selection.state_note] if selection.state_note else []
    lines.append(f"{selection.state_path}: {len(ties.points)} eval points; median neighbour jitter "
                 f"{_fmt(ties.jitter)}; minimum eval_loss {_fmt(ties.best.eval_loss)} at step {ties.best.step}")
    lines.append(f"{len(ties.ties)} inside one jitter of the minimum: "
                 f"{', '.join(str(r.point.step) for r in ties.ties)}; probes: {selection.baseline_note}")
    for tied in sorted((*selection.kept, *selection.dropped), key=lambda t: t.step):
        fate = "DROPPED" if tied.dropped else f"kept as {arm_name(tied)}"
        lines.append(f"  step {tied.step} (+{_fmt(tied.tie.above_min)}, {_jitters(tied.tie)}): {fate}: "
                     f"{tied.probe_note}")
    arms = ", ".join(arm_name(t) for t in selection.kept)
    lines.append(f"wrote {out}: {CONTROL} (control) and {len(selection.kept)} candidate arm(s): {arms}")
    lines.append(f"fill in the author, fixture, reference and corpus paths, then: forgegate plan lock {out}")
    return [visible(line) for line in lines]
