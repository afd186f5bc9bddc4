"""The lv-hemingway design at its real size on this machine: 3 arms x 60 beats x 4 seeds from one locked plan.

Arms: the bundled SmolLM2-135M-Instruct (GGUF loaded through transformers) unadapted, and two LoRA
checkpoints of one run of ``examples/training/train_lora.py`` (steps ``S/2`` and ``S``: the spec's two
tied checkpoints), all on the batched transformers backend, CPU float32, ``--threads`` torch threads.
The fixture is ``--beats`` beats built by ``forgegate fixture build`` from paragraphs of *Sense and
Sensibility* (``data/texts``) in the spec's 90-150 word band; ``--seeds`` seeds; each answer capped
at ``--max-tokens`` (200 tokens is about 150 words). The instruments are the hemingway example's.

In order, each its own process, peak memory from ``os.wait4``, load average beside every figure:

1. ``forgegate run PLAN`` until ``--kill-at`` of the generations are in the store, then ``kill -9``;
2. ``forgegate run PLAN`` again: it resumes; the store is checked (every row stored before the kill is
   still there, unchanged, and no request was generated twice);
3. ``forgegate run PLAN`` a third time: re-scoring only (no row may be added);
4. transformers' own batched ``generate`` (left-padded, same batch size, same sampling, each arm's
   adapter active) on the same requests, read back from the store (``--baseline-share`` of them,
   every k-th request of each arm, when time is short).

    python benchmarks/bench_hemingway_scale.py --beats 6 --seeds 2          # small: check it first
    python benchmarks/bench_hemingway_scale.py --json scale.json             # the whole design

Tokens/s of forgegate: stored tokens / generation span (first request queued to last answer stored,
from the store's ``finished_at`` and ``latency_s``, per process); of ``generate``: tokens up to each
row's end / time inside ``generate``. Model loading and scoring count in the wall times only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "hemingway-style"
TEXT = ROOT / "data" / "texts" / "austen-sense-and-sensibility.txt"
SEEDS = (1234, 5678, 9012, 3456, 7890, 2468, 1357, 8642)
ARMS = ("base-unadapted", "ckpt-early", "ckpt-late")


# ---- helpers on store rows (tests/test_bench_hemingway_scale.py) ----

def store_rows(store: Path) -> list[dict[str, Any]]:
    """Every row of a run store, read-only (the store may be being written by another process)."""
    if not store.exists():
        return []
    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    connection.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in connection.execute(
            "SELECT seq, request_key, arm, tokens, finish, latency_s, finished_at, response FROM responses "
            "ORDER BY seq")]
    except sqlite3.OperationalError:  # the table is not there yet
        return []
    finally:
        connection.close()


def generation_span(rows: Sequence[dict[str, Any]]) -> float:
    """Seconds from the first request queued to the last answer stored (0 for no timed row)."""
    timed = [r for r in rows if r.get("finished_at") is not None]
    if not timed:
        return 0.0
    start = min(r["finished_at"] - (r.get("latency_s") or 0.0) for r in timed)
    return float(max(r["finished_at"] for r in timed) - start)


def resume_check(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Whether a resume repeated nothing: every row stored before is still there, unchanged, and no request
    key has a second row; ``regenerated`` lists the keys stored before that have a newer row after."""
    now = {r["seq"]: r for r in after}
    kept = [r for r in before if now.get(r["seq"]) == r]
    keys_before = {r["request_key"] for r in before}
    regenerated = sorted({r["request_key"] for r in after if r["request_key"] in keys_before
                          and r["seq"] not in {b["seq"] for b in before}})
    counts: dict[str, int] = {}
    for r in after:
        counts[r["request_key"]] = counts.get(r["request_key"], 0) + 1
    return {"before": len(before), "kept": len(kept), "after": len(after), "regenerated": regenerated,
            "duplicate_keys": sorted(k for k, n in counts.items() if n > 1),
            "ok": len(kept) == len(before) and not regenerated and all(n == 1 for n in counts.values())}


# ---- setup: adapters, fixture, plan, lock ----

def env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def forgegate(*args: object) -> list[str]:
    return [sys.executable, "-m", "forgegate", *map(str, args)]


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def adapters(work: Path, steps: int, threads: int) -> tuple[Path, Path]:
    """Two checkpoints of one training-example run (trained once; reused when already there)."""
    run = work / "train"
    early, late = run / f"checkpoint-{steps // 2}", run / f"checkpoint-{steps}"
    if not (late / "adapter_config.json").exists():
        print(f"training the LoRA run (examples/training/train_lora.py, {steps} steps) ...", flush=True)
        subprocess.run([sys.executable, str(ROOT / "examples" / "training" / "train_lora.py"), str(run),
                        "--max-steps", str(steps), "--save-steps", str(steps // 2), "--threads", str(threads)],
                       check=True, env=env(), stdout=subprocess.DEVNULL)
    return early, late


def fixture(work: Path, beats: int) -> Path:
    """``beats`` beats by ``forgegate fixture build``: the next paragraph of the novel, 90-150 words."""
    out = work / f"fixture-{beats}.jsonl"
    if out.exists():
        return out
    body = TEXT.read_text(encoding="utf-8").split("*** START OF", 1)[-1].split("*** END OF", 1)[0]
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", body) if p.strip()]
    pairs = work / "pairs.jsonl"
    with pairs.open("w", encoding="utf-8") as handle:
        for n, (before, paragraph) in enumerate(zip(paragraphs, paragraphs[1:], strict=False)):
            last = re.split(r"(?<=[.!?])\s+", before)[-1][-300:]
            handle.write(json.dumps({"id": f"beat-{n:04d}", "split": "val", "work": "sense-and-sensibility",
                                     "instruction": "Write the next paragraph (90 to 150 words) of a novel. "
                                                    f"The paragraph before it ends: \"{last}\"",
                                     "response": paragraph}) + "\n")
    subprocess.run(forgegate("fixture", "build", "--pairs", pairs, "--split", "val", "--n", beats, "--band",
                             "90-150", "--seed", 4919, "--out", out), check=True, env=env(),
                   stdout=subprocess.DEVNULL)
    return out


def write_plan(work: Path, args: argparse.Namespace, gguf: Path, early: Path, late: Path) -> Path:
    """The hemingway example's plan at the requested size, over the transformers backend; then locked."""
    name = f"hemingway-scale-{args.beats}x{args.seeds}"
    plan = work / f"{name}.toml"
    arm = (f'backend = "transformers"\nmodel = "{gguf}"\ndevice = "cpu"\ndtype = "float32"\n'
           f"batch_size = {args.batch}\nn_threads = {args.threads}\n")
    plan.write_text(f'''name = "{name}"
author = "Austen (stand-in for Hemingway)"
description = "lv-hemingway at size: 3 arms x {args.beats} beats x {args.seeds} seeds"
seeds = {list(SEEDS[:args.seeds])}

[sampling]
temperature = 0.8
top_p = 0.95
max_tokens = {args.max_tokens}
chat = true

[fixture]
path = "{fixture(work, args.beats)}"

[[arms]]
name = "base-unadapted"
role = "control"
{arm}
[[arms]]
name = "ckpt-early"
role = "candidate"
adapter = "{early}"
{arm}
[[arms]]
name = "ckpt-late"
role = "candidate"
adapter = "{late}"
{arm}
[instruments.voice]
reference = "{EXAMPLE / 'reference-emma.txt'}"
n_features = 300
segment_words = 1000
folds = 5
floor = "pairwise"

[instruments.voice.contrasts]
"Dickens" = "{EXAMPLE / 'contrast-dickens.txt'}"

[instruments.memorization]
corpus = ["{EXAMPLE / 'corpus' / 'pride-and-prejudice-part.txt'}"]
n = 8
control_seed = 4919
passages = 20
hit_rate_margin = 0.0
max_margin = 0

[instruments.damage]
band = [90, 150]
metrics = ["out_of_band", "ran_on"]

[[comparisons]]
control = "base-unadapted"
candidate = "ckpt-early"
primary = "voice.delta_gap"

[[comparisons]]
control = "base-unadapted"
candidate = "ckpt-late"
primary = "voice.delta_gap"
''', encoding="utf-8")
    lock = plan.with_name(plan.name + ".lock")
    lock.unlink(missing_ok=True)
    subprocess.run(forgegate("plan", "lock", plan), check=True, env=env(), stdout=subprocess.DEVNULL)
    return plan


# ---- the phases ----

def child(command: list[str], *, log: Path, kill_when: Any = None, poll_s: float = 2.0) -> dict[str, Any]:
    """Run ``command``; with ``kill_when`` (a predicate polled every ``poll_s``) kill -9 it when it holds.
    Returns rc, wall, cpu seconds, peak RSS (MiB) of that process, and the load averages seen."""
    started, loads = time.perf_counter(), [os.getloadavg()[0]]
    with log.open("w") as out:
        process = subprocess.Popen(command, env=env(), stdout=out, stderr=subprocess.STDOUT)
        killed = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(poll_s)
            loads.append(os.getloadavg()[0])
            if kill_when is not None and not killed and kill_when():
                os.kill(process.pid, signal.SIGKILL)
                killed = True
    process.returncode = os.waitstatus_to_exitcode(status)
    return {"rc": process.returncode, "killed": killed, "wall_s": round(time.perf_counter() - started, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1), "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
            "load_1min_mean": round(sum(loads) / len(loads), 2), "load_1min_max": round(max(loads), 2)}


def tokens_per_s(rows: Sequence[dict[str, Any]]) -> tuple[int, float]:
    tokens = sum(r["tokens"] or 0 for r in rows)
    span = generation_span(rows)
    return tokens, (tokens / span if span else 0.0)


def main() -> None:  # noqa: PLR0915  (one phase after another, printed as they go)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--beats", type=int, default=60)
    parser.add_argument("--seeds", type=int, default=4, choices=range(1, len(SEEDS) + 1))
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=None, help="requests in flight (default 2 x batch)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--train-steps", type=int, default=10)
    parser.add_argument("--kill-at", type=float, default=0.5, help="kill -9 once this share is stored")
    parser.add_argument("--baseline-share", type=float, default=1.0, help="share of requests for generate")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/hemingway-scale"))
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--baseline-worker", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline_worker is not None:
        from bench_hemingway_baseline import run_baseline

        run_baseline(args.baseline_worker)
        return
    work = args.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT / "src"))
    from forgegate.backends.embedded import bundled_gguf

    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(),
                              "size": {"arms": 3, "beats": args.beats, "seeds": args.seeds,
                                       "generations": 3 * args.beats * args.seeds, "max_tokens": args.max_tokens,
                                       "batch": args.batch, "threads": args.threads},
                              "load_at_start": load()}
    print(f"{report['date']}: 3 arms x {args.beats} beats x {args.seeds} seeds, cap {args.max_tokens} tokens, "
          f"batch {args.batch}, {args.threads} threads; load {load()}", flush=True)
    early, late = adapters(work, args.train_steps, args.threads)
    plan = write_plan(work, args, bundled_gguf(), early, late)
    store_dir = work / f"store-{args.beats}x{args.seeds}"
    if store_dir.exists():
        for old in store_dir.iterdir():
            old.unlink()
    store = store_dir / f"plan-{plan.stem}.sqlite"
    total = report["size"]["generations"]
    run = forgegate("run", plan, "--store", store_dir, "--concurrency", args.concurrency or 2 * args.batch,
                    "--quiet", "--brief", "--json")
    design_started = time.perf_counter()

    first = child([*run, work / "result-1.json"], log=work / "run-1.log",
                  kill_when=lambda: len(store_rows(store)) >= args.kill_at * total)
    before = store_rows(store)
    print(f"run 1: kill -9 after {first['wall_s']} s with {len(before)}/{total} stored; {first}", flush=True)
    second = child([*run, work / "result-2.json"], log=work / "run-2.log")
    after = store_rows(store)
    check = resume_check(before, after)
    design_s = time.perf_counter() - design_started
    print(f"run 2 (resume): {second}; store: {check['kept']}/{check['before']} rows from before the kill kept, "
          f"{len(check['regenerated'])} regenerated, {len(check['duplicate_keys'])} keys twice, "
          f"{check['after']}/{total} rows; ok={check['ok']}", flush=True)
    third = child([*run, work / "result-3.json"], log=work / "run-3.log")
    rescored = store_rows(store)
    print(f"run 3 (re-score): {third}; rows {len(after)} -> {len(rescored)}", flush=True)

    new_rows = [r for r in after if r["seq"] not in {b["seq"] for b in before}]
    tokens_1, rate_1 = tokens_per_s(before)
    tokens_2, rate_2 = tokens_per_s(new_rows)
    span = generation_span(before) + generation_span(new_rows)
    ours = (tokens_1 + tokens_2) / span if span else 0.0
    print(f"forgegate {ours:.1f} tokens/s ({tokens_1 + tokens_2} tokens in {span:.0f} s of generation: "
          f"{rate_1:.1f} before the kill, {rate_2:.1f} after the resume); whole design (kill + resume, model "
          f"loads and scoring included) {design_s / 60:.1f} min; re-score {third['wall_s']} s", flush=True)
    job = work / "baseline-job.json"
    job.write_text(json.dumps({"store": str(store), "share": args.baseline_share, "batch": args.batch,
                               "threads": args.threads, "gguf": str(bundled_gguf()),
                               "adapters": {"ckpt-early": str(early), "ckpt-late": str(late)}}))
    baseline = child([sys.executable, __file__, "--baseline-worker", str(job)], log=work / "baseline.log")
    theirs = json.loads((work / "baseline-job.json.out").read_text()) if baseline["rc"] == 0 else {}
    report.update({
        "design_wall_s": round(design_s, 1), "kill": first, "resume": second, "resume_check": check,
        "rescore": {**third, "rows_before": len(after), "rows_after": len(rescored)}, "baseline": baseline,
        "forgegate": {"tokens": tokens_1 + tokens_2, "generation_s": round(span, 1), "tokens_per_s": round(ours, 2),
                      "before_kill_tokens_per_s": round(rate_1, 2), "after_resume_tokens_per_s": round(rate_2, 2),
                      "ran_on": sum(r["finish"] == "length" for r in after),
                      "mean_words": round(sum(len((r["response"] or "").split()) for r in after) / max(1, len(after)),
                                          1)},
        "generate": theirs, "ratio": round(ours / theirs["tokens_per_s"], 3) if theirs.get("tokens_per_s") else None,
        "load_at_end": load()})
    print(f"generate {theirs.get('tokens_per_s', 0):.1f} tokens/s ({theirs.get('tokens')} tokens in "
          f"{theirs.get('seconds')} s, {theirs.get('requests')} requests): forgegate / generate = {report['ratio']}",
          flush=True)
    print(f"peak RSS (MiB): run 1 {first['peak_rss_mib']}, resume {second['peak_rss_mib']}, re-score "
          f"{third['peak_rss_mib']}, generate {baseline['peak_rss_mib']}; load {report['load_at_start']} -> "
          f"{report['load_at_end']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
