"""Failure-mode labels as data: load and validate ``forgegate/data/failure_modes.toml``.

The one home of what each mode means (its description, GLOSS v2's signature, the words the battery's LX-E
items describe it with, the numbers its detector reads); the names themselves are ``core.modes``.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from forgegate.core.modes import FailureMode
from forgegate.errors import InputError
from forgegate.jsonio import read_text_or_input_error

Scope = Literal["item", "run", "corpus"]
REQUIRED_MODES: tuple[str, ...] = tuple(FailureMode)
"""The data file must describe every mode the code can print."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StopParams(_Strict):
    clean_termination_categories: list[str]
    cap_without_answer_categories: list[str] = Field(default_factory=list)
    """Categories where hitting the cap is a stop failure only when the answer is missing (LX-IDENTITY:
    "exhausts tokens without answer"); an answer in its window that runs on without a loop is not one."""


class IdentityParams(_Strict):
    hard_abort_categories: list[str]
    """Categories whose answers are cut to 0 as IDENTITY_LOOP by any character sequence three times in a row."""


class StyleParams(_Strict):
    lattice_markers: list[str] = Field(min_length=1)


_PARAMS: dict[str, type[_Strict]] = {
    FailureMode.IDENTITY_LOOP: IdentityParams,
    FailureMode.STOP_FAILURE: StopParams,
    FailureMode.STYLE_SUBSTANCE: StyleParams,
}


class FailureModeSpec(_Strict):
    """One label: what it means, GLOSS v2's signature, what detects it, the numbers it reads."""

    name: str
    description: str
    signature: str
    detected_by: str
    scope: Scope
    lx_e_clue: str | None = Field(default=None, min_length=1)
    """How an LX-E item (the error taxonomy) describes the mode when it asks the model to name it; None: LX-E
    does not ask about it."""
    params: dict[str, object] = Field(default_factory=dict)


class _File(_Strict):
    modes: dict[str, FailureModeSpec]


def _default_path() -> Path:
    return Path(str(resources.files("forgegate") / "data" / "failure_modes.toml"))


def parse_failure_modes(path: Path) -> dict[str, FailureModeSpec]:
    """Read and validate a failure-modes file (InputError naming the field on any problem)."""
    try:
        raw = tomllib.loads(read_text_or_input_error(path, what="failure modes file"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"cannot read failure modes: {exc}") from exc
    modes = raw.get("modes")
    if isinstance(modes, dict):
        for name, body in modes.items():
            if isinstance(body, dict):
                body.setdefault("name", name)
    try:
        parsed = _File.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise InputError(path, err["msg"], field=field) from exc
    for name, mode in parsed.modes.items():
        if mode.name != name:
            raise InputError(path, f"name '{mode.name}' differs from its table", field=f"modes.{name}.name")
        model = _PARAMS.get(name)
        if model is not None:
            try:
                model.model_validate(mode.params)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = f"modes.{name}.params." + ".".join(str(p) for p in err["loc"])
                raise InputError(path, err["msg"], field=field) from exc
    missing = [m for m in REQUIRED_MODES if m not in parsed.modes]
    if missing:
        raise InputError(path, f"missing failure modes: {', '.join(missing)}", field="modes")
    return dict(parsed.modes)


@lru_cache(maxsize=1)
def _bundled() -> dict[str, FailureModeSpec]:
    return parse_failure_modes(_default_path())


def load_failure_modes() -> dict[str, FailureModeSpec]:
    """The bundled failure modes, keyed by label (validated once, then cached)."""
    return dict(_bundled())


def lx_e_clue(code: str) -> str | None:
    """The bundled words LX-E describes failure mode ``code`` with (None: an unknown code, or none given)."""
    mode = _bundled().get(code)
    return mode.lx_e_clue if mode is not None else None


@lru_cache(maxsize=1)
def stop_params() -> StopParams:
    return StopParams.model_validate(_bundled()[FailureMode.STOP_FAILURE].params)


@lru_cache(maxsize=1)
def style_params() -> StyleParams:
    return StyleParams.model_validate(_bundled()[FailureMode.STYLE_SUBSTANCE].params)


@lru_cache(maxsize=1)
def identity_params() -> IdentityParams:
    return IdentityParams.model_validate(_bundled()[FailureMode.IDENTITY_LOOP].params)
