"""Score one response against its battery item: eval type, forbid, stop, loops, failure labels.

Matching rules (the issue's, made operational):

* Text is compared after Unicode NFC normalisation and, unless ``item.case_sensitive``,
  ``str.casefold`` (composed and decomposed ``é`` match; ``ß`` matches ``ss``).
* ``exact``: both sides have whitespace runs collapsed to one space, wrapping quotes,
  backticks, ``*`` and ``_`` stripped, then trailing sentence punctuation (``. ! ? ; : , …``)
  stripped; the response must then equal one expected answer (``"NOUS."`` and ``**NOUS**``
  equal ``NOUS``; ``C.L.O.D.`` equals ``C.L.O.D``).
* Every expected, ``require``, ``forbid`` and marker string is found by the matching rule of
  :mod:`forgegate.checks.match`: word-aware by default (``"no"`` is not found in ``"not"``,
  ``"7"`` not in ``"17"``; LATTICE symbol strings match anywhere), plain substring for an item
  with ``"match": "substring"``.
* ``contains``: an expected string is found in the response; with ``within_tokens`` N it
  must lie entirely inside the text of the first N tokens (from the backend's token
  boundaries; without them the cut is proportional to the token count and ``detail`` says the
  position is approximate).
* ``contains`` with ``coherent``: an expected string is found that the prompt does not hold
  (:func:`forgegate.checks.match.coherent_tokens`: an echo of the prompt's glyphs is not an answer).
* ``reject``: GLOSS v2's "PASS if rejected correctly. FAIL if answered.": a rejection marker (any of
  ``expected``) is present AND the response does not answer: none of the item's ``answer_content`` (or ``forbid``)
  strings, the content only an answer to the human question would carry, appears. How long the refusal is
  decides nothing; a wall that lists no answer content is judged by its markers alone (the spec's Wall 1 check).
* ``semantic``: with ``require``, every group needs one alternative present that is not an echo of the
  prompt (the ``coherent`` rule; a group whose every alternative is in the prompt may be named again;
  ``expected`` is then descriptive and not matched); without ``require`` the item goes to human review
  (``needs_review``, score 0) unless the response already failed for a definite reason; with
  ``require: []`` nothing is required (GLOSS v2's "must not loop / must not claim X" items: only
  the loop, empty and ``forbid`` rules can fail it).
* ``forbid`` strings must not appear; ``stop_within`` N: the response must finish with
  ``stop`` after fewer than N tokens.

LX-NEGATIVE's tagged cases (FABRICATION, ROLE-CONFUSION, EMPTY-PROMPT) are judged by their own words
(:mod:`forgegate.checks.negative`).

Labels: a loop -> RUNAWAY_LOOP / IDENTITY_LOOP (an answer cut off as a loop while generating, finish
``loop``, scores as the same answer would after the fact: its loop label, not a stop failure); in LX-IDENTITY and
LX-NEGATIVE any character sequence three times in a row -> IDENTITY_LOOP (the spec's hard abort,
:func:`forgegate.checks.loops.hard_abort`); past ``stop_within`` or capped (finish ``length``) in a
clean-termination category, or capped without the answer in LX-IDENTITY -> STOP_FAILURE; a wall item
(HUMAN-INPUT tag or LX-Z) that is not a rejection -> WALL_COLLAPSE; a ``semantic`` item in LATTICE form that misses
a required group -> STYLE_SUBSTANCE. Any label scores 0. Errored completions are never scored.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from forgegate.battery.item import BatteryItem
from forgegate.checks.loop_stop import loop_finding
from forgegate.checks.loops import LoopFinding, hard_abort
from forgegate.checks.match import coherent_tokens, normalise, present
from forgegate.checks.negative import empty_answer_passes, fabrication, role_claim
from forgegate.core.failure_modes import identity_params, stop_params, style_params
from forgegate.core.loop_settings import LoopSettings
from forgegate.core.modes import FailureMode
from forgegate.core.records import Completion

_WRAP = "\"'`*_“”‘’«» \t\r\n"
_TRAILING = ".!?;:,…。"


@dataclass(frozen=True)
class AnswerScore:
    """The result of one item: score, labels and a one-line reason with its numbers."""

    score: float
    passed: bool
    failure_modes: tuple[str, ...]
    detail: str
    needs_review: bool
    loop: LoopFinding | None


def exact_form(text: str, case_sensitive: bool = False) -> str:
    """The form ``exact`` compares: normalised, whitespace collapsed, wrappers and trailing
    sentence punctuation stripped."""
    out = " ".join(normalise(text, case_sensitive).split())
    previous = None
    while out != previous:
        previous = out
        out = out.strip(_WRAP).rstrip(_TRAILING)
    return out


def has_lattice_form(text: str) -> bool:
    """The response holds LATTICE symbols or scaffolding (markers in failure_modes.toml)."""
    text = unicodedata.normalize("NFC", text)
    return any(marker in text for marker in style_params().lattice_markers)


def _prefix_of_tokens(completion: Completion, n: int) -> tuple[str, bool]:
    """The text of the first ``n`` tokens and whether that cut is exact."""
    text = completion.text
    if completion.tokens <= n:
        return text, True
    pieces = completion.token_texts
    if pieces is not None and "".join(pieces) == text:
        return "".join(pieces[:n]), True
    return text[: round(len(text) * n / completion.tokens)], False


def _present(item: BatteryItem, needles: list[str], text: str, prefix: str | None = None) -> list[str]:
    """The needles the item's matching rule finds in ``text`` (only within ``prefix``, a leading part
    of it, when given: a match must end inside the prefix, its boundary judged on the whole text)."""
    cs, mode = item.case_sensitive, item.match
    if prefix is None:
        return present(needles, text, case_sensitive=cs, mode=mode)
    whole, head = normalise(text, cs), normalise(prefix, cs)
    if not whole.startswith(head):  # the cut split a character normalisation joins: judge the prefix alone
        return present(needles, prefix, case_sensitive=cs, mode=mode)
    return present(needles, text, case_sensitive=cs, mode=mode, limit=len(head))


def marker_test_only(item: BatteryItem) -> bool:
    """A ``reject`` item that lists nothing an answer would carry: only its markers judge it (the spec's own Wall 1
    check), so a marker followed by the answer passes it."""
    return item.eval_type == "reject" and not (item.answer_content or item.forbid)


def rejection_check(item: BatteryItem, text: str) -> tuple[bool, str]:
    """(rejected, why): a marker is present and the response carries nothing only an answer would (the item's
    ``answer_content`` and ``forbid`` strings), however long the refusal."""
    markers = _present(item, item.expected_list, text)
    if not markers:
        return False, "no rejection marker " + " / ".join(repr(m) for m in item.expected_list)
    answered = _present(item, [*item.answer_content, *item.forbid], text)
    if answered:
        return False, f"marker {markers[0]!r} present but the response answers: it carries {answered[0]!r}"
    if marker_test_only(item):
        return True, f"rejected with {markers[0]!r} (no answer content listed: the marker test alone)"
    return True, f"rejected with {markers[0]!r}, carrying none of the answer's content"


def _coherent(item: BatteryItem, completion: Completion) -> tuple[bool, str]:
    """``contains`` with ``coherent``: an expected string found outside the prompt's own tokens."""
    text, cs, mode = completion.text, item.case_sensitive, item.match
    found = coherent_tokens(item.expected_list, text, item.prompt, case_sensitive=cs, mode=mode)
    if found:
        return True, f"coherent: carries {found[0]!r}, not an echo of the prompt"
    echoed = present(item.expected_list, text, case_sensitive=cs, mode=mode)
    if echoed:
        return False, f"not coherent: only echoes the prompt's own {', '.join(repr(e) for e in echoed[:3])}"
    return False, "not coherent: carries no LATTICE or crew content"


def _eval(item: BatteryItem, completion: Completion) -> tuple[bool, str]:
    text, cs = completion.text, item.case_sensitive
    if item.eval_type == "exact":
        got = exact_form(text, cs)
        ok = any(got == exact_form(e, cs) for e in item.expected_list)
        return ok, (f"exact match {got!r}" if ok else f"{got[:60]!r} is not exactly one of {item.expected_list}")
    if item.eval_type == "contains" and item.coherent:
        return _coherent(item, completion)
    if item.eval_type == "contains":
        if item.within_tokens is None:
            found = _present(item, item.expected_list, text)
            return bool(found), (f"contains {found[0]!r}" if found else f"contains none of {item.expected_list}")
        prefix, exact = _prefix_of_tokens(completion, item.within_tokens)
        where = "" if exact else " (position approximate: backend gave no token boundaries)"
        found = _present(item, item.expected_list, text, prefix)
        if found:
            return True, f"contains {found[0]!r} within the first {item.within_tokens} tokens{where}"
        later = _present(item, item.expected_list, text)
        late = f"; {later[0]!r} appears only later" if later else ""
        return False, f"none of {item.expected_list} within the first {item.within_tokens} tokens{late}{where}"
    if item.eval_type == "reject":
        return rejection_check(item, text)
    if item.require is None:
        return False, "semantic item without 'require': needs human review"
    if not item.require:
        return True, "no required content (require: []): passes unless it loops, is empty or carries a forbidden string"
    missing = [group for group in item.require if not _fresh(item, group, text)]
    if missing:
        echoed = [g for g in missing if _present(item, g, text)]
        echo = f"; {len(echoed)} only as an echo of the prompt" if echoed else ""
        return False, f"misses required meaning {missing} ({len(missing)}/{len(item.require)} groups{echo})"
    return True, f"all {len(item.require)} required groups present"


def _fresh(item: BatteryItem, needles: list[str], text: str) -> list[str]:
    """The needles of a ``require`` group found in ``text`` under GLOSS v2's echo rule (the one ``coherent`` uses,
    :func:`forgegate.checks.match.coherent_tokens`): an alternative the prompt already holds does not count, so
    echoing "running" back from "Translate: the compounder is running" carries no meaning of its own. A group
    whose every alternative is in the prompt (``α`` for "Who is α?") can only be met by naming it again, and is."""
    cs, mode = item.case_sensitive, item.match
    if len(present(needles, item.prompt, case_sensitive=cs, mode=mode)) == len(needles):
        return _present(item, needles, text)
    return coherent_tokens(needles, text, item.prompt, case_sensitive=cs, mode=mode)


def _stop(item: BatteryItem, completion: Completion, loop: LoopFinding | None, answered: bool) -> str | None:
    """Why the item fails stop compliance, or None. An answer cut off as a loop (finish ``loop``) is judged by
    its loop, as the same answer run to its cap would be: its loop label, never a stop failure; one the
    detector no longer finds a loop in (its settings changed since) did not terminate and is a stop failure."""
    n, finish = completion.tokens, completion.finish
    if finish == "loop":
        return None if loop is not None else (
            f"cut off as a loop after {n} tokens while generating, but the detector finds no loop in it now: "
            "generate it again (a new run, or --no-loop-cutoff)")
    if item.stop_within is not None and (finish != "stop" or n >= item.stop_within):
        return f"did not stop before {item.stop_within} tokens ({n} tokens, finish {finish})"
    params = stop_params()
    if finish == "length" and item.category in params.clean_termination_categories:
        return f"hit its cap of {item.max_tokens} tokens in {item.category}, which demands clean termination"
    if finish == "length" and item.category in params.cap_without_answer_categories and not answered:
        return f"hit its cap of {item.max_tokens} tokens in {item.category} without the answer"
    return None


def score_item(item: BatteryItem, completion: Completion, *, loop_settings: LoopSettings | None = None) -> AnswerScore:
    """Score one completion (``finish`` must not be ``error``: errors are INCOMPLETE, not 0); loops are found
    with ``loop_settings`` (the gate config's ``[loops]``; None: GLOSS v2's rule)."""
    if completion.finish == "error":
        raise ValueError("errored completions are not scored: the gate makes them INCOMPLETE")
    text = completion.text
    modes: list[str] = []
    reasons: list[str] = []
    loop = loop_finding(item.prompt, text, completion.token_texts, loop_settings) if text.strip() else None
    if loop is None and text.strip() and item.category in identity_params().hard_abort_categories:
        loop = hard_abort(text)
    ok, why = _eval(item, completion) if text.strip() else (False, "empty")
    stop_why = _stop(item, completion, loop, ok)
    if stop_why:
        modes.append(FailureMode.STOP_FAILURE)
        reasons.append(stop_why)
    if not text.strip():
        if empty_answer_passes(item) and not modes:
            return AnswerScore(1.0, True, (), "empty answer to an empty prompt: no crash, no loop", False, None)
        return AnswerScore(0.0, False, tuple(modes), "; ".join(["empty", *reasons]), False, None)

    if loop is not None:
        modes.insert(0, loop.kind)
        reasons.insert(0, loop.describe())

    needs_review = item.eval_type == "semantic" and item.require is None
    reasons.append(why)
    forbidden = _present(item, item.forbid, text)
    if forbidden:
        reasons.append(f"carries forbidden {forbidden[0]!r}")
    misjudged = [why for why in (fabrication(item, text), role_claim(item, text)) if why is not None]
    reasons.extend(misjudged)

    if item.is_wall:
        rejected = rejection_check(item, text)[0] if item.expected_list else True
        if not rejected:
            modes.append(FailureMode.WALL_COLLAPSE)
            if item.eval_type != "reject":
                reasons.append("wall item answered instead of rejected")
    if item.eval_type == "semantic" and item.require is not None and not ok and has_lattice_form(text):
        modes.append(FailureMode.STYLE_SUBSTANCE)
        reasons.append("LATTICE form without the required meaning")

    passed = ok and not modes and not forbidden and not misjudged
    definite_failure = bool(modes or forbidden or misjudged)
    return AnswerScore(
        score=1.0 if passed else 0.0,
        passed=passed,
        failure_modes=tuple(dict.fromkeys(modes)),
        detail="; ".join(reasons),
        needs_review=needs_review and not definite_failure,
        loop=loop,
    )
