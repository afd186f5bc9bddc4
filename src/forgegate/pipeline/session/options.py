"""An eval session's options: one model that checks itself, which the CLI and the Python API only construct.

Every option of ``forgegate eval`` / ``live`` is a field here, and every rule about one (types, ranges,
which backend takes which option, an adapter's base) is checked when the model is built, before anything
is sent or stored. A refusal is a :class:`UsageError` worded with the CLI's flag names, so a script calling
``forgegate.evaluate`` reads the words the command line prints.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    SkipValidation,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from forgegate.backends import BACKENDS, Backend, BackendConfig
from forgegate.backends.adapters import adapter_base_problem, adapter_refusal
from forgegate.backends.names import is_remote
from forgegate.backends.options import DTYPES, base_url_refusal, device_problem, option_refusal
from forgegate.core.sampling import shown
from forgegate.errors import UsageError
from forgegate.pipeline.session.fields import SessionFields, SessionKind, declared, flag

_TAKES = {"string_type": "text", "int_type": "a whole number", "float_type": "a number", "bool_type": "True or False",
          "tuple_type": "a list", "is_instance_of": "a path", "literal_error": "one of 'eval', 'live'"}
"""What a field of each pydantic error type takes, in words (``is_instance_of``: only a path field checks a
class in strict mode)."""

_PATHS = tuple(option.name for option in declared() if option.type is Path)
_LISTS = tuple(option.name for option in declared() if typing.get_origin(option.type) is tuple)


def from_flags(kind: SessionKind, flags: dict[str, Any], battery: Path | None, *,
               quiet_default: bool) -> SessionOptions:
    """The options a command's parsed flags ask for, field by field through the declaration (so a new field
    needs no line here): ``--no-X`` flags are negated, repeated flags become tuples, a flag the command does not
    have leaves its field at the default, and ``--quiet`` also follows ``quiet_default`` (stderr no terminal)."""
    values: dict[str, Any] = {"kind": kind, "battery": battery}
    for option in declared():
        name = option.flag.removeprefix("--").replace("-", "_")
        if option.name in values or name not in flags:
            continue
        value = flags[name]
        if option.negated:
            value = not value
        elif option.name in _LISTS:
            value = tuple(value or ())
        elif option.name == "quiet":
            value = bool(value) or quiet_default
        values[option.name] = value
    return SessionOptions.model_validate(values)


class SessionOptions(BaseModel, SessionFields):
    """Everything an eval or live session is asked to do; built only when every value can work.

    The fields are :class:`SessionFields`' (the one declaration, which the CLI and the API read too), checked
    strictly: text is text, a whole number is not a float or a bool; a path may be given as text and a list of
    URLs as a list, as the CLI and a script give them."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True, strict=True)

    model_in_memory: SkipValidation[Backend | None] = None
    """A backend over a model the caller holds (the training probe); ``backend`` then only labels it."""

    @field_validator("base_urls", mode="before")
    @classmethod
    def _urls_not_one_string(cls, value: object) -> object:
        if isinstance(value, str):
            raise ValueError("takes a list of URLs, not one string: base_urls=[url]")
        return value

    @field_validator(*_LISTS, mode="before")
    @classmethod
    def _a_list_is_a_tuple(cls, value: object) -> object:
        return tuple(value) if isinstance(value, list) else value

    @field_validator(*_PATHS, mode="before")
    @classmethod
    def _text_is_a_path(cls, value: object) -> object:
        return Path(value) if isinstance(value, str) else value

    @model_validator(mode="wrap")
    @classmethod
    def _refuse_in_words(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> SessionOptions:
        """Build, then check what needs several fields; every refusal a UsageError in the CLI's words."""
        try:
            options: SessionOptions = handler(data)
        except ValidationError as exc:
            raise UsageError(_in_words(exc)) from None
        options._check()
        return options

    @property
    def config(self) -> BackendConfig:
        """How the backend reaches the model."""
        return BackendConfig(model=self.model, base_urls=self.base_urls, adapter=self.adapter, timeout_s=self.timeout,
                             idle_timeout_s=self.idle_timeout, api_key_env=self.api_key_env, device=self.device,
                             dtype=self.dtype, batch_size=self.batch_size)

    def _check(self) -> None:
        if self.model_in_memory is None:
            BACKENDS.get(self.backend)  # an unknown name is a usage error with a did-you-mean
        if not self.model and self.backend in BACKENDS and is_remote(self.backend):
            raise UsageError(f"--model is required with --backend {self.backend} (the label on every "
                             "result comes from it; there is no default)")
        for field, least, why in (("concurrency", 1, ""), ("retries", 1, " (the first attempt counts)"),
                                  ("batch_size", 1, "")):
            value = getattr(self, field)
            if value is not None and value < least:
                raise UsageError(f"{flag(field)} must be at least {least}{why}, not {shown(value)}")
        if problems := self.config.problems():
            raise UsageError(problems[0])
        if self.base_urls and (refusal := base_url_refusal(self.backend)) is not None:
            raise UsageError(refusal)
        self._check_adapter()
        self._check_device()

    def _check_adapter(self) -> None:
        if self.adapter is None:
            return
        if (why := adapter_refusal(self.backend)) is not None:
            raise UsageError(f"--adapter: {why}")
        if Path(self.adapter).is_dir() and (why := adapter_base_problem(Path(self.adapter), self.model)) is not None:
            raise UsageError(f"--adapter: {why}")

    def _check_device(self) -> None:
        """--device / --dtype / --batch-size: known values, and only on a backend that uses them."""
        if (why := device_problem(self.device)) is not None:
            raise UsageError(f"--device: {why}")
        if self.dtype not in DTYPES:
            raise UsageError(f"--dtype: '{self.dtype}' is not one of {', '.join(DTYPES)}")
        for option, default in (("device", "auto"), ("dtype", "auto"), ("batch_size", None)):
            if getattr(self, option) != default and (why := option_refusal(option, self.backend)) is not None:
                raise UsageError(f"{flag(option)}: {why}")


def _in_words(exc: ValidationError) -> str:
    """The first thing pydantic refused, as the CLI says it: the flag, what it takes, what it got."""
    error = exc.errors()[0]
    field = str(error["loc"][0]) if error["loc"] else ""
    if error["type"] == "extra_forbidden":
        known = ", ".join(name for name in SessionOptions.model_fields if name != "model_in_memory")
        return f"unknown option '{field}': the options are {known}"
    if error["type"] == "value_error":
        return f"{flag(field)} {error['ctx']['error']}"
    takes = _TAKES.get(error["type"])
    if takes is None:
        return f"{flag(field)}: {error['msg']}, not {shown(error['input'])}"
    return f"{flag(field)} takes {takes}, not {shown(error['input'])}"
