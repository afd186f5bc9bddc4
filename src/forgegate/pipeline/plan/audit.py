"""``plan lock`` with the plan's leak audit on the record (lv-hemingway v2 § 6).

The plan's ``[leak_audit]`` names either a ``forgegate audit leak --json`` result (read, validated, its sha256
taken) or the audit's inputs (the audit runs here, with its controls). ``gate.audit.lock_audit_reason`` decides
whether the plan may lock on it; the lock then carries the record (sha256, gate, finding, origin).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from forgegate.audit.outcome import Control, finding_of
from forgegate.core.audit_finding import AuditFinding
from forgegate.core.verdict import Gate, Reason
from forgegate.errors import InputError
from forgegate.gate.audit import audit_verdict, lock_audit_reason
from forgegate.jsonio import (
    MAX_CORPUS_FILE_BYTES,
    JsonProblem,
    decode_utf8_or_input_error,
    parse_json_strict,
    read_bytes_or_input_error,
)
from forgegate.pipeline.audits import leak_result
from forgegate.pipeline.plan.confirmatory import check_confirmatory
from forgegate.pipeline.plan.fixture_audit import audited_pairs, check_fixture_audit, require_no_pairs_fixture
from forgegate.pipeline.plan.quality_scoring import check_declarations_at_lock
from forgegate.plan.load import LoadedPlan, load_plan
from forgegate.plan.lock import LockRefusedError, PlanLock, lock_plan
from forgegate.plan.preflight import LeakAudit
from forgegate.results.audit import LeakAuditResult

RAN_AT_LOCK = "ran at lock"


class AuditLockRefusedError(LockRefusedError):
    """The plan's leak audit found a leak (FAIL) or failed a control (INVALID): the plan does not lock.
    ``forgegate plan lock`` exits with the audit's gate word (1 FAIL, 4 INVALID)."""

    def __init__(self, message: str, gate: Gate) -> None:
        super().__init__(message)
        self.gate = gate


@dataclass(frozen=True)
class _Audited:
    """The leak audit as the lock records it, and the bytes of every file it read (by path as the plan writes
    it): the lock hashes those bytes, so what was audited is what the plan's hash covers."""

    result: LeakAuditResult
    sha256: str
    origin: str
    read: dict[str, bytes]


def _from_file(loaded: LoadedPlan, audit: LeakAudit) -> _Audited:
    assert audit.result is not None
    path = loaded.resolve(audit.result)
    where = ("leak_audit", "result")
    if not path.exists():
        raise loaded.error(where, f"file not found: {audit.result} (resolved to {path})",
                           hint="write it with forgegate audit leak ... --json FILE, or name the audit's inputs")
    try:  # read once: the bytes parsed are the bytes hashed (here and in the lock)
        raw = read_bytes_or_input_error(path, what="leak audit result")
        text = decode_utf8_or_input_error(path, raw, bom=True)
    except InputError as exc:  # a device, a FIFO, a folder, over the size limit, not UTF-8: said at the plan's line
        raise loaded.error(where, f"{audit.result} (resolved to {path}): {exc.message}",
                           hint="write it with forgegate audit leak ... --json FILE") from None
    try:
        payload = parse_json_strict(text)  # a repeated key or a result nested 100,000 deep: refused
        kind = payload.get("kind") if isinstance(payload, dict) else None
        if kind != "leak_audit":
            raise loaded.error(where, f"{audit.result} is not a forgegate audit leak --json result (its kind is "
                               f"{kind!r}, not 'leak_audit')",
                               hint="write it with forgegate audit leak ... --json FILE")
        result = LeakAuditResult.model_validate(payload)
    except (json.JSONDecodeError, JsonProblem, UnicodeDecodeError, ValidationError) as exc:
        if isinstance(exc, ValidationError):
            first = exc.errors()[0]
            why = f"field '{'.'.join(str(p) for p in first['loc']) or '(top)'}': {first['msg']}"
        else:
            why = str(exc)
        raise loaded.error(where, f"{audit.result} is not a forgegate audit leak --json result: {why}",
                           hint="write it with forgegate audit leak ... --json FILE") from None
    _check_recomputed(loaded, result, audit.result)
    return _Audited(result, hashlib.sha256(raw).hexdigest(), audit.result, {audit.result: raw})


def _check_recomputed(loaded: LoadedPlan, result: LeakAuditResult, name: str) -> None:
    """A result file's ``gate`` and ``finding`` are recomputed from its own splits and controls (the rules of
    ``audit.leak`` and ``gate.audit.audit_verdict``); a file whose words disagree was edited, and is refused."""
    controls = result.controls
    found, surfaces = controls.surfaces_found
    detected, planted = controls.planted_detected
    finding = finding_of(any(s.leaking_instruction or s.leaking_response for s in result.splits.values()),
                         AuditFinding.LEAK)
    recomputed = audit_verdict(
        (Control("surfaces_found", surfaces > 0 and found == surfaces, f"{found}/{surfaces} surfaces found"),
         Control("nonce_absent", controls.nonce_absent, "nonce absent from both trees"),
         Control("planted_detected", planted > 0 and detected == planted, f"{detected}/{planted} planted names")),
        finding)
    word = finding.value
    if (result.gate, result.finding) != (recomputed.gate, word):
        raise loaded.error(("leak_audit", "result"),
                           f"{name} says gate {result.gate.value}, finding {result.finding}, but its own splits and "
                           f"controls give {recomputed.gate.value}, {word}: the file was edited after the audit wrote "
                           "it", hint="run forgegate audit leak ... --json FILE again, or name the audit's inputs")


def _run(loaded: LoadedPlan, audit: LeakAudit) -> _Audited:
    from forgegate.audit import run_leak_audit

    assert audit.source is not None
    pairs = {written: read_bytes_or_input_error(loaded.resolve(written), what="pairs file",  # read once
                                                limit=MAX_CORPUS_FILE_BYTES) for written in audit.pairs}
    report = run_leak_audit(loaded.resolve(audit.source), [loaded.resolve(p) for p in audit.renamed],
                            [loaded.resolve(p) for p in audit.pairs], seed=audit.seed,
                            rename_map=loaded.resolve(audit.map) if audit.map is not None else None,
                            planted=audit.planted, glob=audit.glob,
                            pair_bytes={loaded.resolve(written): raw for written, raw in pairs.items()})
    result = leak_result(report)
    canonical = json.dumps(result.to_json(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return _Audited(result, hashlib.sha256(canonical.encode("utf-8")).hexdigest(), RAN_AT_LOCK, pairs)


def leak_audit_on_record(loaded: LoadedPlan, read: dict[str, bytes] | None = None
                         ) -> tuple[dict[str, str], Reason] | None:
    """The plan's leak audit (read or run) as the lock records it, and whether the plan may lock on it.
    ``read`` (given): filled with the bytes of the files the audit read, by path as written, for the lock."""
    audit = loaded.plan.leak_audit
    if audit is None:
        return None
    audited = _from_file(loaded, audit) if audit.result is not None else _run(loaded, audit)
    result, digest, origin = audited.result, audited.sha256, audited.origin
    if read is not None:
        read.update(audited.read)
    leaking = {name: (split.leaking_instruction + split.leaking_response, split.pairs)
               for name, split in result.splits.items()}
    reason = lock_audit_reason(result.gate, result.finding, origin, leaking, audit.clean_splits)
    # the fixture's own pairs, clean (hashed from the bytes the audit read)
    fixture = check_fixture_audit(loaded, result, audited_pairs(loaded, result, audited.read))
    if fixture is not None and reason.outcome is Gate.PASS:
        reason = fixture
    record = {"sha256": digest, "gate": result.gate.value, "finding": result.finding, "origin": origin,
              "detail": reason.detail}
    return record, reason


def lockable(loaded: LoadedPlan, audited: dict[str, bytes], plan_path: Path | str | None = None
             ) -> tuple[dict[str, str], Reason] | None:
    """Every refusal ``plan lock`` makes before it writes, in one place, so that ``plan check`` says the same:
    the quality declarations, the confirmatory footing, the pairs fixture without its audit, and the leak audit's
    verdict (AuditLockRefusedError unless PASS). Returns the audit's record and reason (None without one);
    ``audited`` gets the bytes the audit read."""
    check_declarations_at_lock(loaded)  # Q_task / Q_fact against the fixture's tasks, before anything freezes
    check_confirmatory(loaded)  # a confirmatory plan on exploratory footing does not lock
    on_record = leak_audit_on_record(loaded, audited)
    if on_record is None:
        require_no_pairs_fixture(loaded)  # a fixture drawn from pairs locks only with their audit
    if on_record is not None and on_record[1].outcome is not Gate.PASS:
        reason = on_record[1]
        raise AuditLockRefusedError(f"plan {plan_path or loaded.path} is not locked: {reason.rule}: "
                                    f"{reason.outcome.value}: {reason.detail}", reason.outcome)
    return on_record


def lock_with_audit(plan_path: Path | str, *, run_has_generations: bool = False,
                    stored_plan_hash: str | None = None) -> tuple[PlanLock, Reason | None]:
    """``forgegate plan lock``: the plan's leak audit judged first (refused unless PASS), then the lock with it."""
    audited: dict[str, bytes] = {}
    on_record = lockable(load_plan(plan_path), audited, plan_path)
    lock = lock_plan(plan_path, run_has_generations=run_has_generations, stored_plan_hash=stored_plan_hash,
                     leak_audit=on_record[0] if on_record is not None else None, read_already=audited)
    return lock, on_record[1] if on_record is not None else None
