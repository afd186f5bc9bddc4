"""One declaration per session option (issue 34, item 4): ``pipeline.session.fields.SessionFields`` is the only
list; the options model, the CLI's flags and the Python API's keywords are generated from it.

The proof that nothing else lists them: a fresh interpreter adds one field to the declaration before anything
reads it, and the new field is then a flag of ``eval`` / ``live`` / ``graduate`` with its help, a keyword of
``forgegate.evaluate`` with its default, and a field of the options model that the flag fills.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

from typer.main import get_command

import forgegate
from forgegate.cli.main import app
from forgegate.pipeline.session.fields import declared
from forgegate.pipeline.session.options import SessionOptions

ADD_A_FIELD = """
import inspect, json, sys
from typing import Annotated
import forgegate.pipeline.session.fields as fields

fields.SessionFields.__annotations__["probe_depth"] = Annotated[int, fields.Opt("How deep the probe goes.")]
fields.SessionFields.probe_depth = 7
from typer.main import get_command
import forgegate
from forgegate.cli.main import app
from forgegate.pipeline.session.options import SessionOptions, from_flags

commands = get_command(app).commands
flags = {name: {opt: param.help for param in commands[name].params for opt in param.opts}
         for name in ("eval", "live", "graduate")}
keyword = inspect.signature(forgegate.evaluate).parameters["probe_depth"]
parsed = commands["eval"].make_context("eval", ["--probe-depth", "9", "--quiet"]).params
options = from_flags("eval", parsed, None, quiet_default=False)
print("PROBE", json.dumps({"flags": {name: found.get("--probe-depth") for name, found in flags.items()},
                           "api_default": keyword.default, "api_kind": keyword.kind.name,
                           "model_default": SessionOptions.model_fields["probe_depth"].default,
                           "from_flag": options.probe_depth}))
"""


def test_a_field_added_to_the_declaration_reaches_the_cli_the_api_and_the_model_with_no_second_edit() -> None:
    done = subprocess.run([sys.executable, "-c", ADD_A_FIELD], capture_output=True, text=True, timeout=300,
                          check=False)
    line = next((line for line in done.stdout.splitlines() if line.startswith("PROBE ")), None)
    assert line is not None, done.stdout + done.stderr
    found = json.loads(line.removeprefix("PROBE "))
    assert found["flags"] == {"eval": "How deep the probe goes.", "live": "How deep the probe goes.",
                              "graduate": "How deep the probe goes."}
    assert (found["api_default"], found["api_kind"], found["model_default"]) == (7, "KEYWORD_ONLY", 7)
    assert found["from_flag"] == 9


def test_every_declared_option_is_a_model_field_an_api_keyword_and_a_flag_with_its_declared_help() -> None:
    commands = get_command(app).commands  # type: ignore[attr-defined]
    keywords = inspect.signature(forgegate.evaluate).parameters
    for command in ("eval", "live"):
        helps = {opt: param.help for param in commands[command].params for opt in param.opts}
        for option in declared():
            assert option.name in SessionOptions.model_fields
            if option.name == "kind":  # the command itself (eval / live), the API's live=
                assert option.flag not in helps and "kind" not in keywords and "live" in keywords
                continue
            assert keywords[option.name].default == SessionOptions.model_fields[option.name].default
            if option.name == "quiet" and command in ("eval", "live"):  # these two word --quiet their own way
                assert helps["--quiet"].startswith("Print only the closing summary line")
                continue
            assert helps[option.flag] == option.opt.help, (command, option.flag)
    model_fields = set(SessionOptions.model_fields) - {"model_in_memory"}  # a caller's backend, not an option
    assert model_fields == {option.name for option in declared()}


def test_the_flags_parse_to_the_same_options_as_the_api_keywords() -> None:
    """A flag and the API keyword of the same option give the same model (negated and repeated flags too)."""
    from forgegate.pipeline.session.options import from_flags

    command = get_command(app).commands["eval"]  # type: ignore[attr-defined]
    argv = ["--backend", "ollama", "--model", "m", "--base-url", "http://a", "--base-url", "http://b", "--no-wait",
            "--no-loop-cutoff", "--seed", "5", "--temperature", "0.5", "--timeout", "30", "--battery", "b.jsonl",
            "--training-corpus", "t.jsonl", "--check-failure-modes"]
    parsed = command.make_context("eval", argv).params
    from_cli = from_flags("eval", parsed, parsed["battery"], quiet_default=False)
    from_api = SessionOptions.model_validate(dict(
        kind="eval", backend="ollama", model="m", base_urls=["http://a", "http://b"], wait=False, loop_cutoff=False,
        seed=5, temperature=0.5, timeout=30.0, battery="b.jsonl", training_corpus="t.jsonl",
        check_failure_modes=True, quiet=False))
    assert from_cli == from_api
