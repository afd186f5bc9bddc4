"""A rule written once as a ``*_problem`` function, used as a pydantic type by every model that takes the value.

Each rule is a plain function ``value -> why it cannot be used, or None`` (``core.sampling``,
``backends.options``): the CLI's messages quote it, and :func:`checked` turns it into an
``AfterValidator`` so that the session options, the plan file and any other model refuse the same
values with the same words, instead of each wrapping the rule in a validator of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pydantic import AfterValidator

T = TypeVar("T")


def checked(problem: Callable[[T], str | None]) -> AfterValidator:
    """An ``Annotated`` marker that refuses a value ``problem`` objects to (a ``value_error`` saying why)."""

    def validate(value: T) -> T:
        if (why := problem(value)) is not None:
            raise ValueError(why)
        return value

    return AfterValidator(validate)
