"""Loading a plan file: TOML -> the strict schema -> cross-reference checks, every error at file:line.

``load_plan(path)`` returns a ``LoadedPlan`` (the validated plan, its text, its raw
table and a line locator, with paths made relative to the plan's folder).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgegate.core.kinds import AXES
from forgegate.core.limits import CONFIRMATORY_MIN_SAMPLES
from forgegate.errors import InputError
from forgegate.jsonio import read_text_or_input_error
from forgegate.plan.instruments import ENDPOINTS, Prices
from forgegate.plan.plan_file import CANDIDATE_ROLES, Plan
from forgegate.plan.preflight import check_ship_roles, check_tiebreak
from forgegate.tomlio import TomlLocator, parse_toml, validate_toml

MIN_SEEDS_FOR_FLOOR = 2
"""Voice and damage gate on the spread of an arm's values across seeds: one seed has no spread."""


@dataclass(frozen=True)
class LoadedPlan:
    """A validated plan together with where it came from."""

    path: Path
    text: str
    data: dict[str, Any]
    plan: Plan
    locator: TomlLocator

    @property
    def folder(self) -> Path:
        return self.path.parent

    def resolve(self, relative: str) -> Path:
        """A path the plan names, relative to the plan's own folder (``~`` expanded)."""
        candidate = Path(relative).expanduser()
        return candidate if candidate.is_absolute() else self.folder.resolve() / candidate

    def error(self, loc: Sequence[str | int], message: str, hint: str | None = None) -> InputError:
        field = ".".join(str(part) for part in loc) or None
        return InputError(self.path, message, line=self.locator.line_of(loc), field=field, hint=hint)


def parse_plan_text(path: Path, text: str) -> LoadedPlan:
    """Validate plan text read from ``path`` (the path only names the file in errors and resolves paths)."""
    data = parse_toml(path, text)
    plan = validate_toml(path, text, data, Plan)
    loaded = LoadedPlan(path=path, text=text, data=data, plan=plan, locator=TomlLocator(text))
    check_cross_references(loaded)
    return loaded


def load_plan(path: Path | str) -> LoadedPlan:
    """Read and validate a plan file; any problem is an InputError naming file, line and field."""
    path = Path(path)
    text = read_text_or_input_error(path, what="plan file", bom=True,
                                    hint="write one with: forgegate plan new --preset hemingway|gloss|tgpt")
    return parse_plan_text(path, text)


def check_cross_references(loaded: LoadedPlan) -> None:
    """Rules that span tables: arm names, roles, comparisons, endpoints, the author, seeds."""
    plan = loaded.plan
    err = loaded.error
    names: dict[str, int] = {}
    for index, arm in enumerate(plan.arms):
        if arm.name in names:
            raise err(("arms", index, "name"), f"arm name '{arm.name}' repeats arm {names[arm.name] + 1}")
        names[arm.name] = index
    declared = plan.instruments.declared()
    if not declared:
        raise err(("instruments",), "no instrument declared: nothing would decide the verdict",
                  hint=f"declare at least one of {', '.join(ENDPOINTS)}")
    if plan.instruments.voice is not None and not (plan.author or "").strip():
        raise err(("instruments", "voice"), "the voice instrument needs 'author' (top of the plan)",
                  hint="name the author whose voice is measured; there is no default, it is printed on "
                       "every output")
    floors = [name for name in ("voice", "damage") if getattr(plan.instruments, name) is not None]
    if floors and len(plan.seed_list()) < MIN_SEEDS_FOR_FLOOR:
        raise err(("seeds",), f"{len(plan.seed_list())} seed: {' and '.join(floors)} compare arms against a "
                  f"seed-spread floor, which needs at least {MIN_SEEDS_FOR_FLOOR} seeds",
                  hint="e.g. seeds = [1234, 5678, 9012, 3456]")
    if plan.instruments.gloss is not None and plan.fixture.battery is None:
        raise err(("fixture",), "the gloss instrument scores a battery: set [fixture] battery")
    pairwise = {*AXES, "semantic"} & set(declared)
    if pairwise and not plan.comparisons:
        raise err(("comparisons",), f"{', '.join(sorted(pairwise))} compare arms: declare at least one "
                  "[[comparisons]] with control, candidate and primary")
    seen_pairs: set[tuple[str, str]] = set()
    for index, comp in enumerate(plan.comparisons):
        for side, roles in (("control", ("control",)), ("candidate", CANDIDATE_ROLES)):
            arm_name = getattr(comp, side)
            if arm_name not in names:
                raise err(("comparisons", index, side), f"no arm named '{arm_name}'",
                          hint=f"arms: {', '.join(names)}")
            if plan.arms[names[arm_name]].role not in roles:
                raise err(("comparisons", index, side),
                          f"arm '{arm_name}' has role '{plan.arms[names[arm_name]].role}', not "
                          f"{' or '.join(repr(r) for r in roles)}")
        pair = (comp.control, comp.candidate)
        if pair in seen_pairs:
            raise err(("comparisons", index),
                      f"comparison {comp.control} vs {comp.candidate} is declared twice",
                      hint="one primary endpoint per comparison")
        seen_pairs.add(pair)
        instrument = plan.primary_instrument(comp)
        if instrument not in declared:
            raise err(("comparisons", index, "primary"),
                      f"primary endpoint '{comp.primary}' needs the {instrument} instrument, "
                      "which is not declared")
    check_ship_roles(plan, err)
    if plan.tiebreak is not None:
        check_tiebreak(plan.tiebreak, plan.ship_arms(), tuple((c.control, c.candidate) for c in plan.comparisons),
                       declared, err)
    semantic = plan.instruments.semantic
    if semantic is not None:
        for field in ("reference", "contracted", "recovery"):
            arm_name = getattr(semantic, field)
            if arm_name is not None and arm_name not in names:
                raise err(("instruments", "semantic", field), f"no arm named '{arm_name}'",
                          hint=f"arms: {', '.join(names)}")
        if semantic.prices is not None:
            _check_prices(plan, semantic.prices, err)
        cost_arms = semantic.aggregation.cost_arms if semantic.aggregation is not None else None
        for aggregate, arms in (cost_arms or {}).items():
            for arm_name in arms:
                if arm_name not in names:
                    raise err(("instruments", "semantic", "aggregation", "cost_arms", aggregate),
                              f"no arm named '{arm_name}': a cost arm of aggregate '{aggregate}' is an arm of this "
                              "plan, whose requests are in its run store", hint=f"arms: {', '.join(names)}")
        n_samples = len(plan.request_seeds())
        if semantic.confirmatory and n_samples < CONFIRMATORY_MIN_SAMPLES:
            raise err(("seeds",), f"{n_samples} samples per task and condition; a confirmatory collection "
                      f"needs at least {CONFIRMATORY_MIN_SAMPLES}",
                      hint=f"seeds = {{ first = 1, count = {CONFIRMATORY_MIN_SAMPLES} }}, "
                           "or set confirmatory = false (exploratory)")


def _check_prices(plan: Plan, prices: Prices, err: Callable[..., InputError]) -> None:
    """Every arm is priced (its own entry or its model's); a priced arm name must exist."""
    where = ("instruments", "semantic", "prices")
    names = [arm.name for arm in plan.arms]
    for name in prices.arms:
        if name not in names:
            raise err((*where, "arms", name), f"no arm named '{name}'", hint=f"arms: {', '.join(names)}")
    unpriced = [arm.name for arm in plan.arms if prices.for_arm(arm.name, arm.model) is None]
    if unpriced:
        raise err(where, f"no price for arm(s) {', '.join(unpriced)}: a partial price table would print a "
                  "partial cost as if it were the total",
                  hint="add [instruments.semantic.prices.arms.<arm>] or a price for the arm's model")
