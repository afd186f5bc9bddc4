"""The reference pages are generated from the code (docs/gen/reference.py); these tests hold the code to
explaining itself: every command and option has help text, every failure mode is described, and no new
result or user-file field arrives without a description."""

from __future__ import annotations

import json

from tests.docs_helpers import reference_module, undescribed_known, undescribed_now


def test_every_command_and_option_has_help_text() -> None:
    assert reference_module().cli_missing_help() == []


def test_the_cli_page_lists_every_command_with_each_option_and_its_help() -> None:
    ref = reference_module()
    page = ref.cli_page()
    docs = list(ref.walk_commands())
    assert len(docs) > 20
    for doc in docs[1:]:
        assert f"`{' '.join(doc.path)}`" in page
        for param in doc.params:
            assert param["names"] in page
    assert "`--battery`" in page and "Battery JSONL" in page  # an option of eval with its help text


def test_a_command_or_option_without_help_is_found() -> None:
    import typer

    app = typer.Typer(help="A test app.")

    @app.command()
    def bare(flag: bool = typer.Option(False, "--flag")) -> None:
        pass

    @app.command()
    def explained(flag: bool = typer.Option(False, "--flag", help="Explained.")) -> None:
        """Explained."""

    missing = reference_module().cli_missing_help(typer.main.get_command(app))
    assert missing == ["forgegate bare", "forgegate bare `--flag`"]


def test_exit_codes_page_has_every_code() -> None:
    page = reference_module().exit_codes_page()
    for code in ("`0`", "`1`", "`2`", "`3`", "`4`", "`70`", "`130`", "`141`", "`143`"):
        assert f"| {code} |" in page


def test_every_failure_mode_is_described_and_on_the_page() -> None:
    from forgegate.core.modes import FailureMode

    ref = reference_module()
    assert ref.failure_modes_missing() == []
    page = ref.failure_modes_page()
    for mode in FailureMode:
        assert f"## {mode.value}" in page


def test_every_result_kind_has_a_page_from_its_schema() -> None:
    from forgegate.results import MODELS

    pages = reference_module().pages()
    for kind in MODELS:
        page = pages[f"reference/results/{kind}.md"]
        assert "`schema_version`" in page and "`kind`" in page
    assert json.loads(pages["reference/results/eval.md"].split("    ```json\n", 1)[1].split("    ```", 1)[0]
                      .replace("\n    ", "\n"))["title"]


def test_no_new_field_without_a_description() -> None:
    """Fields listed in tests/data/docs_undescribed_fields.txt predate this rule; a field not listed there must
    carry a description (an attribute docstring under ``use_attribute_docstrings`` or ``Field(description=)``)."""
    known = undescribed_known()
    known_models = {line.split(":", 1)[1] for line in known}
    # a kind that nests another kind's model (graduation holds an eval and a comparison) reaches the same class's
    # fields, listed under the kind that owns them: only a field undescribed under no kind at all is new
    new = sorted(f for f in undescribed_now() - known if f.split(":", 1)[1] not in known_models)
    assert new == [], (f"these fields have no description, so the docs cannot explain them: {new}. Add an "
                       f"attribute docstring under the field (the result models use use_attribute_docstrings).")
