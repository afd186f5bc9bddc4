"""The probe file of a training output folder: one ``ProbeRecord`` per probed checkpoint, appended.

The callback and ``forgegate watch`` write it; ``watch`` reads it to skip checkpoints already
probed (so it can be stopped and restarted), and ``forgegate plan from-training`` reads it to drop
checkpoints whose probe showed a failure mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forgegate.results import ProbeRecord
from forgegate.results.record_file import LineProblem, append_record_line, read_record_lines, validate_record

PROBES_FILE = "forgegate-probes.jsonl"
"""The file's name inside the trainer's output folder."""
RUNS_DIR = "forgegate-runs"
"""Where the probes' run stores go inside the output folder (every answer is kept)."""


@dataclass(frozen=True)
class ProbeFile:
    path: Path
    records: tuple[ProbeRecord, ...]
    """Oldest first."""
    problems: tuple[LineProblem, ...]

    def probed_checkpoints(self) -> frozenset[str]:
        """Names of the checkpoint folders a record exists for."""
        return frozenset(r.checkpoint for r in self.records if r.checkpoint is not None)

    def latest_by_step(self) -> dict[int, ProbeRecord]:
        """The last record of each step (a step probed again after a restart keeps its newest record)."""
        return {r.step: r for r in self.records}


def probes_path(output_dir: Path) -> Path:
    return Path(output_dir) / PROBES_FILE


def read_probes(output_dir: Path) -> ProbeFile:
    """Every intact record of ``output_dir``'s probe file (none when it does not exist yet)."""
    path = probes_path(output_dir)
    try:
        records, problems = read_record_lines(path, _parse)
    except FileNotFoundError:
        return ProbeFile(path, (), ())
    return ProbeFile(path, tuple(r for _, r in records), tuple(problems))


def _parse(obj: dict[str, object], path: Path, number: int) -> ProbeRecord:
    return validate_record(ProbeRecord, obj, path, number)


def append_probe(output_dir: Path, record: ProbeRecord) -> Path:
    """Append ``record`` to ``output_dir``'s probe file (crash-safe); return the file's path."""
    path = probes_path(output_dir)
    append_record_line(path, record)
    return path
