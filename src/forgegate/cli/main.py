"""The ``forgegate`` command: typer wiring, and the one handler every command ends through.

Command modules import their heavy work inside the command bodies, so that ``--help``,
``--version`` and parsing the options stay fast (tests/test_cli_startup.py checks the modules).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import typer
from rich.markup import escape

from forgegate.activity import Activity, watching
from forgegate.cli import commands
from forgegate.cli.common import err_console

app = typer.Typer(
    name="forgegate",
    help="Decide whether a trained language-model checkpoint ships.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _print_version(value: bool) -> None:
    """Eager: runs while the options are parsed, before click asks for a command."""
    if value:
        from forgegate.core.version import __version__

        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True,
                                 callback=_print_version),
) -> None:
    pass


commands.register_all(app)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises KeyboardInterrupt, so every command ends it the same way (what is
    stored is kept, the resume line is printed); only the exit code differs (143)."""


@contextmanager
def _sigterm_as_interrupt() -> Iterator[list[bool]]:
    """While a command runs, SIGTERM is Ctrl-C; the list holds True once one arrived.

    The handler raises SIGINT, so whatever handles Ctrl-C at that moment handles it: inside
    ``asyncio.run`` the runner cancels the main task (an exception raised from a signal handler at an
    arbitrary point could land inside an async generator's cleanup and print a traceback instead).
    Where SIGINT is ignored (a background job), ``Terminated`` is raised directly. Only the main thread
    may set a handler (a command run from a test's worker thread keeps the default).
    """
    seen: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield seen
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        seen.append(True)
        if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
            raise Terminated
        signal.raise_signal(signal.SIGINT)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(argv: list[str]) -> int:
    """Run the command line ``argv`` (``argv[0]`` the program) and return its exit code, whatever happens.

    typer runs in standalone mode: it prints click's usage errors itself (exit 2), passes on the
    codes commands exit with, and turns Ctrl-C inside a command into exit 130. Every exception
    that escapes a command is classified by forgegate.cli.failure: 2 for the user's to fix,
    70 for a bug.
    """
    stdout_at_start = _stdout_identity()
    with watching() as activity, _sigterm_as_interrupt() as terminated:
        try:
            app(args=argv[1:], prog_name="forgegate")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if _stdout_closed(stdout_at_start):
                return _broken_pipe()
            if code != 0:
                from forgegate.core.verdict import EXIT_INTERRUPTED

                if code == EXIT_INTERRUPTED or terminated:
                    return _interrupted(activity, argv, terminated=bool(terminated))
            return code
        except KeyboardInterrupt:  # Ctrl-C outside a command's body (while options are parsed)
            return _interrupted(activity, argv, terminated=bool(terminated))
        except Exception as exc:  # noqa: BLE001 - the one place every unexpected error is classified
            return _failed(exc, argv, activity)
    return 0


def _stdout_identity() -> tuple[int, int] | None:
    """The file behind descriptor 1 (device, inode), to see later whether a broken pipe replaced it."""
    import os

    try:
        st = os.fstat(1)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _stdout_closed(at_start: tuple[int, int] | None) -> bool:
    """Whether the command ended because nobody reads stdout any more.

    Every layer meets a closed pipe its own way and exits 1, the code of a FAIL: typer wraps the
    streams in click's ``PacifyFlushWrapper`` (typer vendors its own click, so the class is known by
    name), rich (typer's help pages) points descriptor 1 at /dev/null. forgegate's own consoles exit
    141 themselves (:mod:`forgegate.console`).
    """
    return type(sys.stdout).__name__ == "PacifyFlushWrapper" or _stdout_identity() != at_start


def _broken_pipe() -> int:
    """End quietly when nobody reads stdout any more: point it at /dev/null so the final flush cannot fail."""
    import os

    from forgegate.core.verdict import EXIT_BROKEN_PIPE

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
        os.close(devnull)
    except OSError:
        pass
    return EXIT_BROKEN_PIPE


def _interrupted(activity: Activity, argv: list[str], *, terminated: bool = False) -> int:
    from forgegate.cli.failure import interrupted_message
    from forgegate.core.verdict import EXIT_INTERRUPTED, EXIT_TERMINATED
    from forgegate.textsafe import visible

    how = "terminated (SIGTERM)" if terminated else "interrupted"
    err_console.print(escape(visible(interrupted_message(activity, argv, how))), soft_wrap=True)
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def _failed(exc: Exception, argv: list[str], activity: Activity) -> int:
    from forgegate.cli.failure import crash_message, interrupted_message, user_fault, write_crash_report
    from forgegate.core.verdict import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR
    from forgegate.errors import RequestsIncomplete
    from forgegate.textsafe import visible  # a path or message may carry ESC from a file name or a file

    if isinstance(exc, RequestsIncomplete):  # a request failed for good: the gate's word (INCOMPLETE), never 2 or 70
        from forgegate.pipeline.semantic.judge import judge_failed

        verdict = judge_failed(exc)
        kept = f"\n{interrupted_message(activity, argv, 'kept')}" if activity.stores else ""
        err_console.print(f"[{verdict.gate.colour}]{verdict.gate.value}:[/] {escape(visible(str(exc) + kept))}",
                          markup=True, soft_wrap=True)
        return verdict.gate.exit_code
    message = user_fault(exc, activity.stores[-1].path if activity.stores else None)
    if message is not None:
        err_console.print(f"[bold red]error:[/] {escape(visible(message))}", markup=True, soft_wrap=True)
        return EXIT_BAD_INPUT
    report = write_crash_report(exc, argv)
    err_console.print(f"[bold red]{escape(visible(crash_message(exc, report)))}[/]", markup=True, soft_wrap=True)
    if report is None:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    return EXIT_INTERNAL_ERROR


def main() -> None:
    """Run the command line in ``sys.argv`` and exit with its code (the console script enters through
    :mod:`forgegate.cli.entry`, which also classifies an error raised while importing this module)."""
    code = run(sys.argv)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _broken_pipe()
    sys.exit(code)


if __name__ == "__main__":
    main()
