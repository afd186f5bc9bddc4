"""The names and printed forms of the gate's rules: vocabulary ``gate/`` writes and reports read.

``gate/`` writes these words into its reasons; ``report/``, ``training/`` and the results read them back to find a
rule (the controls, the three-axis rule, R(c)) or to print a word. Both sides import them from here, so no reader
imports ``gate/`` to know what the gate calls a thing (reports never import the gate: the import contracts hold it).
"""

from __future__ import annotations

from forgegate.core.verdict import Gate

CONTROL_RULE_SUFFIX = " controls"
"""Every control reason's rule is the instrument's name followed by this."""

HOLD_LABEL = "HOLD (operator's call)"
"""How HOLD prints in a plan's verdict table: it always says whose call it is."""

THREE_AXIS_RULE = "three-axis rule"
"""The rule's one name: in its reasons, in the plan's combination, and on the terminal's table."""

RELEVANCE_RULE = "semantic: relevance R(c)"
"""The rule name of a plan's relevance reason (T_GPT v0.8.1 ``relevance``)."""


def is_control_rule(rule: str) -> bool:
    """Whether a reason's rule is an instrument's controls (readers find the controls by this, not by wording)."""
    return rule.endswith(CONTROL_RULE_SUFFIX)


def gate_label(gate: Gate) -> str:
    """How a gate word prints in the verdict table (HOLD always says whose call it is)."""
    return HOLD_LABEL if gate is Gate.HOLD else gate.value


def control_word(passed: bool) -> str:
    """How one T_GPT control's outcome is shown in the report's controls table (the table's word, not the gate's:
    the controls' reason makes a failed control INVALID)."""
    return Gate.PASS.value if passed else Gate.FAIL.value


def format_ratio(ratio: float | None) -> str:
    """How a gap/floor ratio prints (a zero floor has none): the voice reason's detail and the report's line."""
    return f"{ratio:.1f}x" if ratio is not None else "n/a (zero floor)"


REPLICATES_RULE = "replicates agree"
"""The rule over K samples per item: its reason's ``numbers`` carry ``samples``, ``passed`` (the
replicates that PASS) and ``flips`` (the categories whose word differs between replicates)."""
