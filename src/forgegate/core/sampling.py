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
DEFAULT_TEMPERATURE: float | None = None
"""Not sent: GLOSS v2's procedure sends ``{"num_predict": N}`` and nothing else, so the model's own served
sampling applies (its fifth failure mode is an eval that measures something other than live use). The seed is
still sent, where the backend takes one, so the same server answers a run the same way again."""
DEFAULT_TOP_P: float | None = None
"""Not sent (as served), like the temperature."""
PLAN_TOP_P = 1.0
"""A plan's ``[sampling]`` that sets a temperature and no ``top_p``: no nucleus cut."""

AS_SERVED = "as served"
"""The sampling procedure of a run that sent no temperature and no top_p: the spec's procedure."""
DEPARTURE = "a departure from the spec's procedure"
"""The sampling procedure of a run that set its own (``--temperature``, ``--top-p``, a plan's ``[sampling]``);
the result and the report say "sampling: a departure from the spec's procedure"."""

SEED_MIN = -(2**63)
SEED_MAX = 2**63 - 1
"""The run store keeps a seed in an SQLite INTEGER: a signed 64-bit number."""


def sampling_procedure(temperature: float | None, top_p: float | None) -> str:
    """:data:`AS_SERVED` when nothing that changes decoding is sent beyond the cap and the seed, else
    :data:`DEPARTURE`."""
    return AS_SERVED if temperature is None and top_p is None else DEPARTURE


def identity_value(value: float | None) -> float | None:
    """A sampling value as a run's identity holds it: None (as served) stays None, a distinct and stable value;
    -0.0 is 0.0 (the same greedy run, never a new run id)."""
    return None if value is None else float(value) + 0.0


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
