"""The files a plan names (fixture, reference, corpus, gate config, codebook): resolved, checked, hashed."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from forgegate.backends.adapters import adapter_base_problem, adapter_problem
from forgegate.jsonio import MAX_CORPUS_FILE_BYTES, read_bytes_or_input_error
from forgegate.plan.load import LoadedPlan

BUNDLED_GLOSS = "gloss-v2"
"""The name that selects forgegate's bundled GLOSS v2 battery or gate config instead of a path."""


@dataclass(frozen=True)
class PlanInput:
    """One file the plan depends on: where the plan names it, as written, and resolved."""

    loc: tuple[str | int, ...]
    written: str
    path: Path


def is_bundled(value: str) -> bool:
    return value == BUNDLED_GLOSS


def plan_inputs(loaded: LoadedPlan) -> list[PlanInput]:
    """Every file the plan names, in a fixed order (bundled names are not files and are left out)."""
    plan = loaded.plan
    found: list[tuple[tuple[str | int, ...], str]] = []
    if plan.fixture.path is not None:
        found.append((("fixture", "path"), plan.fixture.path))
    if plan.fixture.battery is not None and not is_bundled(plan.fixture.battery):
        found.append((("fixture", "battery"), plan.fixture.battery))
    inst = plan.instruments
    if inst.voice is not None:
        found.append((("instruments", "voice", "reference"), inst.voice.reference))
        for label, contrast in inst.voice.contrasts.items():
            found.append((("instruments", "voice", "contrasts", label), contrast))
    if inst.memorization is not None:
        for index, corpus in enumerate(inst.memorization.corpus):
            found.append((("instruments", "memorization", "corpus", index), corpus))
    if inst.gloss is not None and not is_bundled(inst.gloss.gate_config):
        found.append((("instruments", "gloss", "gate_config"), inst.gloss.gate_config))
    if inst.semantic is not None:
        for field in ("codebook", "relevance"):
            value = getattr(inst.semantic, field)
            if value is not None:
                found.append((("instruments", "semantic", field), value))
        if inst.semantic.validation is not None:  # the key is locked; the sheet may be filled after the lock
            found.append((("instruments", "semantic", "validation", "key"), inst.semantic.validation.key))
            if inst.semantic.confirmatory:  # ... except in a confirmatory plan: filled before it, and locked
                found.append((("instruments", "semantic", "validation", "sheet"), inst.semantic.validation.sheet))
        if inst.semantic.order is not None:
            found += [(("instruments", "semantic", "order", "confirmed", name), path)
                      for name, path in inst.semantic.order.confirmed.items()]
    audit = plan.leak_audit
    if audit is not None:
        if audit.result is not None:
            found.append((("leak_audit", "result"), audit.result))
        found += [(("leak_audit", "pairs", index), pairs) for index, pairs in enumerate(audit.pairs)]
        if audit.map is not None:
            found.append((("leak_audit", "map"), audit.map))
    return [PlanInput(loc, written, loaded.resolve(written)) for loc, written in found]


def check_inputs(loaded: LoadedPlan) -> list[PlanInput]:
    """Every named file exists and is a file; the first that is not is an error at its line."""
    inputs = plan_inputs(loaded)
    for item in inputs:
        if not item.path.is_file():
            what = "is a folder, not a file" if item.path.is_dir() else "file not found"
            raise loaded.error(item.loc, f"{what}: {item.written} (resolved to {item.path})",
                               hint="paths in a plan are relative to the plan's own folder")
    return inputs


def check_adapters(loaded: LoadedPlan) -> list[Path]:
    """Every arm's adapter (relative to the plan's folder) is one its backend loads, over the arm's model;
    else an error at its line."""
    found: list[Path] = []
    for index, arm in enumerate(loaded.plan.arms):
        if arm.adapter is None:
            continue
        folder = loaded.resolve(arm.adapter)
        problem = adapter_problem(folder, arm.backend)
        if problem is None and folder.is_dir():
            problem = adapter_base_problem(folder, arm.model)
        if problem is not None:
            raise loaded.error(("arms", index, "adapter"), f"{problem} (written '{arm.adapter}')",
                               hint="an adapter path is relative to the plan's own folder")
        found.append(folder)
    return found


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_inputs(loaded: LoadedPlan, already: Mapping[str, bytes] | None = None) -> dict[str, bytes]:
    """``{path as written: bytes}`` of every input, each file read once: what the plan hash covers is what the
    run then reads (a second read could see a file changed in between). ``already``: inputs the caller read
    before (the leak audit at ``plan lock``): their bytes are the ones hashed, and they are not read again."""
    done = already or {}
    return {item.written: done[item.written] if item.written in done
            else read_bytes_or_input_error(item.path, what="plan input", hint="fix the path in the plan",
                                           limit=MAX_CORPUS_FILE_BYTES)
            for item in check_inputs(loaded)}


def input_digests(loaded: LoadedPlan, contents: Mapping[str, bytes] | None = None) -> dict[str, str]:
    """``{path as written: sha256}`` of every input (of ``contents`` when the caller read them already): a
    changed fixture or corpus changes the plan's hash."""
    if contents is None:
        return {item.written: sha256_file(item.path) for item in check_inputs(loaded)}
    return {written: hashlib.sha256(raw).hexdigest() for written, raw in contents.items()}
