"""forgegate: decide whether a trained language-model checkpoint ships.

A pre-registered plan -> generation through a model backend into a durable run
store -> instruments -> a gate -> a report.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("forgegate")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
