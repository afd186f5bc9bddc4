"""The eval session's road: ``forgegate eval`` / ``live`` / ``rescore`` and ``forgegate.evaluate``.

The session's options are one declaration (``fields.py``) that the CLI flags, the API's keywords
(``keywords.py``, rendered by ``keywords_render.py``) and the checked options model (``options.py``) are all made
from; ``eval_session.py`` turns them into a one-arm plan's requests, generates them through ``pipeline.generation``
and scores them with the shared GLOSS steps (``pipeline.gloss_inputs``, ``pipeline.gloss_scoring``);
``rescore.py`` scores a stored run again without generating, and ``sources.py`` finds a result by name (a JSON
file, or a stored run re-scored). It imports nothing of ``pipeline.plan`` or ``pipeline.semantic``.
"""
