"""The one road, end to end: a plan (an eval is a one-arm plan) -> generation into the store -> instruments
-> the gate -> a typed result. See docs/architecture.md.

Split by application: ``pipeline.session`` (an eval or live session, and re-scoring a stored one),
``pipeline.plan`` (``plan check`` / ``lock`` and ``run PLAN``) and ``pipeline.semantic`` (the T_GPT study's
metrics, judges and controls). What several of them share stays here: the one generate step
(``generation.py``), the GLOSS scoring steps (``gloss_inputs.py``, ``gloss_scoring.py``, ``review.py``,
``sample_summary.py``, ``format_followup.py``) and the glue that hands an instrument's report to its rule in
``gate/`` (``axes.py``, ``audits.py``, ``checkpoints.py``).

Nothing here renders or prints; the CLI and the Python API call these functions and hand the result
to ``forgegate.report``.
"""
