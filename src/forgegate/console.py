"""The two rich consoles every part prints through: results to stdout, progress and errors to stderr."""

import os
import sys

from rich.console import Console

from forgegate.core.verdict import EXIT_BROKEN_PIPE


class _QuietOnClosedPipe(Console):
    """A console that ends the command with 141 (128 + SIGPIPE) when its reader goes away.

    rich's default ends with exit 1, which a CI job reads as FAIL; ``forgegate runs | head`` is no verdict.
    """

    def on_broken_pipe(self) -> None:
        self.quiet = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise SystemExit(EXIT_BROKEN_PIPE)


console = _QuietOnClosedPipe(highlight=False)
err_console = _QuietOnClosedPipe(stderr=True, highlight=False)


def notice(text: str) -> None:
    """One plain line on stderr (no markup: paths and ids are printed as they are)."""
    err_console.print(text, markup=False, soft_wrap=True)
