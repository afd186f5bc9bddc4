"""The LATTICE symbol table file (TOML): its strict schema and loading with file:line errors."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from forgegate.core.failure_modes import lx_e_clue
from forgegate.core.modes import FailureMode
from forgegate.errors import InputError, not_one_of
from forgegate.jsonio import read_text_or_input_error, validation_to_input_error

Role = Literal[
    "query", "assert", "gap", "verified", "coherence", "threshold", "quality",
    "done", "verdict", "failure", "constant", "separator", "ongoing",
]
REQUIRED_ROLES: tuple[Role, ...] = (
    "query", "assert", "gap", "verified", "coherence", "threshold", "quality", "done", "verdict", "failure",
)
MIN_CREW = 4
MIN_IDENTITY = 10
MIN_ERRORS = 5
MAX_CREW_COUNT = 20
"""GLOSS v2, LX-STOP: "Crew count?" -> "a number ≤ 20"."""

FAILURE_MODE_CODES: tuple[str, ...] = tuple(FailureMode)
"""An ``[[error]]`` code must be one of these (checked at load, naming the line)."""

_STRICT = ConfigDict(extra="forbid", frozen=True)


class LatticeMeta(BaseModel):
    """The ``[lattice]`` table: names and counts the battery asks about."""

    model_config = _STRICT

    name: str = Field(min_length=1)
    self_name: str = Field(min_length=1)
    caller: str = Field(min_length=1)
    crew_count: int = Field(gt=0, le=MAX_CREW_COUNT)
    crew_words: list[str] = Field(default_factory=list)
    """The crew vocabulary in words ("crew", "coherence", "forge", ...): crew-relevant content besides the crew's
    names and glyphs (``forgegate.battery.vocab.content_tokens``)."""


class Walls(BaseModel):
    """The ``[walls]`` table: HOW ABOUT NO rejection markers, the scope redirect, gap phrases."""

    model_config = _STRICT

    reject_markers: list[str] = Field(min_length=1)
    redirect: str = Field(min_length=1)
    gap_phrases: list[str] = Field(default_factory=list)


class LatticeSymbol(BaseModel):
    """One ``[[symbol]]``: a glyph, its canonical name and every answer that counts as knowing it."""

    model_config = _STRICT

    glyph: str = Field(min_length=1)
    name: str = Field(min_length=1)
    answers: list[str] = Field(default_factory=list)
    """Accepted answers to "what is <glyph>?"; empty means just ``name``."""
    role: Role | None = None
    crew: bool = False
    identity: bool = False
    """Asked in LX-IDENTITY as ``<query> <glyph>?``."""
    ignore_case: bool = False
    """LX-IDENTITY matches this symbol's answers ignoring case (GLOSS v2 marks only ``⊙ Ω?`` "(case-insensitive)");
    every other identity answer is matched with its case as written."""
    value: float | None = None
    source: Literal["spec", "inferred"]

    @property
    def accepted(self) -> list[str]:
        return list(self.answers) if self.answers else [self.name]


class ErrorCode(BaseModel):
    """One ``[[error]]``: a failure mode LX-E asks the model to name (its code, from ``core.modes``)."""

    model_config = _STRICT

    code: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    description: str | None = Field(default=None, min_length=1)
    """The words LX-E describes the mode with in this table; None (the bundled table): the mode's ``lx_e_clue``
    in ``failure_modes.toml``, where what each mode means lives."""

    @property
    def clue(self) -> str:
        """What the LX-E item shows the model (``load_lattice`` has checked there is one)."""
        clue = self.description or lx_e_clue(self.code)
        if clue is None:
            raise KeyError(f"failure mode {self.code} has no LX-E description")
        return clue


class LatticeTable(BaseModel):
    """A whole symbol table; ``load_lattice`` also checks what the battery builder needs."""

    model_config = _STRICT

    lattice: LatticeMeta
    walls: Walls
    symbol: list[LatticeSymbol]
    error: list[ErrorCode]

    def role(self, role: Role) -> LatticeSymbol:
        for sym in self.symbol:
            if sym.role == role:
                return sym
        raise KeyError(f"no symbol has role '{role}'")

    def glyph(self, role: Role) -> str:
        return self.role(role).glyph

    def has_role(self, role: Role) -> bool:
        return any(sym.role == role for sym in self.symbol)

    def crew(self) -> list[LatticeSymbol]:
        return [sym for sym in self.symbol if sym.crew]

    def identity(self) -> list[LatticeSymbol]:
        return [sym for sym in self.symbol if sym.identity]

    def by_glyph(self, glyph: str) -> LatticeSymbol:
        for sym in self.symbol:
            if sym.glyph == glyph:
                return sym
        raise KeyError(f"no symbol has glyph '{glyph}'")


def _toml_line(text: str, loc: Sequence[str | int]) -> int | None:
    """Best-effort line of a TOML key path such as ``("symbol", 3, "answers")`` (1-based)."""
    lines = text.splitlines()
    start, end, at = 0, len(lines), None
    table = [part for part in loc if isinstance(part, str)]
    index = next((part for part in loc if isinstance(part, int)), None)
    if not table:
        return None
    header = re.compile(r"^\s*\[\[?\s*" + re.escape(table[0]) + r"\s*\]\]?\s*(#.*)?$")
    seen = -1
    for number in range(len(lines)):
        if header.match(lines[number]):
            seen += 1
            if index is None or seen == index:
                start, at = number, number + 1
                break
    if at is None:
        return None
    for number in range(start + 1, len(lines)):
        if lines[number].lstrip().startswith("["):
            end = number
            break
    if len(table) > 1:
        key = re.compile(r"^\s*" + re.escape(table[1]) + r"\s*=")
        for number in range(start + 1, end):
            if key.match(lines[number]):
                return number + 1
    return at


def _field(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _fail(
    path: Path, text: str, loc: Sequence[str | int], message: str, hint: str | None = None
) -> InputError:
    return InputError(path, message, line=_toml_line(text, loc), field=_field(loc), hint=hint)


def _check_builder_needs(path: Path, text: str, table: LatticeTable) -> None:
    """What pydantic cannot see: unique glyphs and roles, and the parts the battery builder uses."""
    first: dict[str, int] = {}
    roles: dict[str, int] = {}
    for i, sym in enumerate(table.symbol):
        if sym.glyph in first:
            raise _fail(path, text, ("symbol", i, "glyph"), f"duplicate glyph '{sym.glyph}' "
                        f"(first at line {_toml_line(text, ('symbol', first[sym.glyph], 'glyph'))})")
        first[sym.glyph] = i
        if sym.role is not None and sym.role != "constant":
            if sym.role in roles:
                raise _fail(path, text, ("symbol", i, "role"), f"role '{sym.role}' given twice "
                            f"(first at line {_toml_line(text, ('symbol', roles[sym.role], 'role'))})")
            roles[sym.role] = i
    for role in REQUIRED_ROLES:
        if role not in roles:
            raise _fail(path, text, ("symbol",), f"no symbol has role '{role}'",
                        hint=f"the battery builder needs one symbol each for: {', '.join(REQUIRED_ROLES)}")
    if not any(sym.role == "constant" for sym in table.symbol):
        raise _fail(path, text, ("symbol",), "no symbol has role 'constant'",
                    hint="LX-STOP asks 'What is <constant>?' of the first one")
    threshold = roles["threshold"]
    if table.symbol[threshold].value is None:
        raise _fail(path, text, ("symbol", threshold, "role"), "the 'threshold' symbol needs a 'value'",
                    hint="a fraction such as 0.974: coherence questions compare against it")
    if len(table.crew()) < MIN_CREW:
        raise _fail(path, text, ("symbol",), f"{len(table.crew())} crew symbols; the builder needs "
                    f"at least {MIN_CREW}", hint="mark crew members with crew = true")
    if len(table.identity()) < MIN_IDENTITY:
        raise _fail(path, text, ("symbol",), f"{len(table.identity())} identity symbols; LX-IDENTITY "
                    f"needs at least {MIN_IDENTITY}", hint="mark queried symbols with identity = true")
    if table.lattice.caller not in {sym.glyph for sym in table.crew()}:
        raise _fail(path, text, ("lattice", "caller"),
                    f"'{table.lattice.caller}' is not the glyph of a crew symbol")
    codes: dict[str, int] = {}
    for i, err in enumerate(table.error):
        if err.code not in FAILURE_MODE_CODES:
            raise _fail(path, text, ("error", i, "code"), f"error code {not_one_of(err.code, FAILURE_MODE_CODES)}",
                        hint="an LX-E answer must be a failure mode forgegate can print (forgegate.core.modes)")
        if err.code in codes:
            raise _fail(path, text, ("error", i, "code"), f"error code '{err.code}' given twice "
                        f"(first at line {_toml_line(text, ('error', codes[err.code], 'code'))})")
        codes[err.code] = i
        if err.description is None and lx_e_clue(err.code) is None:
            raise _fail(path, text, ("error", i, "code"), f"LX-E has no words for '{err.code}'",
                        hint="give this [[error]] a description = \"...\" (failure_modes.toml gives no lx_e_clue "
                             "for it)")
    if len(table.error) < MIN_ERRORS:
        raise _fail(path, text, ("error",),
                    f"{len(table.error)} error codes; LX-E needs at least {MIN_ERRORS}")


def load_lattice(path: Path) -> LatticeTable:
    """Read and validate a LATTICE symbol table; every problem is an InputError naming line and key."""
    path = Path(path)
    text = read_text_or_input_error(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise InputError(path, f"bad TOML: {message}", line=int(found.group(1)) if found else None) from None
    try:
        table = LatticeTable.model_validate(data)
    except ValidationError as exc:
        base = validation_to_input_error(path, None, exc)
        loc = tuple(exc.errors()[0]["loc"])
        raise InputError(path, base.message, line=_toml_line(text, loc), field=_field(loc) or None) from None
    _check_builder_needs(path, text, table)
    return table
