"""Reports show control, bidi and zero-width characters from model output, never emit them."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from report_helpers import GOOD, gloss_payload

from forgegate.report import write_reports
from forgegate.textsafe import prompt_problem, visible

C0 = [chr(c) for c in range(0x20) if chr(c) not in "\n\t"]
C1 = [chr(c) for c in range(0x80, 0xA0)]  # the C1 controls (U+009B is CSI, a one-byte ESC [)
BIDI = [chr(c) for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))]
ZERO_WIDTH = [chr(c) for c in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF)]
HOSTILE = [*C0, "\x7f", *C1, *BIDI, *ZERO_WIDTH, "\u2028", "\u2029"]
ANSWER = "Paris \x1b[2J\x1b]0;owned\x07 " + "".join(HOSTILE)  # within the Markdown snippet's 160 characters


def _encoded(char: str) -> bytes:
    return char.encode("utf-8", "surrogatepass")


def test_no_hostile_character_reaches_the_bytes_of_either_report(tmp_path: Path) -> None:
    payload = gloss_payload(tmp_path / "run", {**GOOD, "QA-01": ANSWER, "LX-A-01": ANSWER})
    assert any(ANSWER in str(item.get("response")) for item in payload["items"])  # the answer is in the result
    html, markdown = tmp_path / "r.html", tmp_path / "r.md"
    write_reports(payload, html, markdown)
    for path in (html, markdown):
        data = path.read_bytes()
        for char in HOSTILE:
            assert _encoded(char) not in data, (path.name, f"U+{ord(char):04X}")
        text = data.decode("utf-8")
        assert "␛[2J␛]0;owned␇" in text.replace("\\", "") and "␡\\x80\\x81" in text


def test_the_failure_report_shows_every_hostile_character_of_a_failing_answer(tmp_path: Path) -> None:
    payload = gloss_payload(tmp_path / "run", {**GOOD, "LX-A-01": ANSWER})  # LX-A-01 fails: no "assert"
    html, markdown = tmp_path / "r.html", tmp_path / "r.md"
    write_reports(payload, html, markdown)
    for path in (html, markdown):
        text = path.read_text(encoding="utf-8")
        for char in (*C1, *BIDI, *ZERO_WIDTH):
            assert f"\\x{ord(char):02x}" in text or f"\\u{ord(char):04x}" in text, (path.name, hex(ord(char)))
        assert "␀␁␂" in text and "␡" in text


def test_every_control_format_and_separator_character_is_made_visible() -> None:
    shown = {"Cc", "Cf", "Zl", "Zp"}
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)) in shown]
    for char in chars:
        if char in "\n\t":
            assert visible(char) == char
            continue
        out = visible(f"a{char}b")
        assert char not in out and out.isprintable(), f"U+{ord(char):04X}"
    assert visible("\ud800") == "\\ud800"  # a lone surrogate (from a JSON escape) is shown, not written
    assert visible("line\r\nnext\r") == "line\r\nnext␍"  # CRLF line ends stay; a lone CR is shown
    assert visible("plain text, ünïcödé, 😀 and CJK\u3000space") == "plain text, ünïcödé, 😀 and CJK\u3000space"


def test_prompt_text_refuses_controls_and_lone_surrogates_but_not_layout() -> None:
    assert prompt_problem("line one\nline two\twith tab\r\n") is None
    assert prompt_problem("bidi \u202e is text a battery may test") is None
    assert "U+001B" in str(prompt_problem("a\x1bb")) and "character 2" in str(prompt_problem("a\x1bb"))
    assert "lone surrogate" in str(prompt_problem("a\ud800"))
