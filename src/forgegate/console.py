"""The two rich consoles every part prints through: results to stdout, progress and errors to stderr."""

from rich.console import Console

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def notice(text: str) -> None:
    """One plain line on stderr (no markup: paths and ids are printed as they are)."""
    err_console.print(text, markup=False, soft_wrap=True)
