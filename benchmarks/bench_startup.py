"""Start-up: ``forgegate --help`` against a minimal two-command typer app's ``--help``, same interpreter.

Both run as fresh subprocesses of this interpreter (``python tmp_app.py --help`` and
``python -m forgegate.cli.main --help``), several times each, interleaved so that load on the
machine hits both; the medians and their ratio are printed (target, issue 34: forgegate within 1.5x the bare
app). What the CLI imports at start is checked by tests/test_cli_startup.py; this measures the clock.

Run: python benchmarks/bench_startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 1.5

MINIMAL_APP = '''
import typer

app = typer.Typer()


@app.command()
def hello(name: str) -> None:
    """Say hello."""
    typer.echo(f"hello {name}")


@app.command()
def bye(name: str) -> None:
    """Say goodbye."""
    typer.echo(f"bye {name}")


if __name__ == "__main__":
    app()
'''


def wall(argv: list[str]) -> float:
    """Seconds from spawn to exit of one ``--help`` run; a failure stops the benchmark."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15, help="Runs of each command (after one warm-up each).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "tmp_app.py"
        app.write_text(MINIMAL_APP, encoding="utf-8")
        commands = {
            "minimal typer app": [sys.executable, str(app), "--help"],
            "forgegate": [sys.executable, "-m", "forgegate.cli.main", "--help"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():
            wall(argv)  # warm-up: the first run pays for reading the files from disk
        for _ in range(args.runs):
            for name, argv in commands.items():
                times[name].append(wall(argv))
    medians = {name: statistics.median(runs) for name, runs in times.items()}
    for name, runs in times.items():
        print(f"{name:>18} --help: median {medians[name]:.3f} s (min {min(runs):.3f}, max {max(runs):.3f}, "
              f"{len(runs)} runs)")
    ratio = medians["forgegate"] / medians["minimal typer app"]
    print(f"ratio forgegate / minimal: {ratio:.2f} (target <= {TARGET_RATIO:g}: "
          f"{'met' if ratio <= TARGET_RATIO else 'NOT met'} on this machine now)")


if __name__ == "__main__":
    main()
