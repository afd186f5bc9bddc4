"""Plan files: presets validate; bad plans are refused with the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgegate.errors import InputError
from forgegate.plan import (
    INSTRUMENT_NAMES,
    PRESETS,
    check_adapters,
    check_inputs,
    load_plan,
    parse_plan_text,
    write_preset,
)
from forgegate.plan.instruments import ENDPOINTS, Instruments
from forgegate.tomlio import TomlLocator
from tests.plan_helpers import PLAN, line_of, write_plan_folder


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_writes_a_plan_that_loads_and_validates(preset: str, tmp_path: Path) -> None:
    path = write_preset(preset, tmp_path / f"{preset}.toml")
    loaded = load_plan(path)
    assert loaded.plan.instruments.declared()
    assert "#" in path.read_text()  # commented


def test_hemingway_preset_expresses_the_preregistration() -> None:
    plan = parse_plan_text(Path("h.toml"), PRESETS["hemingway"]).plan
    assert [a.name for a in plan.arms] == ["base-unadapted", "ckpt1750", "ckpt850"]
    assert {a.model for a in plan.arms} == {"~/carriers/Qwen3-4B-Instruct"}
    assert plan.arms[0].adapter is None and plan.arms[1].adapter and plan.arms[2].adapter
    assert plan.seed_list() == (1234, 5678, 9012, 3456)
    assert plan.author == "Hemingway"
    assert plan.instruments.voice is not None and plan.instruments.voice.floor == "pairwise"
    assert plan.instruments.memorization is not None and plan.instruments.memorization.n == 8
    assert plan.instruments.damage is not None and plan.instruments.damage.band == (90, 150)
    assert [(c.control, c.candidate) for c in plan.comparisons] == [("base-unadapted", "ckpt1750"),
                                                                      ("base-unadapted", "ckpt850")]


def test_tgpt_preset_has_64_samples_and_rec_gain_primary() -> None:
    plan = parse_plan_text(Path("t.toml"), PRESETS["tgpt"]).plan
    assert len(plan.seed_list()) == 64
    assert plan.comparisons[0].primary == "semantic.REC_GAIN"
    assert plan.arm("R").render("Q?").startswith("Q?\n\nConsider")


def test_instrument_names_have_one_source() -> None:
    assert set(Instruments.model_fields) == set(INSTRUMENT_NAMES) == set(ENDPOINTS)


def refused(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        parse_plan_text(Path("plan.toml"), text)
    return info.value


def test_unknown_key_in_second_arm_names_its_line_and_suggests_the_field() -> None:
    text = PLAN.replace('adapter = "models/ckpt1"', 'adaptor = "models/ckpt1"')
    err = refused(text)
    assert err.line == line_of(text, "adaptor")
    assert err.field == "arms.1.adaptor"
    assert "did you mean 'adapter'" in str(err)
    assert str(err).startswith(f"plan.toml:{err.line}:")


def test_unknown_backend_is_refused_at_its_line_with_the_registered_names() -> None:
    text = PLAN.replace('backend = "transformers"\nmodel = "models/base"\nadapter',
                        'backend = "transformer"\nmodel = "models/base"\nadapter')
    err = refused(text)
    assert err.line == line_of(text, 'backend = "transformer"')
    assert "did you mean 'transformers'" in str(err) and "ollama" in str(err)


def test_missing_required_field_points_at_its_table() -> None:
    text = PLAN.replace("segment_words = 100\n", "")
    err = refused(text)
    assert err.line == line_of(text, "[instruments.voice]")
    assert err.field == "instruments.voice.segment_words"
    assert "required" in str(err)


def test_voice_without_author_is_refused_there_is_no_default() -> None:
    text = PLAN.replace('author = "Austen"\n', "")
    err = refused(text)
    assert err.line == line_of(text, "[instruments.voice]")
    assert "author" in str(err)


def test_wrong_type_in_a_dotted_table_names_the_key_line() -> None:
    text = PLAN.replace("temperature = 0.7", 'temperature = "hot"')
    err = refused(text)
    assert err.line == line_of(text, "temperature")
    assert err.field == "sampling.temperature"


def test_comparison_against_a_missing_arm_is_refused() -> None:
    text = PLAN.replace('candidate = "ckpt1"', 'candidate = "ckpt2"')
    err = refused(text)
    assert err.line == line_of(text, 'candidate = "ckpt2"')
    assert "no arm named 'ckpt2'" in str(err)


def test_comparison_roles_must_match_the_arms() -> None:
    text = PLAN.replace('control = "base"', 'control = "ckpt1"').replace('candidate = "ckpt1"',
                                                                         'candidate = "base"')
    err = refused(text)
    assert "has role 'candidate', not 'control'" in str(err)


def test_primary_endpoint_must_be_known_and_declared() -> None:
    err = refused(PLAN.replace('primary = "voice.delta_gap"', 'primary = "voice.delta"'))
    assert "did you mean 'voice.delta_gap'" in str(err)
    err = refused(PLAN.replace('primary = "voice.delta_gap"', 'primary = "semantic.REC_GAIN"'))
    assert "semantic instrument, which is not declared" in str(err)


def test_duplicate_arm_names_are_refused_at_the_second() -> None:
    text = PLAN.replace('name = "ckpt1"', 'name = "base"')
    err = refused(text)
    assert err.line == line_of(text, 'name = "base"', occurrence=2)


def test_bad_toml_reports_the_parser_line() -> None:
    text = PLAN.replace("max_tokens = 40", "max_tokens = = 40")
    err = refused(text)
    assert err.line == line_of(text, "max_tokens = = 40")
    assert "not valid TOML" in str(err)


def test_confirmatory_semantic_needs_64_samples() -> None:
    text = PRESETS["tgpt"].replace("count = 64", "count = 10")
    err = refused(text)
    assert "at least 64" in str(err) and err.line == line_of(text, "seeds = ")


def test_missing_input_file_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write_plan_folder(tmp_path)
    (tmp_path / "corpus.txt").unlink()
    with pytest.raises(InputError) as info:
        check_inputs(load_plan(path))
    assert info.value.line == line_of(PLAN, "corpus = ")
    assert "corpus.txt" in str(info.value)


def test_locator_handles_multiline_arrays_and_strings() -> None:
    text = 'a = [\n  "[x]",\n  "y = 1",\n]\ns = """\n[fake]\nk = 2\n"""\n[real]\nk = 3\n'
    locator = TomlLocator(text)
    assert locator.line_of(("real", "k")) == 10
    assert locator.line_of(("fake",)) is None
    assert locator.line_of(("a", 1)) == 1


@pytest.mark.parametrize("backend", ["openai", "ollama", "embedded"])
def test_adapter_on_a_backend_that_cannot_load_one_is_refused_at_its_line(backend: str) -> None:
    text = PLAN.replace('backend = "transformers"\nmodel = "models/base"\nadapter',
                        f'backend = "{backend}"\nmodel = "models/base"\nadapter')
    err = refused(text)
    assert err.line == line_of(text, 'adapter = "models/ckpt1"') and err.field == "arms.1.adapter"
    assert f"the {backend} backend cannot load an adapter" in str(err)


def test_adapter_refusal_on_openai_says_to_serve_the_lora_by_name_in_model() -> None:
    err = refused(PLAN.replace('backend = "transformers"\nmodel = "models/base"\nadapter',
                               'backend = "openai"\nmodel = "models/base"\nadapter'))
    assert "vLLM" in str(err) and "--lora-modules" in str(err) and "'model'" in str(err)


def test_missing_transformers_adapter_folder_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write_plan_folder(tmp_path)
    assert check_adapters(load_plan(path)) == [(tmp_path / "models" / "ckpt1").resolve()]
    (tmp_path / "models" / "ckpt1" / "adapter_config.json").unlink()
    with pytest.raises(InputError) as info:
        check_adapters(load_plan(path))
    assert info.value.line == line_of(PLAN, "adapter = ") and "no adapter_config.json" in str(info.value)
    path.write_text(PLAN.replace('adapter = "models/ckpt1"', 'adapter = "models/nowhere"'))
    with pytest.raises(InputError) as info:
        check_adapters(load_plan(path))
    assert "adapter folder not found" in str(info.value) and info.value.field == "arms.1.adapter"


@pytest.mark.parametrize("instruments", ["voice+damage", "damage only"])
def test_one_seed_is_refused_at_the_seeds_line_when_a_seed_spread_floor_is_needed(instruments: str) -> None:
    text = PLAN.replace("seeds = [1, 2]", "seeds = [1234]")
    if instruments == "damage only":
        text = (text.replace('author = "Austen"\n', "")
                .replace('[instruments.voice]\nreference = "reference.txt"\nsegment_words = 100\n', "")
                .replace('primary = "voice.delta_gap"', 'primary = "damage.ran_on"'))
    err = refused(text)
    assert err.line == line_of(text, "seeds = [1234]") and err.field == "seeds"
    assert "seed-spread floor" in str(err) and "at least 2 seeds" in str(err)


def test_one_seed_is_accepted_when_no_instrument_needs_a_seed_spread() -> None:
    text = (PLAN.replace("seeds = [1, 2]", "seeds = [1234]").replace('author = "Austen"\n', "")
            .replace('[instruments.voice]\nreference = "reference.txt"\nsegment_words = 100\n', "")
            .replace("[instruments.damage]\nband = [5, 60]\n", "")
            .replace('primary = "voice.delta_gap"', 'primary = "memorization.hit_rate"'))
    assert parse_plan_text(Path("plan.toml"), text).plan.seed_list() == (1234,)
