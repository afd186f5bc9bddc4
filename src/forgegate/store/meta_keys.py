"""Meta keys the runner writes into a run store and its readers (``forgegate view``, ``runs``) read.

They sit with the store, not the runner, so a reader of a store never imports the code that generates.
"""

from __future__ import annotations

PLANNED_KEY = "planned_requests"
"""Meta key: how many requests the run plans (arms x items x seeds), set each time generation starts."""
GENERATING_KEY = "generating"
"""Meta key: ``{"pid", "host", "since"}`` while a process generates into the store, ``None`` after."""
