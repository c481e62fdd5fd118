"""The shipped fault run alone, and with a job beside it: does it exercise fewer races?

Why trace_stage.py runs the trace jobs' commands alone, before the pool starts anything. Runs
the command of the shipped model's `fault-run` trace job (`python -m
examples.agent_runtime.trace_run --turns 200`), alternating: alone, then with one CPU-bound
process beside it (what one other job of `--jobs 2` is on 2 cores). Prints, for each, the
median of the run's summary counters (its last line) and of the trace lines per action, and
the ratio beside/alone. Deposed effects (an effect by a worker whose lease was taken over
before it completed) are the race the fencing exists for. Example:

    python -m benchmarks.fault_run_beside --runs 8
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.traces import validation

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ('-m', 'examples.agent_runtime.trace_run', '--turns', '200')
COUNTERS = (
    'kills',
    'stops',
    'effect_stops',
    'stale_resumptions',
    'takeovers',
    'reruns',
    'deposed_effects',
)


def one(beside: bool) -> dict[str, float]:
    burner = subprocess.Popen((sys.executable, '-c', 'while True: pass')) if beside else None
    try:
        with tempfile.TemporaryDirectory() as out:
            started = time.monotonic()
            proc = subprocess.run(
                (sys.executable, *COMMAND, '--out', out),
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            figures: dict[str, float] = {'wall s': time.monotonic() - started}
            counts = validation.action_counts(validation.read_folder(Path(out), 'fault run'))
    finally:
        if burner is not None:
            burner.kill()
            burner.wait()
    summary = dict(
        kv.split('=', 1) for kv in proc.stdout.strip().splitlines()[-1].split() if '=' in kv
    )
    figures.update({k: float(summary[k]) for k in COUNTERS})
    figures.update({f'lines {a}': float(n) for a, n in counts.items()})
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=8, help='runs of each, alternating')
    options = parser.parse_args(argv)
    runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    for _ in range(options.runs):
        for beside in (False, True):
            runs[beside].append(one(beside))
    names = sorted(
        {k for r in runs[False] + runs[True] for k in r}, key=lambda k: (k.startswith('lines'), k)
    )
    print(
        f'{"median of " + str(options.runs) + " runs":28} {"alone":>8} {"beside":>8} {"ratio":>6}'
    )
    for name in names:
        alone = statistics.median(r.get(name, 0.0) for r in runs[False])
        beside = statistics.median(r.get(name, 0.0) for r in runs[True])
        ratio = f'{beside / alone:6.2f}' if alone else '     -'
        print(f'{name:28} {alone:8.1f} {beside:8.1f} {ratio}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
