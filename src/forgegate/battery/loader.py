"""Loading a battery JSONL file: strict validation with file:line:field errors, ids filled in."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from forgegate.battery.item import BatteryItem
from forgegate.errors import InputError, not_one_of
from forgegate.jsonio import iter_jsonl_lines, read_bytes_or_input_error, validation_to_input_error

_FIELDS = tuple(BatteryItem.model_fields)


@dataclass(frozen=True)
class Battery:
    """A validated battery: where it came from, the sha256 of its bytes, and its items (ids filled)."""

    path: Path
    sha256: str
    items: tuple[BatteryItem, ...]
    lines: tuple[int, ...] = ()
    """The file line of each item, in order (empty for a battery not read from a file)."""

    def __len__(self) -> int:
        return len(self.items)

    def by_id(self, item_id: str) -> BatteryItem:
        for item in self.items:
            if item.id == item_id:
                return item
        raise KeyError(f"{self.path}: no item with id '{item_id}'")

    def categories(self) -> tuple[str, ...]:
        """Every category present, in order of first appearance."""
        return tuple(dict.fromkeys(item.category for item in self.items))

    def counts(self) -> dict[str, int]:
        """Number of items per category, in order of first appearance."""
        counter = Counter(item.category for item in self.items)
        return {category: counter[category] for category in self.categories()}

    def in_category(self, category: str) -> tuple[BatteryItem, ...]:
        return tuple(item for item in self.items if item.category == category)


def default_id(category: str, number: int) -> str:
    """``<category>-<nn>``: the id of the ``number``-th item (1-based) of ``category`` in file order."""
    return f"{category}-{number:02d}"


def _validate(path: Path, line: int, obj: dict[str, object]) -> BatteryItem:
    try:
        return BatteryItem.model_validate(obj, strict=True)
    except ValidationError as exc:
        error = validation_to_input_error(path, line, exc, fields=_FIELDS)
        if error.field is None:  # a whole-item rule: name the field its message is about
            named = [name for name in ("coherent", "expected", "require") if f"'{name}'" in error.message]
            error.field = named[0] if named else None
        raise error from None


def load_battery(path: Path, *, categories: Collection[str] | None = None) -> Battery:
    """Read, validate and number a battery; any problem is an InputError and nothing is returned.

    ``categories``, when given, is the set the caller scores: an item in any other category is an
    error (with the closest known name suggested), so a typo cannot silently drop an item.
    """
    path = Path(path)
    return parse_battery(path, read_bytes_or_input_error(path), categories=categories)


def parse_battery(path: Path, raw: bytes, *, categories: Collection[str] | None = None) -> Battery:
    """:func:`load_battery` on bytes already read (a plan's inputs are read once, by its lock check); ``path``
    names the battery in errors and in the result."""
    path = Path(path)
    known = tuple(categories) if categories is not None else None
    per_category: Counter[str] = Counter()
    seen: dict[str, int] = {}
    items: list[BatteryItem] = []
    lines: list[int] = []
    for line, obj in iter_jsonl_lines(path, raw):
        item = _validate(path, line, obj)
        if known is not None and item.category not in known:
            raise InputError(path, not_one_of(item.category, known), line=line, field="category")
        per_category[item.category] += 1
        item_id = item.id if item.id is not None else default_id(item.category, per_category[item.category])
        if item_id in seen:
            how = "" if item.id is not None else " (the default id of this item)"
            raise InputError(path, f"duplicate id '{item_id}'{how}: also on line {seen[item_id]}",
                             line=line, field="id", hint="every item needs its own id")
        seen[item_id] = line
        lines.append(line)
        items.append(item if item.id is not None else item.model_copy(update={"id": item_id}))
    if not items:
        raise InputError(path, "empty battery: no items", line=1,
                         hint="one JSON object per line: category, prompt, expected, max_tokens, eval_type")
    return Battery(path=path, sha256=hashlib.sha256(raw).hexdigest(), items=tuple(items), lines=tuple(lines))
