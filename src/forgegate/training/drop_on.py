"""Which failure modes drop a tied checkpoint from a plan (``forgegate plan from-training --drop-on``).

Light on purpose: the command's help text reads the default from here without loading the rest.
"""

from __future__ import annotations

from collections.abc import Iterable

from forgegate.core.modes import FailureMode
from forgegate.errors import UsageError, not_one_of

DROP_ON_DEFAULT: tuple[FailureMode, ...] = (FailureMode.IDENTITY_LOOP, FailureMode.RUNAWAY_LOOP,
                                            FailureMode.STOP_FAILURE, FailureMode.WALL_COLLAPSE)
"""What breaks during training: a checkpoint whose probe shows one of these beyond the baseline is dropped."""


def drop_on_modes(names: Iterable[str]) -> tuple[FailureMode, ...]:
    """``--drop-on`` values (repeated, or comma-separated) as failure modes; an unknown name lists the known."""
    known = tuple(mode.value for mode in FailureMode)
    modes: list[FailureMode] = []
    for name in (part.strip() for value in names for part in value.split(",")):
        if not name:
            continue
        if name not in known:
            raise UsageError(f"--drop-on: {not_one_of(name, known)}")
        if FailureMode(name) not in modes:
            modes.append(FailureMode(name))
    if not modes:
        raise UsageError(f"--drop-on names no failure mode: give one or more of {', '.join(known)}")
    return tuple(modes)
