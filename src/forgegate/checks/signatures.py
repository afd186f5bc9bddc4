"""GLOSS v2's v9 failure-mode signatures, each by the spec's definition: the one function every reader calls.

``eval --check-failure-modes`` (scoring a run), ``graduate`` and ``lineage`` (reading results and records) and the
failure report (the result's ``failure_mode_signatures``) all take the signatures from
:func:`signatures_present`. The rule (a signature present is a FAIL) is ``forgegate.gate.signatures``.

A signature is not an item's label. STOP_FAILURE's signature is "Every response runs to exactly max_tokens. No
clean termination", detected by "LX-STOP test cases measuring termination distribution": it is present only when
every LX-STOP answer ran to its cap (``checks.stop_distribution``). One capped answer is labelled STOP_FAILURE and
fails its own item, so its category passes or fails by the category rule, as the gate says; it is not the
signature. The other item-scope signatures (IDENTITY_LOOP, RUNAWAY_LOOP, WALL_COLLAPSE, STYLE_SUBSTANCE) are one
response showing them: their signatures are written of "Response", "output", "prompt", one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from forgegate.checks.stop_distribution import StopDistribution
from forgegate.core.failure_modes import load_failure_modes
from forgegate.core.modes import FailureMode

DISTRIBUTION_SIGNATURES: frozenset[str] = frozenset({FailureMode.STOP_FAILURE})
"""Signatures read from a distribution of answers, never from one answer's label."""


class _Labelled(Protocol):
    @property
    def failure_modes(self) -> tuple[str, ...]: ...


def labels_of(result: _Labelled | Mapping[str, object]) -> tuple[str, ...]:
    """The failure labels of a scored item, or of an item of a result JSON
    (``"failure_modes"``: list, or ``"failure_mode"``: one label, a list or null)."""
    if not isinstance(result, Mapping):
        return tuple(result.failure_modes)
    for key in ("failure_modes", "failure_mode"):
        value = result.get(key)
        if isinstance(value, str):
            return (value,)
        if isinstance(value, list | tuple):
            return tuple(str(v) for v in value)
    return ()


def signatures_present(
    item_scores: Iterable[_Labelled | Mapping[str, object]], *, stop: StopDistribution | None,
    run_labels: Iterable[str] | None = None,
) -> dict[str, bool | None]:
    """For each v9 failure-mode signature: present (True), absent (False) or undecided (None).

    Item-scope signatures shown by one response are read from the items' labels. STOP_FAILURE is read from
    ``stop``, LX-STOP's termination distribution: present when every answered LX-STOP response ran to its
    cap, undecided (None: never a pass) while any is missing; ``stop`` None (a run without LX-STOP, the live
    test) leaves it out. Run-scope modes (EVAL_FALSE_POSITIVE) are listed only when the caller ran the
    battery-vs-live comparison and passes the labels it found as ``run_labels``; corpus-scope (audit-only)
    modes are never listed here.
    """
    modes = load_failure_modes()
    found = {label for score in item_scores for label in labels_of(score)}
    unknown = found - set(modes)
    if unknown:
        raise ValueError(f"labels not in failure_modes.toml: {sorted(unknown)}")
    result: dict[str, bool | None] = {}
    for name, mode in modes.items():
        if mode.scope != "item":
            continue
        if name not in DISTRIBUTION_SIGNATURES:
            result[name] = name in found
        elif stop is not None:
            result[name] = stop.stop_failure
    if run_labels is not None:
        run_found = set(run_labels)
        result.update({name: name in run_found for name, mode in modes.items() if mode.scope == "run"})
    return result


def present_names(signatures: Mapping[str, bool | None]) -> frozenset[str]:
    """The signatures found present (undecided ones are not)."""
    return frozenset(name for name, present in signatures.items() if present is True)
