"""The console script's first frame: nothing but the standard library until the handler is in place.

``forgegate.cli.main`` imports typer, rich and every command module at import time; an error
raised there (a broken install, a dependency that fails to load) would otherwise end as a bare
traceback with exit 1 -- the code of a FAIL. Here it is what every other unexpected error is: a
bug, exit 70, with the traceback in a crash file.
"""

from __future__ import annotations

import sys

EXIT_INTERNAL_ERROR_FALLBACK = 70  # core.verdict.EXIT_INTERNAL_ERROR, restated only for when forgegate cannot import


def main() -> None:
    """Import the command line and run it; an error while importing is a bug (exit 70, crash file)."""
    try:
        from forgegate.cli.main import main as run_command_line
    except Exception as exc:  # noqa: BLE001 - the import itself failed: classify it as the handler would
        sys.exit(_import_failed(exc))
    run_command_line()


def _import_failed(exc: Exception) -> int:
    try:
        from forgegate.cli.failure import crash_message, write_crash_report
        from forgegate.core.verdict import EXIT_INTERNAL_ERROR
    except Exception:  # noqa: BLE001 - even the handler cannot load: the plain traceback is all there is
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
        return EXIT_INTERNAL_ERROR_FALLBACK
    report = write_crash_report(exc, sys.argv)
    print(crash_message(exc, report), file=sys.stderr)
    if report is None:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    return EXIT_INTERNAL_ERROR


if __name__ == "__main__":
    main()
