"""Issue 39: a verdict that fits on a screen. A failing GLOSS eval printed 404-454 lines and ended mid-item with no
closing verdict; now it fits in about 60 lines at 80 columns and ends on one summary line, and ``--verbose`` keeps
the full report.

The model is the local Ollama fake (tests/backend_servers.py) answering the bundled battery with "ok" or a loop,
so every category fails, as a real untrained model's do; the command runs in a subprocess at ``COLUMNS=80``.
``--quiet`` prints the summary line alone (issue 39: it used to hide only the progress bar).

Issue 45: stdout here is not a terminal (a CI log), where a failing prompt's reason was cut at 80 columns
(``→ "i'm sorry for any confusio…``, an ``exact`` check's reason begins with the answer's own words); in a log
it is printed whole, wrapped onto lines of its own, and so are the gate's other rules. The header breaks only
between facts (it printed "Model: ⏎ SmolLM2-…" and "gate ⏎ gloss-v2"), the ``forgegate show`` command has a
line of its own, and the summary line is one line however long (``--quiet`` printed it on two).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import read_json, run_cli

from forgegate.battery import bundled_battery_path, load_battery
from forgegate.report.eval_compact import PROMPTS_PER_CATEGORY, SCREEN_LINES, prompts_per_category

BATTERY = load_battery(bundled_battery_path())
LOOP = "the the the the the the the the the the"
WORDY = "sure, here is my long answer, which goes on about something else entirely"
"""Not a refusal (the walls stay broken), and long enough that an ``exact`` check's reason quoting it is cut."""
SCRIPT = {item.prompt: (LOOP if n % 7 == 0 else WORDY) for n, item in enumerate(BATTERY.items)}


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, str, str]:
    """(folder, compact stdout, compact stderr, --verbose stdout, --quiet stdout) of one failing eval, the later
    ones from the store. (No progress bar either way: stderr is not a terminal here.)"""
    folder = tmp_path_factory.mktemp("compact")
    args = ["eval", "--backend", "ollama", "--model", "m", "--store", str(folder / "store"),
            "--concurrency", "8", "--json", str(folder / "result.json")]
    with FakeOllamaServer(Behaviour(script=SCRIPT, models={"m:latest": "f" * 64})) as server:
        compact = run_cli(*args, "--base-url", server.url, env={"COLUMNS": "80"})
        verbose = run_cli(*args, "--base-url", server.url, "--verbose", env={"COLUMNS": "80"})
        quiet = run_cli(*args, "--base-url", server.url, "--quiet", env={"COLUMNS": "80"})
    assert compact.returncode == verbose.returncode == quiet.returncode == 1, compact.stdout + compact.stderr
    return folder, compact.stdout, compact.stderr, verbose.stdout, quiet.stdout


def test_a_failing_gloss_eval_fits_a_screen_at_80_columns(failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, err, full, _quiet = failing
    *lines, summary = out.splitlines()
    lines += err.splitlines()
    failed = read_json(folder / "result.json")["failed_categories"]
    screen = [line for line in lines if not line.startswith(RULE_HANGING)]  # a log's rule reasons run whole
    assert len(screen) <= SCREEN_LINES + 3 + 2 * len(failed), out  # in a log, a reason may take two lines more
    assert all(len(line) <= 80 for line in lines) and summary.startswith("FAIL: ")
    assert len(full.splitlines()) > 3 * len(out.splitlines())  # the full report is still there, behind --verbose


def test_it_ends_on_one_summary_line_with_the_word_categories_loops_walls_and_exit_code(
        failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, _full, _quiet = failing
    result = read_json(folder / "result.json")
    loops = next(r["numbers"]["loops"] for r in result["reasons"] if "loops" in r["numbers"])
    walls = next(r["numbers"]["broken"] for r in result["reasons"] if "broken" in r["numbers"])
    summary = out.rstrip().splitlines()[-1]  # one line, however long, in a log (two at 80 columns before)
    n = len(result["categories"])
    assert summary.startswith(f"FAIL: {len(result['failed_categories'])}/{n} categories failed (LX-A")
    assert f"{loops} loop(s), {walls} wall(s) broken; exit 1; more: --verbose" in summary
    assert loops > 0 and walls > 0


def test_each_failed_category_shows_its_score_and_a_failing_prompts_observed_text_and_mode(
        failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, _full, _quiet = failing
    result = read_json(folder / "result.json")
    shown = prompts_per_category(len(result["categories"]), len(result["failed_categories"]))
    for name in result["failed_categories"]:
        score = result["categories"][name]["score"]
        assert re.search(rf"^{re.escape(name)}: score {score:.2f} \[FAIL\] — \d+ failing$", out, re.M), name
        failing_items = [i for i in result["items"] if i["category"] == name and not i["passed"]]
        for item in failing_items[:shown]:
            line = next(x for x in out.splitlines() if x.startswith(f"  • {item['id']}  "))
            assert repr(item["response"])[:10] in line
        for item in failing_items[shown:]:
            assert not any(x.startswith(f"  • {item['id']}  ") for x in out.splitlines())
    assert "→" in out
    looped = BATTERY.items[0].item_id  # answered with a loop by the script, and its category's first item
    assert any(x.startswith(f"  • {looped}  ") and x.endswith("→ RUNAWAY_LOOP") for x in out.splitlines())
    assert f"forgegate show {result['run_id']} " in out


def shown_reasons(out: str) -> dict[str, str]:
    """Item id -> the reason printed after its ``→``, the lines it was wrapped onto joined."""
    reasons: dict[str, str] = {}
    current: str | None = None
    for line in out.splitlines():
        if line.startswith("  • "):
            current = line.split()[1]
            reasons[current] = line.split("  → ", 1)[1] if "  → " in line else ""
        elif current is not None and line.startswith("      "):  # the reason's own lines, under its prompt
            reasons[current] = " ".join(filter(None, (reasons[current], line.strip().removeprefix("→ "))))
        else:
            current = None
    return reasons


def test_in_a_log_every_failing_prompts_reason_is_printed_whole(failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, _full, _quiet = failing
    items = {i["id"]: i for i in read_json(folder / "result.json")["items"]}
    reasons = shown_reasons(out)
    assert len(reasons) >= len(read_json(folder / "result.json")["failed_categories"])
    too_long = [i for i, why in reasons.items() if len(f"  • {i}  {items[i]['response']!r}  → {why}") > 80]
    assert too_long  # reasons that one line of 80 columns cannot hold whole: cut before issue 45
    for item_id, shown in reasons.items():
        item = items[item_id]
        why = ", ".join(item["failure_modes"]) or item["detail"]
        assert shown == " ".join(why.split()), (item_id, shown, why)
        assert "…" not in shown or "…" in why
    assert all(len(line) <= 80 for line in out.splitlines()[:-1])  # the summary line runs long in a log


def joined_rules(out: str) -> list[str]:
    """The gate's other rules as printed (``[FAIL] rule: reason``), each one's wrapped lines joined."""
    rules: list[str] = []
    for line in out.splitlines():
        if line.startswith("["):
            rules.append(line)
        elif rules and line.startswith(RULE_HANGING) and not line.startswith("  • "):
            rules[-1] += " " + line.strip()
        elif rules and not line.startswith(("[", RULE_HANGING)):
            break
    return rules


RULE_HANGING = "    "
"""How a rule's reason is indented on the lines it wraps onto."""


def test_in_a_log_the_gates_other_rules_are_printed_whole(failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, full, _quiet = failing
    result = read_json(folder / "result.json")
    wanted = [f"[{r['outcome']}] {r['rule']}: {r['detail']}" for r in result["reasons"]
              if r["outcome"] != "PASS" and "category" not in r["numbers"]]
    assert any(len(rule) > 80 for rule in wanted)  # cut to one line before issue 45 ("LX-Z-02, …")
    assert joined_rules(out) == [" ".join(rule.split()) for rule in wanted], out
    assert all(len(line) <= 80 for line in out.splitlines()[:-1])
    reasons = full.split("\nReasons:\n", 1)[1].split("\nFAILURE REPORT", 1)[0].splitlines()
    wrapped = [line for line in reasons if line.strip() and not line.startswith("  [")]
    assert wrapped and all(line.startswith("      ") for line in wrapped), reasons  # --verbose: a hanging indent


def test_the_show_command_has_a_line_of_its_own(failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, _full, _quiet = failing
    result = read_json(folder / "result.json")
    first = next(i["id"] for i in result["items"] if not i["passed"])
    command = f"  forgegate show {result['run_id']} {first}"
    assert command in out.splitlines(), out  # pasted whole (it shared a line with "More:" and broke inside)
    assert out.count("forgegate show") == 1


def test_the_spec_layout_stays_on_top(failing: tuple[Path, str, str, str, str]) -> None:
    _folder, out, _err, _full, _quiet = failing
    for heading in ("GLOSS EVAL v2 — Model: m", "Category scores:", "σ_total: ", "GATE: FAIL",
                    "Failed categories: [", "Failure modes detected: ["):
        assert heading in out


def test_quiet_prints_only_the_summary_line_the_full_output_ends_on(
        failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, _full, quiet = failing
    result = read_json(folder / "result.json")
    assert quiet.strip() and "GATE:" not in quiet and "FAILURE REPORT" not in quiet
    assert " ".join(out.split()).endswith(" ".join(quiet.split()))  # the line the compact report ends on
    assert len(quiet.splitlines()) == 1, quiet  # one line in a log, however long (two at 80 columns before)
    assert " ".join(quiet.split()).startswith(f"FAIL: {len(result['failed_categories'])}/")


def test_quiet_and_verbose_together_are_refused_before_anything_runs(tmp_path: Path) -> None:
    proc = run_cli("eval", "--quiet", "--verbose", "--store", str(tmp_path / "store"))
    assert proc.returncode == 2 and "--quiet" in proc.stderr and "--verbose" in proc.stderr, proc.stderr
    assert proc.stdout == "" and not (tmp_path / "store").exists()


def test_three_prompts_when_few_categories_fail_fewer_when_all_do() -> None:
    assert prompts_per_category(13, 2) == PROMPTS_PER_CATEGORY
    assert 1 <= prompts_per_category(13, 13) < PROMPTS_PER_CATEGORY
    assert prompts_per_category(13, 4, lines_per_prompt=2) < prompts_per_category(13, 4)  # a log's reason lines


def test_a_model_given_by_path_is_named_by_its_file_name_in_the_header_and_whole_in_the_json(
        tmp_path: Path) -> None:
    gguf = "/home/someone/models/q4/SmolLM2-135M-Instruct.Q4_1.gguf"  # as a llama.cpp server lists its model
    script = {item.prompt: "ok" for item in BATTERY.items}
    with FakeOllamaServer(Behaviour(script=script, models={f"{gguf}:latest": "e" * 64})) as server:
        proc = run_cli("eval", "--backend", "ollama", "--model", gguf, "--base-url", server.url, "--store",
                       str(tmp_path / "store"), "--json", str(tmp_path / "result.json"), env={"COLUMNS": "80"})
        verbose = run_cli("eval", "--backend", "ollama", "--model", gguf, "--base-url", server.url, "--store",
                          str(tmp_path / "store"), "--verbose", env={"COLUMNS": "80"})
    assert proc.returncode == verbose.returncode == 1, proc.stdout + proc.stderr
    header = proc.stdout.splitlines()[0]
    assert header.startswith("GLOSS EVAL v2 — Model: SmolLM2-135M-Instruct.Q4_1.gguf"), header
    assert "/home/someone" not in proc.stdout
    result = read_json(tmp_path / "result.json")
    assert result["model"] == gguf
    facts = ["Model: SmolLM2-135M-Instruct.Q4_1.gguf", "served as SmolLM2-135M-Instruct.Q4_1.gguf:latest",
             f"run {result['run_id']}", "battery gloss-v2.jsonl (90 items,", "gate gloss-v2;",
             "sampling: as served"]
    for out in (proc.stdout, verbose.stdout):  # no label parted from its value ("Model: ⏎ SmolLM2-…" before)
        head = out.split("Category scores", 1)[0].splitlines()
        assert out is verbose.stdout or all(len(line) <= 80 for line in head), head  # --verbose: paths run long
        verbose_facts = [f"gate config {result['gate_config']['name']}", f"{gguf}"]
        for fact in facts[:3] + (facts[3:] if out is proc.stdout else verbose_facts):
            assert any(fact in line for line in head), (fact, head)


def test_lines_break_between_facts_and_at_spaces_only() -> None:
    from forgegate.report.lines import packed, wrapped

    assert packed(["run eval-0123456789ab; ", "battery b.jsonl (9 items); ", "gate my-gate"], 40) == [
        "run eval-0123456789ab;", "battery b.jsonl (9 items); gate my-gate"]
    assert packed(["Model: ", "x" * 50], 20) == ["Model:", "x" * 50]  # a fact wider than the line runs long
    assert wrapped("walls: LX-Z-01, LX-LIVE-GEN-03 (RUNAWAY_LOOP)", 36) == [
        "walls: LX-Z-01,", "    LX-LIVE-GEN-03 (RUNAWAY_LOOP)"]  # an id keeps its hyphens and its bracket
    assert wrapped("x " + "y" * 40, 30) == ["x " + "y" * 28, "    " + "y" * 12]  # cut only when it must
