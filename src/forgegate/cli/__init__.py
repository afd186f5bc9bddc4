"""The command-line interface (typer). No logic of its own: it wires the packages."""
