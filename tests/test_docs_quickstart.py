"""Issue 39: docs/get-started/quickstart.md runs as written: every ``bash`` block, line by line, in a fresh folder.

It runs the bundled embedded model and a real llama.cpp server (llama-cpp-python's ``llama_cpp.server`` on the
packaged SmolLM2, listing itself as ``smollm2``), so it is in the slow lane. The one change made to the page's
text: the server's URL, ``http://127.0.0.1:8000/v1`` on the page, is the port the test's server got (8000 may
be taken on a shared machine).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from llamacpp_server import MODEL_ALIAS, llamacpp_server
from slow import starts_something

pytestmark = pytest.mark.slow
PAGE = Path(__file__).resolve().parents[1] / "docs" / "get-started" / "quickstart.md"
PAGE_URL = "http://127.0.0.1:8000/v1"


def shell_blocks(text: str) -> list[str]:
    """The ``bash`` fenced blocks of a Markdown page, in order."""
    return re.findall(r"^```bash\n(.*?)^```", text, flags=re.M | re.S)


@pytest.fixture(scope="module")
@starts_something
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    with llamacpp_server(tmp_path_factory.mktemp("llamacpp")) as url:
        yield url


def test_the_quickstart_page_runs_as_written(server_url: str, tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert f"--model {MODEL_ALIAS}" in text and PAGE_URL in text
    blocks = shell_blocks(text)
    assert len(blocks) >= 4, "the page lost its commands"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "FORGEGATE_HOME": str(tmp_path / "home"), "COLUMNS": "80"}
    for block in blocks:
        script = block.replace(PAGE_URL, server_url)
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, text=True,
                              capture_output=True, timeout=900)
        assert done.returncode == 0, f"{block}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    result = (tmp_path / "my-gate" / "result.json").read_text(encoding="utf-8")
    assert '"mine-01"' in result  # the question the page adds was asked and scored
