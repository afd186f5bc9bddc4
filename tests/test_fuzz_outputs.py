"""Fuzzing output targets and annotator names: whatever is at an output path, a regular file ends up holding the
bytes and anything else keeps its kind (written through or refused, nothing left behind); whatever case people
type their names in, a sheet has at most two annotators' files, one per person."""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from view_helpers import A, blank_sheet, client, csrf_of

from forgegate.errors import InputError
from forgegate.jsonio import write_bytes_atomic

FUZZ = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
KINDS = ("missing", "regular", "link-to-regular", "dangling-link", "folder", "fifo", "link-to-fifo", "descriptor")


def _make(folder: Path, kind: str) -> tuple[Path, Path | None]:
    """The target path for ``kind`` and, for a pipe, the pipe itself (a reader is started by the caller)."""
    target = folder / "out"
    if kind == "regular":
        target.write_bytes(b"old")
    elif kind == "link-to-regular":
        (folder / "real").write_bytes(b"old")
        target.symlink_to(folder / "real")
    elif kind == "dangling-link":
        target.symlink_to(folder / "not-yet")
    elif kind == "folder":
        target.mkdir()
    elif kind in ("fifo", "link-to-fifo"):
        os.mkfifo(folder / "pipe")
        if kind == "fifo":
            target = folder / "pipe"
        else:
            target.symlink_to(folder / "pipe")
        return target, folder / "pipe"
    return target, None


@FUZZ
@given(kind=st.sampled_from(KINDS), data=st.binary(max_size=70_000))
def test_an_output_is_written_atomically_through_or_refused_never_replaced(kind: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if kind == "descriptor":
            read_end, write_end = os.pipe()
            got: list[bytes] = []
            reader = threading.Thread(target=lambda: got.append(b"".join(iter(lambda: os.read(read_end, 65536), b""))))
            reader.start()
            write_bytes_atomic(Path(f"/proc/self/fd/{write_end}"), data)
            os.close(write_end)
            reader.join(timeout=10)
            os.close(read_end)
            assert got == [data]
            return
        target, pipe = _make(folder, kind)
        before = os.lstat(target).st_mode if os.path.lexists(target) else None
        got = []
        reader = None
        if pipe is not None:
            reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()))
            reader.start()
        try:
            write_bytes_atomic(target, data)
        except InputError:
            assert kind == "folder"
        if reader is not None:
            reader.join(timeout=10)
            assert got == [data] and stat.S_ISFIFO(os.stat(pipe).st_mode)  # type: ignore[arg-type]
        if before is not None:
            assert stat.S_IFMT(os.lstat(target).st_mode) == stat.S_IFMT(before)  # a link stays a link, a dir a dir
        if kind in ("missing", "regular", "link-to-regular", "dangling-link"):
            assert target.read_bytes() == data
        assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary left


NAMES = st.sampled_from(["ana", "bob", "dan"]).flatmap(
    lambda name: st.lists(st.booleans(), min_size=len(name), max_size=len(name)).map(
        lambda upper: "".join(c.upper() if u else c for c, u in zip(name, upper, strict=True))))


@settings(max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(NAMES, min_size=1, max_size=6))
def test_names_in_any_case_give_one_file_per_person_and_two_at_most(names: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sheet = blank_sheet(folder / "relevance_sheet.csv")
        web = client(folder / "store", sheets=(sheet,), author="Carol")
        csrf = csrf_of(web.get("/sheets/0/annotate?annotator=ana").text)
        people: list[str] = []
        for name in names:
            data = {"csrf": csrf, "annotator": name, **{f"label-{i}": str(v) for i, v in enumerate(A.values())}}
            status = web.post("/sheets/0/annotate", data=data, follow_redirects=False).status_code
            known = name.casefold() in people
            assert status == (303 if known or len(people) < 2 else 403), (names, name)
            if status == 303 and not known:
                people.append(name.casefold())
        files = sorted(p.name.split(".")[1].casefold() for p in folder.glob("relevance_sheet.*.csv"))
        assert files == sorted(people) and len(files) <= 2
