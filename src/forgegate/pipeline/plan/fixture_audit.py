"""No gate without the leak audit where the spec says so: a fixture drawn from pairs locks only with their audit.

lv-hemingway v2 § 6: "val pairs — 0 of 200. The fixture is drawn from these, so the eval beats are clean and the
gate is unconfounded. This is why the gate runs at all." A plan whose fixture carries the builder's record
(``fixture.provenance``) locks only when its ``[leak_audit]`` audited that very pairs file (same sha256) and shows
the fixture's split clean. ``pipeline.plan.audit.lock_with_audit`` calls these before it locks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from forgegate.core.verdict import Reason
from forgegate.fixture.provenance import FixtureProvenance, read_provenance, record_path, sha256_bytes_of
from forgegate.gate.audit import fixture_split_reason
from forgegate.plan.load import LoadedPlan
from forgegate.plan.lock import LockRefusedError
from forgegate.results.audit import LeakAuditResult


def fixture_provenance(loaded: LoadedPlan) -> FixtureProvenance | None:
    """The builder's record of the plan's fixture, checked to describe the fixture as it is now."""
    if loaded.plan.fixture.path is None:
        return None
    fixture = loaded.resolve(loaded.plan.fixture.path)
    record = read_provenance(fixture)
    if record is not None and fixture.is_file() and sha256_bytes_of(fixture) != record.fixture_sha256:
        raise LockRefusedError(f"plan {loaded.path} is not locked: {fixture} changed after forgegate fixture build "
                               f"drew it from {record.pairs} ({record_path(fixture).name} records other bytes): "
                               "rebuild the fixture, or delete the record if it was not built from pairs")
    return record


def require_no_pairs_fixture(loaded: LoadedPlan) -> None:
    """A plan without ``[leak_audit]`` is refused when its fixture was drawn from a pairs file."""
    record = fixture_provenance(loaded)
    if record is not None:
        raise LockRefusedError(
            f"plan {loaded.path} is not locked: its fixture was drawn from {record.pairs} (split "
            f"'{record.split}', sha256 {record.pairs_sha256[:12]}), and no gate runs without the leak audit of "
            "that file (lv-hemingway v2 § 6): add [leak_audit] with that pairs file and "
            f"clean_splits = [\"{record.split}\"]")


def check_fixture_audit(loaded: LoadedPlan, result: LeakAuditResult, audited: dict[str, str] | None
                        ) -> Reason | None:
    """The audit covers the fixture's pairs file (by sha256) and shows the fixture's split clean.

    ``audited``: the audited pairs files and their sha256 (run at lock: hashed here; a result file: what it
    recorded, None when it predates the record). A structural mismatch is bad input (file:line); a leak in the
    fixture's split is the audit's finding, FAIL, returned as the lock's reason (None: nothing to add).
    """
    record = fixture_provenance(loaded)
    if record is None:
        return None
    audit = loaded.plan.leak_audit
    assert audit is not None
    if audited is None:
        raise loaded.error(("leak_audit", "result"), "the leak audit result records no sha256 of the pairs it "
                           f"audited, so nothing shows it audited {record.pairs}, the fixture's pairs file",
                           hint="re-run forgegate audit leak --json (it records them), or name the audit's inputs")
    if record.pairs_sha256 not in audited.values():
        raise loaded.error(("leak_audit",), f"the leak audit did not audit the fixture's pairs file {record.pairs} "
                           f"(sha256 {record.pairs_sha256[:12]}); it audited "
                           + (", ".join(f"{name} ({digest[:12]})" for name, digest in audited.items()) or "none"),
                           hint="audit the very file forgegate fixture build drew the fixture from")
    if audit.clean_splits is not None and record.split not in audit.clean_splits:
        raise loaded.error(("leak_audit", "clean_splits"), f"clean_splits does not name '{record.split}', the "
                           "split the fixture was drawn from", hint=f"clean_splits = [\"{record.split}\"]")
    split = result.splits.get(record.split)
    if split is None:
        raise loaded.error(("leak_audit",), f"the leak audit has no '{record.split}' split, the split the fixture "
                           f"was drawn from (audited: {', '.join(result.splits) or 'none'})")
    return fixture_split_reason(record.split, split.leaking_instruction + split.leaking_response, split.pairs)


def audited_pairs(loaded: LoadedPlan, result: LeakAuditResult,
                  audited: Mapping[str, bytes] | None = None) -> dict[str, str] | None:
    """The pairs the plan's leak audit covered: when ``plan lock`` ran it, the sha256 of the bytes it audited
    (``audited``, by path as written; read here only without them), else the result's record."""
    audit = loaded.plan.leak_audit
    assert audit is not None
    if audit.result is None:
        return {p: hashlib.sha256(audited[p]).hexdigest() if audited is not None and p in audited
                else sha256_bytes_of(loaded.resolve(p)) for p in audit.pairs}
    return result.pairs_sha256
