"""Killing `pyverify report` at any moment, including while it writes, leaves the previous complete report
(issue 11: results are never half-written)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from conftest import claim_yaml

TRUE = "check: {given: {x: 'vec(3)'}, assert: 'norm(x) >= 0'}\nexpect: holds\n"
OUTPUTS = ("report.json", "report.md", "index.html", "graph.svg")


def _report(root, out, **kw):
    return subprocess.Popen([sys.executable, "-m", "pyverify", "report", "--registry", str(root), "--out", str(out),
                             "--budget", "quick", "--no-progress", "--jobs", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


def test_a_report_killed_at_any_moment_leaves_complete_files(make_registry, tmp_path):
    root = make_registry({"a.yaml": "claims:\n" + "".join(claim_yaml(f"A.{i}", extra=TRUE) for i in range(1, 5))})
    out = tmp_path / "rep"
    first = _report(root, out)
    assert first.wait(timeout=300) == 0, first.stderr.read()
    before = {name: (out / name).read_bytes() for name in OUTPUTS}
    json.loads(before["report.json"])
    started = time.perf_counter()
    full = _report(root, out)
    full.wait(timeout=300)
    duration = time.perf_counter() - started
    # kill at moments spread over a whole run, the last ones in its writing phase (its final part)
    for fraction in (0.5, 0.8, 0.9, 0.97, 1.0):
        proc = _report(root, out)
        time.sleep(duration * fraction)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        for name in OUTPUTS:
            data = (out / name).read_bytes()
            assert data, f"{name} is empty after a kill at {fraction:.0%} of a run"
            if name == "report.json":
                json.loads(data)  # parseable: the old report or the new one, never half of one
            else:
                assert data.rstrip().endswith((b"</html>", b"</svg>")) or name == "report.md", name
