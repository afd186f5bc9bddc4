"""The plan lock: a content hash written beside the plan; after the first generation the plan cannot move.

``PLAN.lock`` (JSON) holds the sha256 of the plan's canonical content (its parsed
TOML and the sha256 of every file it names: comments and spacing do not count,
every value and every input byte does) and a copy of the plan's text, so a refusal
can print the diff. Re-locking is allowed until a run has its first generation.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from forgegate.core.version import __version__
from forgegate.errors import ForgegateError, InputError
from forgegate.jsonio import JsonProblem, parse_json_strict, read_text_or_input_error, write_json_atomic
from forgegate.plan.inputs import input_digests, read_inputs
from forgegate.plan.load import LoadedPlan, load_plan

RULE_DOES_NOT_MOVE = "the run is wrong and gets re-run; the rule does not move"
LockFormat = Literal["forgegate-plan-lock/1"]
LOCK_FORMAT: LockFormat = "forgegate-plan-lock/1"


class LockRefusedError(ForgegateError):
    """The plan changed after its run's first generation (or was never locked)."""

    def __init__(self, message: str, diff: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.diff = diff

    def __str__(self) -> str:
        return f"{self.message}\n{self.diff}" if self.diff else self.message


class PlanLock(BaseModel):
    """A lock as written (``PLAN.lock``, JSON): the hash, the inputs' digests and the locked text. The file is
    this model's dump (:meth:`to_file`) and is read back through it (:func:`read_lock`): one shape, no mirror."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: LockFormat = LOCK_FORMAT
    plan_hash: str
    plan_file: str
    locked_at: str
    forgegate_version: str
    inputs: dict[str, str]
    text: str
    leak_audit: dict[str, str] | None = None
    """The plan's ``[leak_audit]`` on the record: sha256, gate, finding, origin, detail (``pipeline.plan.audit``)."""
    sealed: dict[str, str] | None = None
    """Files the plan names that are written after the run's generations (E3's aggregate-coverage file): the path
    as the plan writes it -> the sha256 of the bytes first scored. Outside the plan hash (they cannot exist before
    the run); a later scoring of changed bytes is refused (``seal_input``)."""

    def to_file(self) -> dict[str, Any]:
        """What the lock file holds (``leak_audit`` only when there is one, as locks have always been written)."""
        dumped: dict[str, Any] = self.model_dump(mode="json", exclude_none=True)
        return dumped


@dataclass(frozen=True)
class LockedPlan:
    """A plan that passed ``check_lock``: the validated plan and the hash every report carries."""

    loaded: LoadedPlan
    lock: PlanLock
    contents: Mapping[str, bytes] = field(default_factory=dict)
    """Every input's bytes as the lock check read and hashed them (keyed by the path as written)."""

    @property
    def plan_hash(self) -> str:
        return self.lock.plan_hash

    def input_bytes(self, written: str) -> bytes:
        """Input ``written`` (a path as the plan writes it) as it was when its hash was checked: the run reads
        these bytes, never the file again."""
        try:
            return self.contents[written]
        except KeyError:
            raise KeyError(f"'{written}' is not an input of plan {self.loaded.path} that the lock check read") from None


def lock_path(plan_path: Path | str) -> Path:
    plan_path = Path(plan_path)
    return plan_path.with_name(plan_path.name + ".lock")


def canonical_hash(data: dict[str, Any], inputs: dict[str, str]) -> str:
    canonical = json.dumps({"plan": data, "inputs": inputs}, sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def current_lock(loaded: LoadedPlan, contents: Mapping[str, bytes] | None = None) -> PlanLock:
    """What the lock of the plan as it is now would hold (over ``contents`` when the inputs were read already)."""
    inputs = input_digests(loaded, contents)
    return PlanLock(plan_hash=canonical_hash(loaded.data, inputs), plan_file=loaded.path.name,
                    locked_at=datetime.now(UTC).isoformat(timespec="seconds"),
                    forgegate_version=__version__, inputs=inputs, text=loaded.text)


def plan_hash(plan_path: Path | str) -> str:
    """The content hash of the plan as it is now (validated; its input files must exist)."""
    return current_lock(load_plan(plan_path)).plan_hash


def read_lock(plan_path: Path | str) -> PlanLock | None:
    path = lock_path(plan_path)
    if not path.exists() and not path.is_symlink():
        return None
    try:
        payload = parse_json_strict(read_text_or_input_error(path, what="lock file", bom=False))
    except (json.JSONDecodeError, JsonProblem) as exc:
        raise InputError(path, f"lock file is not valid JSON: {exc}",
                         hint="do not edit a lock by hand; re-lock before the first generation") from None
    if not isinstance(payload, dict) or payload.get("format") != LOCK_FORMAT:
        raise InputError(path, f"not a forgegate plan lock (format {LOCK_FORMAT})")
    try:
        return PlanLock.model_validate(payload)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        raise InputError(path, f"not a plan lock: {error['msg']}", field=field,
                         hint="do not edit a lock by hand; re-lock before the first generation") from None


def lock_diff(locked: PlanLock, now: PlanLock, plan_path: Path) -> str:
    """A unified diff of the plan text, then every input file whose bytes changed."""
    lines = list(difflib.unified_diff(
        locked.text.splitlines(keepends=True), now.text.splitlines(keepends=True),
        fromfile=f"{plan_path.name} (locked {locked.locked_at}, {locked.plan_hash[:12]})",
        tofile=f"{plan_path.name} (now, {now.plan_hash[:12]})"))
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    for name in sorted(set(locked.inputs) | set(now.inputs)):
        before, after = locked.inputs.get(name), now.inputs.get(name)
        if before != after:
            text += f"input {name}: sha256 {before or '(absent)'} -> {after or '(absent)'}\n"
    return text


def _changed_refusal(plan_path: Path, locked: PlanLock, now: PlanLock) -> LockRefusedError:
    return LockRefusedError(
        f"plan {plan_path} changed after its run's first generation "
        f"(locked {locked.plan_hash[:12]}, now {now.plan_hash[:12]}): {RULE_DOES_NOT_MOVE}",
        diff=lock_diff(locked, now, plan_path))


def lock_plan(plan_path: Path | str, *, run_has_generations: bool = False,
              stored_plan_hash: str | None = None, leak_audit: dict[str, str] | None = None,
              read_already: Mapping[str, bytes] | None = None) -> PlanLock:
    """Write ``PLAN.lock``. Re-locking a changed plan is refused once its run has generations.

    ``stored_plan_hash`` is the hash the run store recorded when it generated: it decides even when the
    ``.lock`` file was deleted, so deleting the lock cannot unfreeze a plan whose run has begun.
    ``leak_audit`` is the record of the plan's ``[leak_audit]``, already judged lockable by the caller
    (``pipeline.plan.audit.lock_with_audit``); a plan that names one cannot lock without it. ``read_already``:
    inputs the caller read (the leak audit's files), hashed as they were audited instead of read again.
    """
    plan_path = Path(plan_path)
    loaded = load_plan(plan_path)
    if loaded.plan.leak_audit is not None and leak_audit is None:
        raise LockRefusedError(f"plan {plan_path} names a [leak_audit]: lock it with forgegate plan lock, which "
                               "puts the audit on the record")
    contents = None if read_already is None else read_inputs(loaded, read_already)
    now = current_lock(loaded, contents).model_copy(update={"leak_audit": leak_audit})
    locked = read_lock(plan_path)
    if run_has_generations and stored_plan_hash is not None and stored_plan_hash != now.plan_hash:
        raise LockRefusedError(
            f"plan {plan_path} changed after its run's first generation (the run store was generated under "
            f"plan hash {stored_plan_hash[:12]}, the plan now hashes to {now.plan_hash[:12]}): "
            f"{RULE_DOES_NOT_MOVE}", diff=lock_diff(locked, now, plan_path) if locked is not None else "")
    if locked is not None and locked.plan_hash == now.plan_hash and locked.leak_audit == leak_audit:
        return locked
    if locked is not None and run_has_generations and locked.plan_hash != now.plan_hash:
        raise _changed_refusal(plan_path, locked, now)
    if locked is not None and locked.plan_hash == now.plan_hash:  # a re-lock keeps what its run sealed
        now = now.model_copy(update={"sealed": locked.sealed})
    write_json_atomic(lock_path(plan_path), now.to_file())
    return now


def seal_input(locked: LockedPlan, written: str, raw: bytes, what: str) -> str:
    """Seal ``written`` (a file the plan names, written after its run's generations) into the plan's lock the first
    time it is scored; after that, bytes that differ from the sealed ones are refused (exit 2), saying which file
    changed and what to do. Returns the sha256 of ``raw``."""
    digest = hashlib.sha256(raw).hexdigest()
    plan_path = locked.loaded.path
    current = read_lock(plan_path) or locked.lock
    sealed = dict(current.sealed or {})
    before = sealed.get(written)
    if before is None:
        sealed[written] = digest
        write_json_atomic(lock_path(plan_path), current.model_copy(update={"sealed": sealed}).to_file())
        return digest
    if before != digest:
        raise LockRefusedError(
            f"{locked.loaded.resolve(written)} ({what}, named by plan {plan_path.name}) changed after the run first "
            f"scored it: {lock_path(plan_path).name} sealed sha256 {before[:12]}, the file is now {digest[:12]}. "
            f"Put back the file that was scored (sha256 {before}); coverage judged again is a new analysis: a new "
            f"plan and run, reported as exploratory beside this one ({RULE_DOES_NOT_MOVE})")
    return digest


def check_lock(plan_path: Path | str, run_has_generations: bool) -> LockedPlan:
    """The plan, if it is locked as it is now; otherwise a refusal that says what to do.

    Unlocked: refused (lock it first). Changed since its lock: before any generation,
    refused with the hint to re-lock; after the first generation, refused with the
    diff and "the run is wrong and gets re-run; the rule does not move".
    """
    plan_path = Path(plan_path)
    loaded = load_plan(plan_path)
    locked = read_lock(plan_path)
    if locked is None:
        raise LockRefusedError(f"plan {plan_path} is not locked: a plan is frozen before anything runs "
                               f"(forgegate plan lock {plan_path})")
    contents = read_inputs(loaded)
    now = current_lock(loaded, contents)
    if loaded.plan.leak_audit is not None and locked.plan_hash == now.plan_hash and locked.leak_audit is None:
        raise LockRefusedError(f"plan {plan_path} names a [leak_audit] but its lock carries no audit record: "
                               f"re-lock it (forgegate plan lock {plan_path}) to put the audit on the record")
    if locked.plan_hash != now.plan_hash:
        if run_has_generations:
            raise _changed_refusal(plan_path, locked, now)
        raise LockRefusedError(
            f"plan {plan_path} changed since it was locked and no generation exists yet: re-lock it "
            f"(forgegate plan lock {plan_path}) to accept the change", diff=lock_diff(locked, now, plan_path))
    return LockedPlan(loaded=loaded, lock=locked, contents=contents)
