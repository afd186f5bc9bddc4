"""The loop rule's false alarms and detection: GLOSS v2's default against the rule before it.

False alarms on every sentence of the bundled public-domain texts (data/texts) and on the real
model answers labelled clean in tests/data/loops; detection on the real loops labelled there.
``--old-detector DIR`` measures the detector as it was before the spec's rule: a folder holding that
version's ``src/forgegate/checks/loops.py`` as ``old_loops.py``, ``checks/modes.py`` as ``old_modes.py``
and ``data/failure_modes.toml`` as ``old_failure_modes.toml``. Figures go to the loop-rule table of
docs/concepts/gloss-gate.md and the Benchmarks page (docs/reference/benchmarks.md).

    mkdir old && for f in checks/loops.py:old_loops.py checks/modes.py:old_modes.py \
        data/failure_modes.toml:old_failure_modes.toml; do git show e3da8c8:src/forgegate/${f%%:*} > old/${f##*:}; done
    python benchmarks/bench_loop_rule.py [--step 1] [--old-detector old]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from loop_corpus import Detector, labelled, measure, prose_sentences  # noqa: E402

from forgegate.checks.loops import detect_loop, hard_abort, query_symbol_of  # noqa: E402


def _default(text: str, prompt: str) -> bool:
    return detect_loop(text, query_symbol=query_symbol_of(prompt)) is not None


def _identity_scoring(text: str, prompt: str) -> bool:
    """What scoring applies to an LX-IDENTITY / LX-NEGATIVE answer: the loop rule, then the hard abort (any
    character sequence three times in a row). Measured as if every text were such an answer: an upper bound."""
    return _default(text, prompt) or hard_abort(text) is not None


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _old(folder: Path) -> Detector:
    """The pre-spec detector with its own thresholds (min_span_chars 12, min_span_tokens 9, short_unit_repeats 5)."""
    import tomllib

    modes = _load(folder / "old_modes.py", "old_modes")
    params = tomllib.loads((folder / "old_failure_modes.toml").read_text(encoding="utf-8"))
    loop_params = modes.LoopParams.model_validate(params["modes"]["RUNAWAY_LOOP"]["params"])
    source = (folder / "old_loops.py").read_text(encoding="utf-8").replace(
        "from forgegate.checks.modes import LoopParams, loop_params", "from old_modes import LoopParams")
    (folder / "old_loops_patched.py").write_text(source.replace("params = loop_params()", "params = _PARAMS"),
                                                encoding="utf-8")
    old = _load(folder / "old_loops_patched.py", "old_loops_patched")
    old._PARAMS = loop_params  # type: ignore[attr-defined]

    def detect(text: str, prompt: str) -> bool:
        return old.detect_loop(text, query_symbol=old.query_symbol_of(prompt)) is not None

    return detect


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--step", type=int, default=1, help="keep every step-th sentence")
    parser.add_argument("--old-detector", type=Path, default=None)
    parser.add_argument("--show", type=int, default=0, help="print this many flagged sentences")
    args = parser.parse_args()
    sentences = list(prose_sentences(args.step))
    rows = labelled()
    detectors: list[tuple[str, Detector]] = [
        ("GLOSS v2 default", _default),
        ("LX-IDENTITY / LX-NEGATIVE scoring (+ hard abort), every text as if it were one", _identity_scoring)]
    if args.old_detector is not None:
        detectors.append(("before (short_unit_repeats 5, min_span 9 tokens / 12 chars)", _old(args.old_detector)))
    print("| rule | prose sentences flagged | clean model answers flagged | real loops found |")
    print("|---|---:|---:|---:|")
    for name, detector in detectors:
        began = time.perf_counter()
        rates = measure(detector, sentences, rows)
        print(f"| {name} | {rates.sentences_flagged}/{rates.sentences} ({rates.sentence_false_alarms:.3%}) "
              f"| {rates.answers_flagged}/{rates.answers} ({rates.answer_false_alarms:.1%}) "
              f"| {rates.loops_found}/{rates.loops} ({rates.detection:.1%}) |"
              f"  <!-- {time.perf_counter() - began:.1f} s -->")
        if args.show:
            shown = [s for s in sentences if detector(s, "")][: args.show]
            for s in shown:
                print("   ", s[:120])


if __name__ == "__main__":
    main()
