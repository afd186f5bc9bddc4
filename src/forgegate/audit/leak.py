"""The source-name leak audit: removed character names that still appear in built pairs.

A surface counts as a leak only where the rename really removed it: present in the
unrenamed source tree and absent from every renamed tree (a real place name the rename
kept is not a leak). Three controls run every time: every surface is found in the source
(the matcher can see), a seeded random nonce is absent from both trees (the matcher does
not see what is not there), and k canonical names planted into a copy of the pairs in
memory are detected k/k.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from forgegate.audit.names import derive_removed_names, load_rename_map
from forgegate.audit.outcome import AuditFinding, Control, finding_of
from forgegate.audit.pairs import Pair, read_pairs
from forgegate.audit.texts import TextFile, read_tree
from forgegate.audit.wordmatch import WordMatch, WordMatcher
from forgegate.errors import InputError

MatcherFactory = Callable[[Iterable[str]], WordMatcher]
EXAMPLES_PER_SPLIT = 5


@dataclass(frozen=True)
class SplitLeaks:
    """One split's counts; ``names`` counts pairs (either half) that name each removed name."""

    pairs: int
    leaking_instruction: int
    leaking_response: int
    names: dict[str, int]
    examples: tuple[str, ...]


@dataclass(frozen=True)
class LeakReport:
    """Everything the leak audit found and every control, with the finding word."""

    splits: dict[str, SplitLeaks]
    names_from: str
    surfaces: tuple[str, ...]
    missing_from_source: tuple[str, ...]
    kept_by_rename: tuple[str, ...]
    removed: tuple[str, ...]
    nonce: str
    nonce_absent: bool
    planted: tuple[str, ...]
    planted_detected: int
    seed: int
    controls: tuple[Control, ...]
    finding: AuditFinding


def run_leak_audit(
    source_dir: Path,
    renamed_dirs: list[Path],
    pair_paths: list[Path],
    *,
    seed: int,
    rename_map: Path | None = None,
    planted: int = 6,
    glob: str = "**/*.txt",
    matcher_factory: MatcherFactory = WordMatcher,
    pair_bytes: Mapping[Path, bytes] | None = None,
) -> LeakReport:
    """Run the audit and its three controls; ``matcher_factory`` exists so tests can break it. ``pair_bytes``:
    the pairs files' bytes as the caller read and hashed them (``plan lock``), so they are not read again."""
    if not renamed_dirs:
        raise InputError("--renamed", "no renamed tree given",
                         hint="pass the renamed copy with --renamed DIR")
    if planted < 1:
        raise InputError("--planted", "the planted-names control needs at least 1 name",
                         hint="a control that plants nothing cannot fail")
    source = read_tree(source_dir, glob)
    renamed = [read_tree(d, glob) for d in renamed_dirs]
    pairs = read_pairs(pair_paths, pair_bytes)
    if rename_map is not None:
        surfaces = sorted(load_rename_map(rename_map))
        names_from = f"rename map {rename_map}"
    else:
        surfaces = derive_removed_names(source, renamed)
        names_from = "source/renamed difference"
    rng = np.random.default_rng(seed)
    nonce = make_nonce(rng)
    matcher = matcher_factory([*surfaces, nonce])
    in_source = _names_in_tree(matcher, source)
    in_renamed: set[str] = set()
    for tree in renamed:
        in_renamed |= _names_in_tree(matcher, tree)
    missing = tuple(s for s in surfaces if s not in in_source)
    kept = tuple(s for s in surfaces if s in in_source and s in in_renamed)
    removed = tuple(s for s in surfaces if s in in_source and s not in in_renamed)
    nonce_absent = nonce not in in_source and nonce not in in_renamed
    splits = count_splits(matcher, frozenset(removed), pairs)
    planted_names, detected = _planted_control(matcher, removed, pairs, planted, rng)
    controls = (
        Control("surfaces_found", bool(surfaces) and not missing,
                f"{len(surfaces) - len(missing)}/{len(surfaces)} surfaces found in the unrenamed source"
                + (f"; missing: {', '.join(missing[:10])}" if missing else "")),
        Control("nonce_absent", nonce_absent,
                f"nonce '{nonce}' (seed {seed}) {'absent from' if nonce_absent else 'FOUND in'} both trees"),
        Control("planted_detected", bool(planted_names) and detected == len(planted_names),
                f"{detected}/{len(planted_names)} planted canonical names detected"
                + ("" if planted_names else " (the rename removed no name: nothing to plant)")),
    )
    found = any(s.leaking_instruction or s.leaking_response for s in splits.values())
    return LeakReport(
        splits=splits, names_from=names_from, surfaces=tuple(surfaces), missing_from_source=missing,
        kept_by_rename=kept, removed=removed, nonce=nonce, nonce_absent=nonce_absent,
        planted=planted_names, planted_detected=detected, seed=seed, controls=controls,
        finding=finding_of(found, AuditFinding.LEAK),
    )


def make_nonce(rng: np.random.Generator, length: int = 12) -> str:
    """A capitalised random word (seeded) that no real text contains."""
    letters = rng.choice(list(string.ascii_lowercase), size=length)
    return "Q" + "".join(str(c) for c in letters)


def leaked_matches(matcher: WordMatcher, removed: frozenset[str], text: str) -> list[WordMatch]:
    """Whole-word matches of names the rename removed (kept names and the nonce are not leaks)."""
    return [m for m in matcher.find(text) if m.name in removed]


def count_splits(matcher: WordMatcher, removed: frozenset[str], pairs: list[Pair]) -> dict[str, SplitLeaks]:
    """Per split: pairs, pairs leaking in each half, and per name the pairs that name it."""
    totals: Counter[str] = Counter()
    inst: Counter[str] = Counter()
    resp: Counter[str] = Counter()
    names: dict[str, Counter[str]] = {}
    examples: dict[str, list[str]] = {}
    for pair in pairs:
        totals[pair.split] += 1
        in_inst = {m.name for m in leaked_matches(matcher, removed, pair.instruction)}
        in_resp = {m.name for m in leaked_matches(matcher, removed, pair.response)}
        inst[pair.split] += bool(in_inst)
        resp[pair.split] += bool(in_resp)
        names.setdefault(pair.split, Counter()).update(in_inst | in_resp)
        if (in_inst or in_resp) and len(examples.setdefault(pair.split, [])) < EXAMPLES_PER_SPLIT:
            halves = "+".join(h for h, s in (("instruction", in_inst), ("response", in_resp)) if s)
            examples[pair.split].append(
                f"{pair.path}:{pair.line} ({halves}): {', '.join(sorted(in_inst | in_resp))}")
    return {
        split: SplitLeaks(
            pairs=totals[split], leaking_instruction=inst[split], leaking_response=resp[split],
            names=dict(sorted(names[split].items(), key=lambda kv: (-kv[1], kv[0]))),
            examples=tuple(examples.get(split, [])),
        )
        for split in sorted(totals)
    }


def _names_in_tree(matcher: WordMatcher, tree: list[TextFile]) -> set[str]:
    found: set[str] = set()
    for file in tree:
        found |= matcher.names_in(file.text)
    return found


def _planted_control(
    matcher: WordMatcher, removed: tuple[str, ...], pairs: list[Pair], k: int, rng: np.random.Generator
) -> tuple[tuple[str, ...], int]:
    """Plant ``k`` removed names into copies of pairs (alternating halves); count those detected."""
    if not removed:
        return (), 0
    k = min(k, len(removed))
    chosen = [removed[int(i)] for i in sorted(rng.choice(len(removed), size=k, replace=False))]
    targets = rng.choice(len(pairs), size=k, replace=len(pairs) < k)
    removed_set = frozenset(removed)
    detected = 0
    for i, (name, target) in enumerate(zip(chosen, targets, strict=True)):
        pair = pairs[int(target)]
        in_instruction = i % 2 == 0
        original = pair.instruction if in_instruction else pair.response
        planted_text = f"{original}\n{name}."
        offset = len(original) + 1
        hits = leaked_matches(matcher, removed_set, planted_text)
        at_offset = any(m.start == offset and m.name == name for m in hits)
        # the counting path too, not only the matcher: the planted pair must be counted
        half = {"instruction": planted_text} if in_instruction else {"response": planted_text}
        copy = Pair(pair.path, pair.line, pair.split, half.get("instruction", pair.instruction),
                    half.get("response", pair.response))
        counted = count_splits(matcher, removed_set, [copy])[pair.split]
        half_count = counted.leaking_instruction if in_instruction else counted.leaking_response
        detected += at_offset and half_count == 1 and counted.names.get(name, 0) == 1
    return tuple(chosen), detected
