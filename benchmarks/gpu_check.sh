#!/usr/bin/env bash
# Issue 20, the layer's part, in one go on a CUDA machine (GPU time is scarce: plan about 6-8 minutes on an H100,
# most of it torch.compile; give the command a 9-minute limit):
#   1. the precision tests, on CPU and on CUDA: the relative law of ESPRAttention with bf16 and fp16 parameters
#      and under bf16 autocast within 2x of a RoPE layer whose rotation is float32 with autocast off, and the
#      planted precision defects caught (tests/attention/test_layer_precision.py prints every measured defect);
#   2. the layer table against RoPE + SDPA at issue 20's shapes: fp32, bf16 autocast and bf16 parameters, fwd and
#      fwd+bwd, eager and (in bf16 autocast) torch.compile, ratios measured side by side; aten operators and host
#      synchronisations per call (benchmarks/bench_layer.py);
#   3. the verdicts of the whole registry at quick on CUDA against the CPU, claim by claim (scripts/compare_devices.py;
#      fails on any differing verdict or any claim ending in error); skipped without CUDA, a few claims with --smoke;
#      capped at $VERDICTS_TIMEOUT seconds (default 240: the CUDA run is serial, and was slow in issue 20's measurement).
# Usage: bash benchmarks/gpu_check.sh [--smoke]
#   --smoke: one tiny shape and few repetitions, on whatever device there is (checks that the script works).
# Python: $PYTHON, else python3 (on the GPU machine, the one holding a CUDA torch). Here: PYTHON=.venv/bin/python.
# Logs: $OUT (the device tool's folder that comes back) or benchmarks/results/.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
LOGS="${OUT:-benchmarks/results}"
mkdir -p "$LOGS"
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
bench_args=(--compile)
[ "${1:-}" = "--smoke" ] && bench_args+=(--smoke)
status=0
"$PY" -c "import torch; c = torch.cuda.is_available(); print('torch', torch.__version__, '| cuda:', c, '|', torch.cuda.get_device_name() if c else 'no GPU')" \
  | tee "$LOGS/device.txt" || status=1
"$PY" -m pytest -q -s -p no:cacheprovider tests/attention/test_layer_precision.py 2>&1 | tee "$LOGS/precision.txt" || status=1
"$PY" benchmarks/bench_layer.py "${bench_args[@]}" 2>&1 | tee "$LOGS/bench_layer.txt" || status=1
if "$PY" -c "import sys, torch; sys.exit(not torch.cuda.is_available())"; then
  only=()
  [ "${1:-}" = "--smoke" ] && only=(--only T0.3 T4.4 ESPR.RF-unbiased PE.Lem11)
  timeout "${VERDICTS_TIMEOUT:-240}" "$PY" scripts/compare_devices.py --run --budget quick --keep "$LOGS/verdicts" "${only[@]}" \
    2>&1 | tee "$LOGS/compare_devices.txt" || status=1
else
  echo "no CUDA device: the CPU/CUDA verdict comparison is skipped" | tee "$LOGS/compare_devices.txt"
fi
echo "gpu_check: exit $status (logs in $LOGS/)"
exit $status
