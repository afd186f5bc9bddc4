"""The sampling values a user may ask for (CLI flags, API keywords, a plan's ``[sampling]``), each rule once.

A value that cannot be sent or stored is refused where it is written: an infinite temperature would be
sent to the server and come back as a crash (exit 70), a NaN would be stored and then refused by the
same command ("'temperature' is nan there, nan now"), a seed outside 64 bits would fail at the first
store write with the plan already frozen.
"""

from __future__ import annotations

import math
from typing import Annotated

from forgegate.core.checked import checked

DEFAULT_SEED = 0
DEFAULT_TEMPERATURE = 0.0
"""Greedy: an eval asks the same question the same way every time."""
DEFAULT_TOP_P = 1.0

SEED_MIN = -(2**63)
SEED_MAX = 2**63 - 1
"""The run store keeps a seed in an SQLite INTEGER: a signed 64-bit number."""


def shown(value: object) -> str:
    """``value`` as an error message quotes it: short, and never the int-to-text conversion that Python refuses
    beyond 4,300 digits."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"a {value.bit_length()}-bit whole number"
    if isinstance(value, float):
        return f"{value:g}"
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def temperature_problem(value: float) -> str | None:
    """Why ``value`` is not a temperature a model can sample at, or None."""
    if math.isfinite(value) and value >= 0:
        return None
    return f"must be a finite number, 0 or more (0 = greedy), not {shown(value)}"


def top_p_problem(value: float) -> str | None:
    """Why ``value`` is not a nucleus-sampling p, or None."""
    if math.isfinite(value) and 0 < value <= 1:
        return None
    return f"must be a number above 0 and at most 1 (1 = no nucleus cut), not {shown(value)}"


def seed_problem(value: int) -> str | None:
    """Why ``value`` cannot be a seed (the store could not keep it), or None."""
    if SEED_MIN <= value <= SEED_MAX:
        return None
    return (f"must be a whole number from {SEED_MIN} to {SEED_MAX} (the run store keeps seeds as 64-bit "
            f"integers), not {shown(value)}")


Temperature = Annotated[float, checked(temperature_problem)]
"""A temperature a model can sample at (the session options' and a plan's ``[sampling]``)."""
TopP = Annotated[float, checked(top_p_problem)]
"""A nucleus-sampling p (the session options' and a plan's ``[sampling]``)."""
StoredSeed = Annotated[int, checked(seed_problem)]
"""A seed the run store can keep."""
