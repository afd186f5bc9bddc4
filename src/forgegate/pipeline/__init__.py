"""The one road, end to end: a plan (an eval is a one-arm plan) -> generation into the store -> instruments
-> the gate -> a typed result. See docs/architecture.md.

Nothing here renders or prints; the CLI and the Python API call these functions and hand the result
to ``forgegate.report``.
"""
