"""The two rich consoles every part prints through: results to stdout, progress and errors to stderr."""

from rich.console import Console

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)
