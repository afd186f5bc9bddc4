"""A rule written once as a ``*_problem`` function, used as a pydantic type by every model that takes the value.

Each rule is a plain function ``value -> why it cannot be used, or None`` (``core.sampling``,
``backends.options``): the CLI's messages quote it, and :func:`checked` turns it into an
``Annotated`` marker that validates after the type, as pydantic's ``AfterValidator`` does, so that the session
options, the plan file and any other model refuse the same values with the same words, instead of each wrapping
the rule in a validator of its own. The marker imports pydantic only when a model is built with it: the
defaults next to the rules (``core.sampling``) are read by ``forgegate --help``, which should not load pydantic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

T = TypeVar("T")


@dataclass(frozen=True)
class Checked(Generic[T]):
    """``Annotated[type, Checked(problem)]``: after the type's own validation, refuse what ``problem`` objects to
    (a ``value_error`` saying why), exactly as ``AfterValidator`` would."""

    problem: Callable[[T], str | None]

    def validate(self, value: T) -> T:
        if (why := self.problem(value)) is not None:
            raise ValueError(why)
        return value

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self.validate, handler(source))


def checked(problem: Callable[[T], str | None]) -> Checked[T]:
    """An ``Annotated`` marker that refuses a value ``problem`` objects to (a ``value_error`` saying why)."""
    return Checked(problem)
