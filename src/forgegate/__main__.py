"""``python -m forgegate``: the same entry as the ``forgegate`` console script."""

from forgegate.cli.entry import main

main()
