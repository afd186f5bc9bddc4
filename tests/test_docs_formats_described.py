"""Issue 39 item 4: every field of a file the user writes has a description, so the generated format pages can
explain it (11 of the battery's 15 fields and every core gate-config field had none). No ratchet list here: a
field added without a description fails this test."""

from __future__ import annotations

import pytest
from docs_helpers import reference_module

USER_FORMATS = ("battery", "gate-config", "plan")


@pytest.mark.parametrize("key", USER_FORMATS)
def test_every_field_of_a_user_file_format_has_a_description(key: str) -> None:
    ref = reference_module()
    _title, cls, _source = ref.FILE_FORMATS[key]
    missing = ref.undescribed_fields(ref.file_format_schema(key), cls)
    assert missing == [], f"{key}: these fields have no description (add an attribute docstring): {missing}"


def test_the_gate_config_page_defines_sigma_total_and_states_the_rules() -> None:
    page = reference_module().pages()["reference/formats/gate-config.md"]
    assert "σ_total, the weighted mean of the category scores" in page
    assert "the whole battery (all categories together)" in page  # min_items counts the whole battery
    assert "required even when no live test runs" in page
    battery = reference_module().pages()["reference/formats/battery.md"]
    assert "answer_content" in battery and "FAIL if answered" in battery  # what answering a wall looks like
