"""What ``forgegate watch`` prints as probes arrive: a live table on a terminal, one line per probe elsewhere.

The table has one row per probed checkpoint (step, eval_loss, loops, stop failures, walls broken,
accuracy, failure modes, each mode's count against the baseline probe's with Fisher's p); records
found in the probe file when the watch starts are rows too, marked as probed earlier, so a restarted
watch shows the whole run. Piped or logged, each new
probe is one ``probe_line`` on stdout and each earlier one a note on stderr.
"""

from __future__ import annotations

from rich.console import Console
from rich.live import Live
from rich.table import Table

from forgegate.console import notice
from forgegate.results import ProbeRecord
from forgegate.training.checkpoint_files import Checkpoint
from forgegate.training.probe import probe_line, versus_words
from forgegate.training.records import PROBES_FILE


def make_view(console: Console) -> LiveTable | ProbeLines:
    """The live table when ``console`` is a terminal, plain lines otherwise."""
    return LiveTable(console) if console.is_terminal else ProbeLines(console)


class ProbeLines:
    """One line per probe on stdout (logs, pipes, CI)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def show(self, record: ProbeRecord, *, earlier: bool) -> None:
        if earlier:
            notice(f"already probed ({PROBES_FILE}): {probe_line(record)}")
        else:
            self.console.print(probe_line(record), markup=False, highlight=False, soft_wrap=True)

    def probing(self, checkpoint: Checkpoint) -> None:
        notice(f"probing {checkpoint.name} (step {checkpoint.step})...")

    def close(self) -> None:
        pass


class LiveTable:
    """A rich table redrawn in place as rows arrive."""

    def __init__(self, console: Console) -> None:
        self.rows: dict[tuple[str | None, int], tuple[ProbeRecord, bool]] = {}
        self.current: Checkpoint | None = None
        self.live = Live(self.render(), console=console, auto_refresh=False, redirect_stderr=True,
                         redirect_stdout=False)
        self.live.start()

    def show(self, record: ProbeRecord, *, earlier: bool) -> None:
        self.rows[(record.checkpoint, record.step)] = (record, earlier)
        if self.current is not None and self.current.name == record.checkpoint:
            self.current = None
        self._redraw()

    def probing(self, checkpoint: Checkpoint) -> None:
        self.current = checkpoint
        self._redraw()

    def close(self) -> None:
        self.current = None
        self._redraw()
        self.live.stop()

    def _redraw(self) -> None:
        self.live.update(self.render(), refresh=True)

    def render(self) -> Table:
        table = Table(title="forgegate watch: probes by checkpoint", title_justify="left")
        for name in ("checkpoint", "step", "eval_loss", "loops", "stop failures", "walls broken", "accuracy",
                     "modes", "vs before training", "probe"):
            table.add_column(name, justify="right" if name in ("step", "eval_loss") else "left")
        for record, earlier in sorted(self.rows.values(), key=lambda row: row[0].step):
            table.add_row(*table_cells(record), "earlier" if earlier else f"{record.elapsed_s:.1f} s")
        if self.current is not None:
            table.add_row(self.current.name, str(self.current.step), *[""] * 7, "probing...")
        return table


def table_cells(record: ProbeRecord) -> list[str]:
    """A record's cells, worded as ``probe_line`` words them."""
    loss = f"{record.eval_loss:.4f}" if record.eval_loss is not None else "-"
    accuracy = f"{record.correct}/{record.items}"
    modes = ", ".join(record.failure_modes) or "none"
    if not record.controls_passed:
        modes += " (CONTROLS FAILED: probe INVALID)"
    return [record.checkpoint or "(in memory)", str(record.step), loss, f"{record.loops}/{record.answered}",
            str(record.stop_failures), f"{record.wall_breaks}/{record.walls}", accuracy, modes,
            versus_words(record) or "-"]
