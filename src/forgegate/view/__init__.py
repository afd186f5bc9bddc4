"""``forgegate view``: a local web app over the run store and lineage files (runs, a run, compare, lineage, reviews).

It renders what the pipeline computes and records reviews through the pipeline's own
function; it never scores, gates or compares on its own (docs/architecture.md).
"""

from forgegate.view.app import ViewConfig, create_app
from forgegate.view.serve import serve

__all__ = ["ViewConfig", "create_app", "serve"]
