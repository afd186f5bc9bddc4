"""Issue 39 item 5: scripts/install-and-test.sh installs what its comment says. It said "the CPU build of torch"
and installed plain ``torch==2.13.0`` (on PyPI the multi-GB CUDA build); now the CPU build comes from the one
index that serves it, when asked for, and the comment says what the default installs."""

from __future__ import annotations

import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "install-and-test.sh"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def test_every_torch_install_is_the_build_its_comment_names() -> None:
    lines = SCRIPT.read_text(encoding="utf-8").splitlines()
    installs = [i for i, line in enumerate(lines) if re.search(r"pip install .*\btorch==", line)]
    assert installs, "the script no longer installs torch: update this test"
    comments = " ".join(line for line in lines[:installs[0]] if line.lstrip().startswith("#")).lower()
    says_cpu = "cpu build of torch" in comments and "cuda build" not in comments
    for i in installs:
        if says_cpu:  # a claim of the CPU build needs the index that serves it on the line that installs
            assert "--index-url" in lines[i] and CPU_INDEX in lines[i] + comments, lines[i]
    assert "cuda build" in comments and CPU_INDEX in comments  # what the default installs, and the way to the CPU one
    assert any("$TORCH_INDEX_URL" in lines[i] for i in installs)
