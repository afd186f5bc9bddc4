"""``forgegate.evaluate``'s keywords are statically typed (issue 34, item 4; PEP 692): ``**options`` is
``Unpack[SessionKeywords]``, a TypedDict rendered from the one declaration of the session options and committed
(``pipeline/session/keywords.py``), so mypy flags ``evaluate(concurrency="4")`` and a misspelt keyword."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

import pytest

import forgegate.api
from forgegate.pipeline.session import keywords_render as session_keywords_render
from forgegate.pipeline.session.keywords import SessionKeywords

SRC = Path(__file__).resolve().parents[1] / "src"


def test_the_committed_keywords_module_is_the_rendering_of_the_declared_options() -> None:
    committed = session_keywords_render.TARGET.read_text(encoding="utf-8")
    assert committed == session_keywords_render.render(), (
        f"{session_keywords_render.TARGET} is stale: the session options changed without regenerating it. Run "
        f"`{session_keywords_render.COMMAND}` and commit the file")


def test_the_keywords_are_the_runtime_signatures_keywords_with_the_same_types() -> None:
    """The static TypedDict and the signature help() shows name the same keywords, typed alike."""
    static = typing.get_type_hints(SessionKeywords)
    runtime = {name: p.annotation for name, p in inspect.signature(forgegate.api.evaluate).parameters.items()
               if name not in ("battery", "live")}
    assert static == runtime
    assert not SessionKeywords.__required_keys__  # every keyword may be left out (its default is the options')


def test_evaluate_and_its_async_twin_unpack_the_keywords() -> None:
    for function in (forgegate.api.evaluate, forgegate.api.evaluate_async):
        hints = typing.get_type_hints(function)
        assert hints["options"] == typing.Unpack[SessionKeywords], function.__name__


ADD_A_FIELD = """
from typing import Annotated
import forgegate.pipeline.session.fields as fields

fields.SessionFields.__annotations__["probe_depth"] = Annotated[int | None, fields.Opt("How deep.")]
fields.SessionFields.probe_depth = None
from forgegate.pipeline.session import keywords_render as session_keywords_render
print(session_keywords_render.render())
"""


def test_an_option_added_to_the_declaration_changes_the_rendering() -> None:
    """The drift check is not blind: a new field renders as a new key, so the committed file no longer matches."""
    done = subprocess.run([sys.executable, "-c", ADD_A_FIELD], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "    probe_depth: int | None\n" in done.stdout
    assert done.stdout != session_keywords_render.TARGET.read_text(encoding="utf-8")


MYPY_CONFIG = """
[mypy]
strict = True
follow_imports = skip

[mypy-forgegate,forgegate.api,forgegate.pipeline.session.keywords]
follow_imports = normal
"""
"""mypy reads the real ``forgegate/__init__.py``, ``api.py`` and the generated keywords; everything they import
beyond that is skipped (Any), which keeps the run to seconds and is all a keyword check needs."""


def test_mypy_flags_a_wrong_keyword_type_and_a_misspelt_keyword_and_passes_right_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mypy import api as mypy_api

    wrong = tmp_path / "wrong.py"
    wrong.write_text('import forgegate\n\nforgegate.evaluate(concurrency="4")\nforgegate.evaluate(concurency=4)\n',
                     encoding="utf-8")
    right = tmp_path / "right.py"
    right.write_text(textwrap.dedent("""\
        from pathlib import Path

        import forgegate

        forgegate.evaluate("b.jsonl", concurrency=4, base_urls=["http://a"], store=Path("s"), gate_config="g.toml",
                           temperature=0.5, model=None, live=True)
        """), encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG, encoding="utf-8")
    monkeypatch.setenv("MYPYPATH", str(SRC))  # this checkout's forgegate, not an installed copy
    out, err, code = mypy_api.run(["--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
                                   str(wrong), str(right)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert code == 1, out + err
    assert any(line.startswith(f"{wrong}:3:") and 'Argument "concurrency"' in line and '"str"' in line
               and '"int"' in line for line in errors), out
    assert any(line.startswith(f"{wrong}:4:") and 'Unexpected keyword argument "concurency"' in line
               for line in errors), out
    assert len(errors) == 2 and not any(line.startswith(str(right)) for line in errors), out
