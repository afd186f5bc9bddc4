"""The semantic study's road: T_GPT's metrics, judges and controls as the pipeline runs them.

``judge.py`` builds an LLM judge's backend and hands it to ``forgegate.semantic`` (which builds none);
``table.py`` computes the metrics table and hands it to ``gate.semantic``; ``recurrence.py``, ``topology.py``
and ``validation.py`` run the study's controls; ``commands.py`` is ``forgegate semantic metrics`` / ``relevance``
/ ``validate`` / ``compare`` on files. A plan run reaches these through ``pipeline.plan.semantic``; nothing
here imports ``pipeline.plan`` or ``pipeline.session``.
"""
