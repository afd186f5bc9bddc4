"""The plan's road: ``forgegate plan check`` / ``lock`` and ``forgegate run PLAN``, from a locked plan to its result.

``store.py`` finds the plan's run and checks its lock; ``fixture.py`` loads its items; ``checks.py`` is the
preflight that loads each declared instrument's inputs (with ``confirmatory.py`` and ``audit.py`` /
``fixture_audit.py`` at check and lock); ``generate.py`` generates every arm x item x seed through
``pipeline.generation`` (resumable), and ``score.py`` scores each instrument (``gloss.py``; ``semantic.py``
with ``quality_scoring.py`` and ``cost.py``; ``pipeline.axes`` for voice, memorisation and damage), hands the
measurements to the gate and builds the typed ``PlanResult``.
``quality_sheet.py`` writes a plan's blinded human-review sheets.
"""
