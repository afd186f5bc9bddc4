"""Progress bars for long generation: requests done / total, tokens/s, errors, ETA; silent off a TTY."""

from __future__ import annotations

import time
from types import TracebackType
from typing import TYPE_CHECKING

from forgegate.console import err_console

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class RunProgress:
    """A context manager; ``quiet`` (CI logs, --quiet) turns it into a no-op."""

    def __init__(self, total: int, *, quiet: bool, description: str = "generating", growing: bool = False) -> None:
        self.total = total
        self.quiet = quiet or (total == 0 and not growing)
        """``growing``: the work is learned as it goes (an LLM judge's batches), so the total grows (:meth:`extend`)
        and one display serves it all, instead of one bar flashing per batch."""
        self.tokens = 0
        self.failed = 0
        self._started = time.perf_counter()
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._description = description

    def __enter__(self) -> RunProgress:
        if not self.quiet:
            # rich's progress display (and its tables) load only for a bar shown: a quiet or stored run skips them
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} tok/s"),
                TextColumn("errors {task.fields[failed]}"),
                TimeRemainingColumn(),
                console=err_console,
                transient=True,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(self._description, total=self.total, rate="-", failed=0)
        return self

    def extend(self, more: int) -> None:
        """``more`` requests joined the work (a growing display)."""
        self.total += more
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, total=self.total)

    def advance(self, *, tokens: int, failed: bool) -> None:
        self.tokens += tokens
        self.failed += int(failed)
        if self._progress is not None and self._task is not None:
            elapsed = max(time.perf_counter() - self._started, 1e-9)
            self._progress.update(
                self._task, advance=1, rate=f"{self.tokens / elapsed:.0f}", failed=self.failed
            )

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, tb)
