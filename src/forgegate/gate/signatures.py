"""The failure-mode signature rule (``--check-failure-modes``): each known signature present or absent.

It is a rule of the gate like any other, so the terminal, the JSON, the reports and the exit code
carry the same word: a signature present makes the verdict FAIL. Which signatures are present is
measured by ``checks.signatures.signatures_present``; this module only decides.
"""

from __future__ import annotations

from collections.abc import Mapping

from forgegate.core.verdict import Gate, Reason

SIGNATURE_RULE = "v9 failure-mode signatures absent"


def signature_reason(present: Mapping[str, bool]) -> Reason:
    """The gate rule: FAIL when any signature is present, with which ones in its numbers."""
    found = sorted(name for name, is_present in present.items() if is_present)
    detail = f"present: {', '.join(found)}" if found else f"all {len(present)} signatures absent"
    return Reason(SIGNATURE_RULE, Gate.FAIL if found else Gate.PASS, detail,
                  numbers={name: is_present for name, is_present in present.items()})
