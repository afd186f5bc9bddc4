"""The failure-mode signature rule (``--check-failure-modes``, graduation): each v9 signature present or absent.

It is a rule of the gate like any other, so the terminal, the JSON, the reports and the exit code
carry the same word: a signature present makes the verdict FAIL; one undecided (answers missing) makes it
INCOMPLETE, never a pass. Which signatures are present is measured by
``checks.signatures.signatures_present``, the one function with the spec's definitions; this module only decides.
"""

from __future__ import annotations

from collections.abc import Mapping

from forgegate.core.verdict import Gate, Reason

SIGNATURE_RULE = "v9 failure-mode signatures absent"


def signature_reason(present: Mapping[str, bool | None]) -> Reason:
    """The gate rule: FAIL when any signature is present, INCOMPLETE when none is but one is undecided."""
    found = sorted(name for name, is_present in present.items() if is_present is True)
    undecided = sorted(name for name, is_present in present.items() if is_present is None)
    numbers = {name: is_present for name, is_present in present.items()}
    if found:
        return Reason(SIGNATURE_RULE, Gate.FAIL, f"present: {', '.join(found)}", numbers=numbers)
    if undecided:
        return Reason(SIGNATURE_RULE, Gate.INCOMPLETE,
                      f"undecided (answers missing): {', '.join(undecided)}; the others absent", numbers=numbers)
    return Reason(SIGNATURE_RULE, Gate.PASS, f"all {len(present)} signatures absent", numbers=numbers)
