"""The session options of `eval`, `live` and `graduate`, generated from their one declaration.

Typer reads a command's parameters from its signature, so each command's signature is a list of
``inspect.Parameter``: the session's are made here from ``pipeline.session.fields`` (name, type, default,
help), so a field added there is a flag of every session command with no line here. The declaration imports no
pydantic, so ``--help`` stays light.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from types import GenericAlias
from typing import TYPE_CHECKING, Any

import typer

from forgegate.cli.common import quiet_default
from forgegate.pipeline.session.fields import Declared, declared

if TYPE_CHECKING:
    from forgegate.pipeline.session.fields import SessionKind
    from forgegate.pipeline.session.options import SessionOptions

_P = inspect.Parameter


def _opt(name: str, annotation: Any, default: Any, help_text: str, *decls: str, **limits: Any) -> inspect.Parameter:
    option = typer.Option(default, *decls, help=help_text, **limits)
    return _P(name, _P.KEYWORD_ONLY, default=option, annotation=annotation)


def flag_parameter(option: Declared, help_text: str | None = None) -> inspect.Parameter:
    """The command-line parameter of one declared option: ``--no-X`` flags are plain switches, a tuple field is a
    repeatable flag, a bool is the one flag it names (no ``--no-`` twin)."""
    name = option.flag.removeprefix("--").replace("-", "_")
    annotation: Any = option.type
    default = option.default
    if option.negated:
        default = False
    elif option.opt.cli_default is not None:
        default = option.opt.cli_default
    elif typing.get_origin(annotation) is tuple:  # repeated: typer collects a list, the model takes a tuple
        annotation, default = GenericAlias(list, typing.get_args(annotation)[:1]), None
    if option.optional or default is None:
        annotation = annotation | None
    decls = (option.flag,) if annotation is bool or option.opt.flag is not None else ()
    return _opt(name, annotation, default, help_text or option.opt.help, *decls)


def session_parameters(*, leave_out: Collection[str] = (),
                       help_for: Mapping[str, str] | None = None) -> list[inspect.Parameter]:
    """Every declared session option a command takes, in declaration order (``leave_out``: fields the command
    decides itself; ``help_for``: a field whose help this command words its own way)."""
    helps = help_for or {}
    return [flag_parameter(option, helps.get(option.name)) for option in declared()
            if option.opt.cli and option.name not in leave_out]


def session_parameter(field: str) -> inspect.Parameter:
    """One declared option's parameter (a command outside the session, like ``rescore``, that takes it too)."""
    return next(flag_parameter(option) for option in declared() if option.name == field)


NO_WAIT_HELP = session_parameter("wait").default.help
JSON_OPTION = _opt("json_out", Path | None, None, "Write the full result (JSON) here.", "--json")
HTML_OPTION = _opt("html", Path | None, None, "Write a self-contained HTML report here.", "--html")
MARKDOWN_OPTION = _opt("markdown", Path | None, None, "Write a Markdown summary (for a PR comment) here.",
                       "--markdown")


def with_options(params: list[inspect.Parameter]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a ``**kwargs`` command the signature ``params`` (what Typer turns into options)."""

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        func.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        return func

    return decorate


def session_options(kind: SessionKind, kw: dict[str, Any], battery: Path | None) -> SessionOptions:
    """The session the flags ask for. The options model checks every value (a flag that cannot work is a usage
    error there, before anything is stored) and maps each flag to its field. (Its import waits until a command
    runs.)"""
    from forgegate.pipeline.session.options import from_flags

    return from_flags(kind, kw, battery, quiet_default=quiet_default())
