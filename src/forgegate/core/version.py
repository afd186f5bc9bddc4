"""forgegate's version, as installed (recorded in every run store and result)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("forgegate")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
