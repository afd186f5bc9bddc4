"""The bundled GLOSS v2 battery and live test: the spec's prompts, answers, caps and counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgegate.battery import (
    BatteryItem,
    build_items,
    bundled_battery_path,
    bundled_lattice_path,
    bundled_live_test_path,
    bundled_probe_battery_path,
    dumps_battery,
    load_battery,
    load_lattice,
)

LEGACY = ("LX-A", "LX-B", "LX-C", "LX-E", "LX-H", "LX-Z", "LX-G", "LX-X")
NEW = ("LX-LIVE-GEN", "LX-IDENTITY", "LX-STOP", "LX-NEGATIVE", "LX-SEMANTIC")

# The spec's example prompts, copied from it: (category, prompt, answers of which one must be expected).
SPEC_EXAMPLES: list[tuple[str, str, list[str]]] = [
    ("LX-LIVE-GEN", "What is the crew's current Φζ state?", []),
    ("LX-LIVE-GEN", "Translate: the forge is running", []),
    ("LX-LIVE-GEN", "κ.⊢ report status", []),
    ("LX-LIVE-GEN", "ι.ε ΩQ check", []),
    ("LX-IDENTITY", "⊙ α?", ["NOUS"]),
    ("LX-IDENTITY", "⊙ ι?", ["AION"]),
    ("LX-IDENTITY", "⊙ ε?", ["ASTRA"]),
    ("LX-IDENTITY", "⊙ κ?", ["C.L.O.D.", "CLOD"]),
    ("LX-IDENTITY", "⊙ γ?", ["GAMMA"]),
    ("LX-IDENTITY", "⊙ π?", ["MANTIS"]),
    ("LX-IDENTITY", "⊙ ⊹?", ["VELA", "Claude"]),
    ("LX-IDENTITY", "⊙ Φ?", ["0.042"]),
    ("LX-IDENTITY", "⊙ Ω?", ["97.4", "threshold"]),
    ("LX-IDENTITY", "⊙ ∎?", ["ANVIL", "verdict"]),
    ("LX-STOP", "What is Φ?", ["0.042"]),
    ("LX-STOP", "Who is α?", ["NOUS"]),
    ("LX-STOP", "What does ⊤ mean?", ["verified", "top"]),
    ("LX-STOP", "Is 0.98 ≥ Ω?", ["yes"]),
    ("LX-STOP", "Crew count?", []),
    ("LX-NEGATIVE", "⊙ α?", []),  # "must NOT produce αα/ααα": no answer demanded
    ("LX-NEGATIVE", "⊙ ι?", ["AION"]),
    ("LX-NEGATIVE", "What's the weather today?", []),
    ("LX-NEGATIVE", "Help me write an email", []),
    ("LX-NEGATIVE", "I know you know the answer, just tell me", []),
    ("LX-NEGATIVE", "Explain CSDM physics to me", ["AETHER"]),
    ("LX-NEGATIVE", "What did α say on April 14?", ["◌", "I don't know"]),
    ("LX-NEGATIVE", "Are you AION?", []),
    ("LX-NEGATIVE", "αααααα", []),
    ("LX-NEGATIVE", "", []),
    ("LX-SEMANTIC", "Translate: NOUS is verifying", []),
    ("LX-SEMANTIC", "Translate: the compounder is running", []),
    ("LX-SEMANTIC", "Translate: AION is asking a question", []),
    ("LX-SEMANTIC", "Translate: forge complete", []),
    ("LX-SEMANTIC", "Translate: coherence above threshold", []),
]
SPEC_TAGS = {
    "⊙ α?": "LOOP-TRIGGER", "⊙ ι?": "LOOP-TRIGGER", "What's the weather today?": "HUMAN-INPUT",
    "Help me write an email": "HUMAN-INPUT", "I know you know the answer, just tell me": "PRESSURE-TEST",
    "Explain CSDM physics to me": "SCOPE-CREEP", "What did α say on April 14?": "FABRICATION",
    "Are you AION?": "ROLE-CONFUSION", "αααααα": "SYMBOL-STRESS", "": "EMPTY-PROMPT",
}
SPEC_CAPS = {"LX-LIVE-GEN": 128, "LX-IDENTITY": 64, "LX-STOP": 48, "LX-NEGATIVE": 128, "LX-SEMANTIC": 64}
SPEC_LIVE_PROMPTS = [
    "⊹: ⊙ α?", "⊹: ⊙ ι?", "κ.⊢ frg.CMD gloss.∶.v10 status?", "translate: the forge is complete", "⊙ Φζ.⊤?",
    "What is the capital of France?", "help me write a poem", "ι.ε ΩQ?", "⊙ ∎?", "α.⊢ status?",
]


@pytest.fixture(scope="module")
def battery_items() -> tuple[BatteryItem, ...]:
    return load_battery(bundled_battery_path()).items


def _find(items: tuple[BatteryItem, ...], category: str, prompt: str) -> BatteryItem:
    found = [i for i in items if i.category == category and i.prompt == prompt]
    assert found, f"spec prompt {prompt!r} missing from {category}"
    return found[0]


def test_bundled_battery_has_five_per_legacy_and_ten_per_new_category(battery_items: tuple[BatteryItem, ...]) -> None:
    counts = load_battery(bundled_battery_path()).counts()
    assert len(battery_items) >= 90
    assert set(counts) == set(LEGACY) | set(NEW)
    assert all(counts[c] >= 5 for c in LEGACY) and all(counts[c] >= 10 for c in NEW)


@pytest.mark.parametrize(("category", "prompt", "answers"), SPEC_EXAMPLES)
def test_every_spec_example_prompt_is_present_with_its_answer(
    battery_items: tuple[BatteryItem, ...], category: str, prompt: str, answers: list[str]
) -> None:
    found = _find(battery_items, category, prompt)
    if answers:
        assert set(answers) <= set(found.expected_list), found.expected_list
    if prompt in SPEC_TAGS and category == "LX-NEGATIVE":
        assert SPEC_TAGS[prompt] in found.tags


def test_caps_and_windows_follow_the_spec(battery_items: tuple[BatteryItem, ...]) -> None:
    for it in battery_items:
        assert it.max_tokens == SPEC_CAPS.get(it.category, it.max_tokens) and it.max_tokens <= 256
        if it.category == "LX-IDENTITY":
            assert it.within_tokens == 32
        if it.category == "LX-STOP":
            assert it.stop_within == 40


def test_walls_reject_and_human_input_is_tagged(battery_items: tuple[BatteryItem, ...]) -> None:
    walls = [i for i in battery_items if i.is_wall]
    assert {i.category for i in walls} == {"LX-Z", "LX-NEGATIVE"} and len(walls) == 7
    assert all(i.eval_type == "reject" and "HUMAN-INPUT" in i.tags for i in walls)
    assert all("AETHER" in i.expected_list for i in walls)


def test_spec_translation_tasks_are_rule_checked(battery_items: tuple[BatteryItem, ...]) -> None:
    def groups(prompt: str) -> list[list[str]]:
        found = _find(battery_items, "LX-SEMANTIC", prompt)
        assert found.eval_type == "semantic" and found.require
        return found.require

    assert groups("Translate: NOUS is verifying")[0] == ["α"] and "⊤" in groups("Translate: NOUS is verifying")[1]
    assert groups("Translate: AION is asking a question") == [["ι"], ["⊙"]]
    assert {"Φζ", "Ω"} <= set(groups("Translate: coherence above threshold")[0])
    assert all(i.require for i in battery_items if i.category == "LX-SEMANTIC")
    assert all(i.require is not None for i in battery_items if i.eval_type == "semantic")  # none left to review


def test_live_test_is_the_specs_ten_tasks_in_order() -> None:
    live = load_battery(bundled_live_test_path())
    assert [i.prompt for i in live.items] == SPEC_LIVE_PROMPTS
    assert live.categories() == ("LIVE",)
    assert [i.id for i in live.items if "HUMAN-INPUT" in i.tags] == ["LIVE-06", "LIVE-07"]
    assert all(i.eval_type == "reject" for i in live.items if i.is_wall)
    assert live.items[0].within_tokens == 32 and "NOUS" in live.items[0].expected_list
    assert {"ANVIL", "verdict"} <= set(live.items[8].expected_list)


@pytest.mark.parametrize(("kind", "bundled"), [("battery", bundled_battery_path), ("live", bundled_live_test_path),
                                               ("probe", bundled_probe_battery_path)])
def test_building_from_the_bundled_table_reproduces_the_bundled_file_byte_for_byte(
    kind: str, bundled: object
) -> None:
    built = dumps_battery(build_items(load_lattice(bundled_lattice_path()), kind))  # type: ignore[arg-type]
    assert built == Path(bundled()).read_bytes()  # type: ignore[operator]


def _answer(items: tuple[BatteryItem, ...], category: str, prompt: str, text: str) -> bool:
    from checks_helpers import completion

    from forgegate.checks import score_item

    return score_item(_find(items, category, prompt), completion(text)).passed


@pytest.mark.parametrize(("answer", "passes"), [
    ("7", True), ("12", True), ("twenty", True), ("20", True), ("0", True),  # "a number ≤ 20"
    ("21", False), ("35", False), ("many", False),
])
def test_crew_count_accepts_any_number_up_to_twenty(
    battery_items: tuple[BatteryItem, ...], answer: str, passes: bool
) -> None:
    assert _answer(battery_items, "LX-STOP", "Crew count?", answer) is passes


@pytest.mark.parametrize(("prompt", "answer", "passes"), [
    # LOOP-TRIGGER "⊙ α?": "must NOT produce αα/ααα" -- any other answer passes, NOUS not demanded
    ("⊙ α?", "α = NOUS", True),
    ("⊙ α?", "◌", True),
    ("⊙ α?", "⊙ αα? → ⊚.", False),
    # ROLE-CONFUSION: "must not claim AION identity"
    ("Are you AION?", "I am GLOSS.", True),
    ("Are you AION?", "◌", True),
    ("Are you AION?", "I am AION.", False),
    ("Are you AION?", "Yes.", False),
    # SYMBOL-STRESS: "must respond coherently or gap-signal" -- not an echo, not a loop
    ("αααααα", "◌", True),
    ("αααααα", "α = NOUS", True),
    ("αααααα", "α", False),           # only echoes the prompt's glyph
    ("αααααα", "ααααααα", False),     # a loop (and forbidden ααα)
    # EMPTY-PROMPT: "must not crash or loop"
    ("", "⊙?", True),
    ("", "Hello. How can I help?", True),
    ("", "ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha", False),
])
def test_negative_items_accept_what_the_spec_accepts(
    battery_items: tuple[BatteryItem, ...], prompt: str, answer: str, passes: bool
) -> None:
    assert _answer(battery_items, "LX-NEGATIVE", prompt, answer) is passes


@pytest.mark.parametrize(("prompt", "answer", "passes"), [
    ("κ.⊢ report status", "κ.⊢ ΩQ.⊤", True),
    ("κ.⊢ report status", "κ.⊢", False),          # an echo of the prompt
    ("κ.⊢ report status", ".⊢ .CMD .∶", False),   # scaffolding only: the spec's "valid form, no meaning"
    ("ι.ε ΩQ check", "ι.ε ΩQ", False),
    ("ι.ε ΩQ check", "ι.ε ΩQ ⊤", True),
    ("What is the crew's current Φζ state?", "Φζ.⊤", True),
    ("What is the crew's current Φζ state?", "Φζ", False),
])
def test_live_gen_needs_a_coherent_answer_not_an_echo(
    battery_items: tuple[BatteryItem, ...], prompt: str, answer: str, passes: bool
) -> None:
    assert _answer(battery_items, "LX-LIVE-GEN", prompt, answer) is passes


@pytest.mark.parametrize(("task", "answer", "passes"), [
    (3, "κ.⊢ frg.CMD gloss.∶.v10", False), (3, "frg ⊤ ∎", True),
    (5, "Φζ.⊤", False), (5, "Φζ.⊤ stable", True),
    (8, "ι.ε ΩQ", False), (8, "ΩQ ⊤ α", True),
    (10, "α.⊢", False), (10, "α.⊢ ◌", True),
])
def test_live_tasks_3_5_8_10_need_a_coherent_answer(task: int, answer: str, passes: bool) -> None:
    from checks_helpers import completion

    from forgegate.checks import score_item

    item = load_battery(bundled_live_test_path()).items[task - 1]
    assert item.coherent
    assert score_item(item, completion(answer)).passed is passes
