"""The semantic study's road: T_GPT's metrics, judges and experiments as the pipeline runs them.

``judge.py`` builds an LLM judge's backend and hands it to ``forgegate.semantic`` (which builds none);
``table.py`` computes the metrics table and hands it to ``gate.semantic``; ``topology_inputs.py`` (E3),
``recurrence_sheet.py`` (E4's blinded sheet) and ``validation.py`` (the codebook's blinded validation) read what a
plan's experiments need beside the answers; ``commands.py`` is ``forgegate semantic metrics`` / ``relevance`` /
``validate`` / ``compare`` on files. A plan run reaches these through ``pipeline.plan.semantic``; nothing here
imports ``pipeline.plan`` or ``pipeline.session``.
"""
