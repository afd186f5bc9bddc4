"""The backends' and judges' capabilities page, generated from the registries (issue 34, item 4: every list of
them is read from what each registered class declares, the docs' table included)."""

from __future__ import annotations


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|")


def capabilities_page() -> str:
    """Markdown: one row per registered backend and per registered entailment judge."""
    from forgegate.backends import BACKENDS
    from forgegate.backends.names import adapter_kind, backend_options, is_remote
    from forgegate.pipeline.semantic.judge import rebuildable_judges
    from forgegate.semantic.entailment import JUDGES, judge_capability

    lines = ["# Backend and judge capabilities", "",
             "Generated from the registries: each row is what the registered class declares (`remote`, `adapter`, "
             "`options` on a backend; `needs`, `takes_backend`, `rebuilt_from` on a judge). A backend or judge "
             "added to the registry appears here, in `--backend` / `--judge`, in the plan schema's checks and in "
             "every refusal with no second edit. How each backend runs: [Backends](backends.md).", "",
             "## Backends", "",
             "| backend | remote (`--model` required, `--base-url` taken) | adapter it loads | per-arm options |",
             "|---|---|---|---|"]
    for name in BACKENDS.names():
        options = ", ".join(f"`{option}`" for option in backend_options(name)) or "none"
        adapter = adapter_kind(name)
        lines.append(f"| `{name}` | {'yes' if is_remote(name) else 'no'} | "
                     f"{'none' if adapter is None else _cell(adapter)} | {options} |")
    lines += ["", "## Entailment judges", "",
              "| judge | needs | the pipeline builds it a backend | rebuilt from a frozen codebook's record |",
              "|---|---|---|---|"]
    for name in JUDGES.names():
        option, asked = judge_capability(name, "needs")
        rebuilt = ", ".join(f"`{opt}` from `{field}`" for opt, field in judge_capability(name, "rebuilt_from").items())
        lines.append(f"| `{name}` | `{option}`: {_cell(asked)} | "
                     f"{'yes' if judge_capability(name, 'takes_backend') else 'no'} | {rebuilt} |")
    lines += ["", "A frozen codebook may name any of: " + ", ".join(f"`{n}`" for n in rebuildable_judges())
              + " (the draft's MiniLM `embedding` judge and every registered entailment judge).", ""]
    return "\n".join(lines)
