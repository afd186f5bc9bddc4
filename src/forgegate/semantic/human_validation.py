"""Blinded human validation of the clustering: the filled validation sheet scored against its key.

T_GPT v0.8.1's development phase builds the codebook "using bidirectional entailment ... and blinded
human validation". ``sheets.validation_sheet`` writes the blinded pairs (``same_meaning`` left blank)
and the key (the clustering's verdict per row); a human fills ``same_meaning`` with 1 (same meaning)
or 0. Here the filled sheet is read back and compared with the key: the share of pairs where human and
clustering agree, with a seeded percentile bootstrap interval over pairs, split into within-cluster
pairs (does the human agree they mean the same?) and between-cluster pairs (do they differ?), and
Cohen's kappa. The gate (``gate.semantic.validation_reason``) decides what a plan's minimum means.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from forgegate.errors import InputError
from forgegate.jsonio import read_bytes_or_input_error
from forgegate.semantic.agreement import cohens_kappa
from forgegate.semantic.bootstrap import BootstrapSettings, intervals, resample_units, unit_means
from forgegate.semantic.sheet_reader import read_keyed_sheet
from forgegate.semantic.sheets import VALIDATION_COLUMNS

KEY_COLUMNS = ("row", "clusters", "clustering_same")
LABELS = {"1": 1, "0": 0}
"""The values ``same_meaning`` may hold once filled (blank: not labelled yet)."""


def _agreement(agree: list[int], settings: BootstrapSettings, unit: str) -> dict[str, Any]:
    """Share of agreeing pairs and its percentile bootstrap interval over pairs (None below two pairs)."""
    if not agree:
        return {"pairs": 0, "value": None, "ci": None}
    values = np.asarray(agree, dtype=np.float64).reshape(-1, 1)
    boot = resample_units(values, settings, settings.rng_for(unit))
    ci = None if boot is None else intervals(boot, settings.confidence_level)[0].as_list()
    return {"pairs": len(agree), "value": float(unit_means(values)[0]), "ci": ci}


def score_validation(sheet: Path, key: Path, settings: BootstrapSettings,
                     cluster_ids: Collection[str] | None = None, *, key_raw: bytes | None = None,
                     sheet_raw: bytes | None = None) -> dict[str, Any]:
    """Agreement of the human ``same_meaning`` labels with the clustering, with intervals.

    Blank labels leave the score incomplete (``complete`` False, the rows listed); a value other than
    0 or 1, a row the key does not have, or (given ``cluster_ids``) a key naming clusters of another
    codebook is an InputError at its line. The sheet is read once: the bytes scored are the bytes whose sha256
    the result records. ``key_raw`` / ``sheet_raw``: the key's (and a confirmatory plan's locked sheet's) bytes as
    a plan's lock check hashed them (the file is not read).
    """
    verdicts: dict[str, tuple[str, int]] = {}
    for row_id, (line, row) in read_keyed_sheet(key, KEY_COLUMNS, "row", what="key", raw=key_raw).rows.items():
        if row["clustering_same"] not in LABELS:
            raise InputError(key, f"clustering_same {row['clustering_same']!r} is not 0 or 1", line=line,
                             field="clustering_same", hint="the key is written by forgegate: do not edit it")
        if cluster_ids is not None:
            unknown = [c for c in row["clusters"].split("|") if c not in cluster_ids]
            if unknown:
                raise InputError(key, f"cluster {unknown[0]!r} is not in the plan's frozen codebook", line=line,
                                 field="clusters", hint="score the key written with this codebook's sheets")
        verdicts[row_id] = (row["clusters"], LABELS[row["clustering_same"]])
    sheet_raw = read_bytes_or_input_error(sheet, what="sheet") if sheet_raw is None else sheet_raw
    filled = read_keyed_sheet(sheet, VALIDATION_COLUMNS, "row", label="same_meaning", raw=sheet_raw)
    for row_id, (line, row) in filled.rows.items():
        if row_id not in verdicts:
            raise InputError(sheet, f"row {row_id!r} is not in the key {key}", line=line, field="row",
                             hint="score a sheet against the key written beside it")
        value = row["same_meaning"].strip()
        if value and value not in LABELS:
            raise InputError(sheet, f"same_meaning {value!r} is not 0 or 1", line=line, field="same_meaning",
                             hint="1: the two answers mean the same; 0: they do not; blank: not labelled yet")
    if not verdicts:
        raise InputError(key, "the key has no rows: there is nothing to score", line=2,
                         hint="score the key forgegate semantic cluster wrote beside the sheet")
    order = list(filled.rows) + [k for k in verdicts if k not in filled.rows]  # counted over the key's rows
    labelled, unlabelled = filled.coverage(order, "same_meaning")
    human = [LABELS[filled.rows[k][1]["same_meaning"].strip()] for k in labelled]
    machine = [verdicts[k][1] for k in labelled]
    agree = [int(h == m) for h, m in zip(human, machine, strict=True)]
    within = [a for a, m in zip(agree, machine, strict=True) if m == 1]
    between = [a for a, m in zip(agree, machine, strict=True) if m == 0]
    kappa = cohens_kappa(human, machine) if human else None
    return {"sheet": str(sheet), "sheet_sha256": hashlib.sha256(sheet_raw).hexdigest(), "key": str(key),
            "pairs": len(verdicts), "labelled": len(human), "unlabelled_rows": unlabelled,
            "complete": not unlabelled,
            "agreement": _agreement(agree, settings, "validation:all"),
            "within_cluster": _agreement(within, settings, "validation:within"),
            "between_clusters": _agreement(between, settings, "validation:between"),
            "cohens_kappa": kappa, "bootstrap": settings.record()}
