#!/usr/bin/env bash
# Issue 20's GPU measurements in one go on a CUDA machine (GPU time is scarce: the whole script keeps inside
# $GPU_CHECK_SECONDS, default 540, so that a 10-minute device call holds it with the machine's start):
#   1. the precision tests, on CPU and on CUDA: the relative law of ESPRAttention with bf16 and fp16 parameters
#      and under bf16 autocast within 2x of a RoPE layer whose rotation is float32 with autocast off, and the
#      planted precision defects caught (tests/attention/test_layer_precision.py prints every measured defect);
#   2. where the CUDA run's time goes: three claims with the most operators under torch.profiler on the card
#      (benchmarks/engine_ops.py --profile; the first run on an H200 was at least 9x slower than 16 CPU cores);
#   3. the verdicts of the whole registry at quick on CUDA against the CPU, claim by claim
#      (scripts/compare_devices.py; fails on any differing verdict or any claim ending in error), with each run's
#      wall time: $CPU_JOBS CPU workers (default 16) against $CUDA_JOBS workers sharing the card (default 8),
#      the CUDA run in chunks of 120 claims so that what finished is compared when time runs out;
#      skipped without CUDA, a few claims with --smoke;
#   4. the layer table against RoPE + SDPA at issue 20's shapes: fp32, bf16 autocast and bf16 parameters, fwd and
#      fwd+bwd, eager and (in bf16 autocast) torch.compile, ratios measured side by side; aten operators and host
#      synchronisations per call (benchmarks/bench_layer.py);
#   5. while time is left: the same comparison at the default budget (the whole-registry timing of issue 20's
#      point 4).
# Each step has its own time limit and a failed or cut step does not stop the next one.
# Usage: bash benchmarks/gpu_check.sh [--smoke]
#   --smoke: one tiny shape, few repetitions and four claims, on whatever device there is (checks that the script
#   works; without CUDA the steps meant for the card run on the CPU in its place).
# Python: $PYTHON, else python3 (on the GPU machine, the one holding a CUDA torch). Here: PYTHON=.venv/bin/python.
# Packages the machine lacks: wheels in .whl/ (benchmarks/README.md says which and how) go to /tmp/site first,
# where $PY cannot import them.
# Logs: $OUT (the device tool's folder that comes back) or benchmarks/results/: gpu_check.log, and verdicts.tgz
# holding the verdict files of quick/ and default/ (the device tool brings back 8 files at most).
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
LOGS="${OUT:-benchmarks/results}"
LOG="$LOGS/gpu_check.log"
LIMIT="${GPU_CHECK_SECONDS:-540}"
VERDICTS=$(mktemp -d)
mkdir -p "$LOGS"
: >"$LOG"
if compgen -G ".whl/*.whl" >/dev/null && ! "$PY" -c "import pydantic, flint, grandalf, latex2mathml, jsonschema" 2>/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    >>"$LOG" 2>&1 || echo "installing .whl/ failed" | tee -a "$LOG"
  export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
smoke=0; [ "${1:-}" = "--smoke" ] && smoke=1
status=0
step() {  # step TITLE SECONDS command...: runs the command within min(SECONDS, what is left), logged
  local title=$1 cap=$2; shift 2
  local left=$((LIMIT - SECONDS))
  if [ "$left" -lt 20 ]; then echo "== $title: skipped, $left s left of $LIMIT" | tee -a "$LOG"; return; fi
  [ "$cap" -gt "$left" ] && cap=$left
  echo "== $title (at most $cap s; $SECONDS s into the run)" | tee -a "$LOG"
  timeout -k 5 "$cap" "$@" 2>&1 | tee -a "$LOG"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 124 ] && echo "== $title: cut at $cap s" | tee -a "$LOG"
  [ "$rc" -ne 0 ] && status=1
  echo "== $title: exit $rc, $SECONDS s into the run" | tee -a "$LOG"
}
step "device" 60 "$PY" -c "import torch; c = torch.cuda.is_available(); print('torch', torch.__version__, '| cuda:', c, '|', torch.cuda.get_device_name() if c else 'no GPU', '| cpus:', __import__('os').cpu_count())"
step "precision tests" 90 "$PY" -m pytest -q -s -p no:cacheprovider tests/attention/test_layer_precision.py
cuda=0; device=cuda
"$PY" -c "import sys, torch; sys.exit(not torch.cuda.is_available())" && cuda=1
[ "$cuda" = 0 ] && [ "$smoke" = 1 ] && cuda=1 device=cpu  # the smoke run's stand-in for the card
compare=(scripts/compare_devices.py --run --device "$device" --jobs "${CPU_JOBS:-16}" --device-jobs "${CUDA_JOBS:-8}" --chunk 120)
if [ "$cuda" = 1 ]; then
  profiled=(T6.2.corrected T2.3.corrected PE.Table2-ordering); [ "$smoke" = 1 ] && profiled=(T4.4)
  step "where the CUDA time goes" 120 "$PY" benchmarks/engine_ops.py --profile --device "$device" --top 15 "${profiled[@]}"
  only=(); [ "$smoke" = 1 ] && only=(--only T0.3 T4.4 ESPR.RF-unbiased PE.Lem11)
  step "verdicts at quick, CPU against CUDA" 200 "$PY" "${compare[@]}" --deadline 120 --budget quick \
    --keep "$VERDICTS/quick" "${only[@]}"
else
  echo "== no CUDA device: the CPU/CUDA verdict comparisons are skipped" | tee -a "$LOG"
fi
bench=(--compile); [ "$smoke" = 1 ] && bench+=(--smoke) || bench+=(--budget "${BENCH_CELL_SECONDS:-2}")
step "layer table" 210 "$PY" benchmarks/bench_layer.py "${bench[@]}"
if [ "$cuda" = 1 ] && [ "$smoke" = 0 ]; then
  step "verdicts at default, CPU against CUDA" 400 "$PY" "${compare[@]}" --deadline $((LIMIT - SECONDS - 150)) \
    --budget default --keep "$VERDICTS/default"
fi
tar -czf "$LOGS/verdicts.tgz" -C "$VERDICTS" . && rm -rf "$VERDICTS"
echo "gpu_check: exit $status, $SECONDS s (logs in $LOGS/)" | tee -a "$LOG"
exit $status
