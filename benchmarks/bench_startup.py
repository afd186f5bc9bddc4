"""Start-up and the light core (issues 34, 45): what a short command costs beyond its work.

Three figures, each from fresh subprocesses of this interpreter, interleaved where there are two sides:

1. ``forgegate --help`` against a minimal two-command typer app's ``--help`` (medians and their ratio;
   target <= 1.2x);
2. a one-item server eval's peak RSS (the child's own ``ru_maxrss``; target <= 90 MB): model 'gloss' on
   ``tests/backend_servers.py``'s FakeOllamaServer (Ollama has no binary here), started by this process;
3. ``forgegate eval`` on a stored one-item run: the same eval again, its one answer resumed from the store, wall
   clock and CPU (user + system) of the process (target <= 0.6 s wall).

What the CLI and a server eval import is checked by tests/test_cli_startup.py and tests/test_light_core.py; this
measures the clock and the memory. Tests never assert these.

Bytecode as an install has it: the children run without PYTHONDONTWRITEBYTECODE (set on this project's machines,
where it made every run compile forgegate's modules from source: 51 of them at ``--help``), with their caches
under a temporary PYTHONPYCACHEPREFIX (nothing written into the checkout), filled by a warm-up run of each side.

Run: python benchmarks/bench_startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from backend_servers import Behaviour, FakeOllamaServer  # noqa: E402
from one_item import ONE_GATE, ONE_ITEM  # noqa: E402

TARGET_RATIO = 1.2
TARGET_RSS_MB = 90.0
TARGET_STORED_EVAL_S = 0.6

MINIMAL_APP = '''
import typer

app = typer.Typer()


@app.command()
def hello(name: str) -> None:
    """Say hello."""
    typer.echo(f"hello {name}")


@app.command()
def bye(name: str) -> None:
    """Say goodbye."""
    typer.echo(f"bye {name}")


if __name__ == "__main__":
    app()
'''


# The real entry handler in a child that reports its own peak RSS and CPU time on its last line.
MEASURED = """
import json, resource, sys
from forgegate.cli.main import run
code = run(["forgegate", *json.loads(sys.argv[1])])
own = resource.getrusage(resource.RUSAGE_SELF)
print("MEASURED", json.dumps({"code": code, "rss_kb": own.ru_maxrss, "cpu_s": own.ru_utime + own.ru_stime}))
"""


CHILD_ENV: dict[str, str] = {}
"""The children's environment: set by main() (bytecode caches in a temporary folder)."""


def wall(argv: list[str]) -> float:
    """Seconds from spawn to exit of one ``--help`` run; a failure stops the benchmark."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=CHILD_ENV)
    return time.perf_counter() - start


def measured(args: list[str]) -> tuple[float, dict[str, float]]:
    """(wall seconds, the child's report) of one forgegate command line run in a fresh interpreter."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURED, json.dumps(args)], capture_output=True, text=True,
                          check=False, env=CHILD_ENV)
    elapsed = time.perf_counter() - start
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("MEASURED ")), None)
    if line is None:
        raise SystemExit(f"the eval did not run:\n{done.stdout}\n{done.stderr}")
    report = json.loads(line.removeprefix("MEASURED "))
    if report["code"] != 0:
        raise SystemExit(f"the eval exited {report['code']}:\n{done.stdout}\n{done.stderr}")
    return elapsed, report


def describe(name: str, runs: list[float], unit: str = "s") -> str:
    return (f"{name}: median {statistics.median(runs):.3f} {unit} (min {min(runs):.3f}, max {max(runs):.3f}, "
            f"{len(runs)} runs)")


def verdict(value: float, target: float) -> str:
    return f"target <= {target:g}: {'met' if value <= target else 'NOT met'} on this machine now"


def bench_help(runs: int, tmp: Path) -> None:
    app = tmp / "tmp_app.py"
    app.write_text(MINIMAL_APP, encoding="utf-8")
    commands = {
        "minimal typer app": [sys.executable, str(app), "--help"],
        "forgegate": [sys.executable, "-m", "forgegate.cli.main", "--help"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():
        wall(argv)  # warm-up: the first run pays for reading the files from disk
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(wall(argv))
    for name, runs_of in times.items():
        print(describe(f"{name:>18} --help", runs_of))
    ratio = statistics.median(times["forgegate"]) / statistics.median(times["minimal typer app"])
    print(f"ratio forgegate / minimal: {ratio:.2f} ({verdict(ratio, TARGET_RATIO)})")


def bench_server_eval(runs: int, tmp: Path) -> None:
    battery, gate = tmp / "one.jsonl", tmp / "one-gate.toml"
    battery.write_text(json.dumps(ONE_ITEM) + "\n", encoding="utf-8")
    gate.write_text(ONE_GATE, encoding="utf-8")
    with FakeOllamaServer(Behaviour(script={"Say hello.": "hello there"})) as server:
        def args(store: Path) -> list[str]:
            return ["eval", "--backend", "ollama", "--model", "gloss", "--base-url", server.url, "--battery",
                    str(battery), "--gate-config", str(gate), "--store", str(store), "--json",
                    str(tmp / "r.json"), "--quiet"]

        measured(args(tmp / "warm-up"))  # fills the bytecode cache
        fresh_rss: list[float] = []
        for n in range(runs):  # a new store each time: the answer is generated
            _, report = measured(args(tmp / f"fresh{n}"))
            fresh_rss.append(report["rss_kb"] / 1024)
        stored = tmp / "stored"
        measured(args(stored))  # generate once; every run below resumes it
        walls: list[float] = []
        cpus: list[float] = []
        stored_rss: list[float] = []
        for _ in range(runs):
            elapsed, report = measured(args(stored))
            walls.append(elapsed)
            cpus.append(report["cpu_s"])
            stored_rss.append(report["rss_kb"] / 1024)
    print(describe("one-item server eval, peak RSS", fresh_rss, "MB")
          + f" ({verdict(statistics.median(fresh_rss), TARGET_RSS_MB)})")
    print(describe("eval on the stored one-item run, wall", walls)
          + f" ({verdict(statistics.median(walls), TARGET_STORED_EVAL_S)})")
    print(describe("eval on the stored one-item run, CPU (user + system)", cpus))
    print(describe("eval on the stored one-item run, peak RSS", stored_rss, "MB"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15, help="Runs of each command (after one warm-up each).")
    parser.add_argument("--only", choices=("help", "eval"), help="Run one of the two benchmarks.")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores at the start")
    with tempfile.TemporaryDirectory() as tmp:
        CHILD_ENV.update({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
        CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        if args.only in (None, "help"):
            bench_help(args.runs, Path(tmp))
        if args.only in (None, "eval"):
            bench_server_eval(args.runs, Path(tmp))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
