"""Which failure-mode signatures a set of scored items shows: the measurement the signature rule reads.

The rule itself (a signature present is a FAIL) is ``forgegate.gate.signatures``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from forgegate.core.failure_modes import load_failure_modes


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
    item_scores: Iterable[_Labelled | Mapping[str, object]], *, run_labels: Iterable[str] | None = None
) -> dict[str, bool]:
    """For each failure-mode signature: present (True) or absent (False) in these results.

    Item-scope modes are judged from the items. Run-scope modes (EVAL_FALSE_POSITIVE) are listed
    only when the caller ran the battery-vs-live comparison and passes the labels it found as
    ``run_labels``; otherwise they are left out rather than reported absent. Corpus-scope
    (audit-only) modes are never listed here.
    """
    modes = load_failure_modes()
    found = {label for score in item_scores for label in labels_of(score)}
    unknown = found - set(modes)
    if unknown:
        raise ValueError(f"labels not in failure_modes.toml: {sorted(unknown)}")
    result = {name: name in found for name, mode in modes.items() if mode.scope == "item"}
    if run_labels is not None:
        run_found = set(run_labels)
        result.update({name: name in run_found for name, mode in modes.items() if mode.scope == "run"})
    return result
