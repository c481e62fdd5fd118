"""A traced fault-injection run: the command of the model's `traces` job.

Runs the fault harness (fault_harness.py: kills, stops, stale resumptions, takeovers, policy
flips) with tracing on and writes one NDJSON trace per (turn, step) into the folder named by
EXECLEASE_TRACE_DIR (or --out). Exit 0 once the traces are written, whatever they show: judging
them is TLC's job. Exit 2 if the run itself broke (a worker crashed, turns stayed open).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from examples.agent_runtime import schema
from examples.agent_runtime.fault_harness import FaultSettings
from examples.agent_runtime.fault_harness import run_faults

OUT_ENV = 'EXECLEASE_TRACE_DIR'


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--turns', type=int, default=200)
    parser.add_argument('--workers', type=int, default=4)
    parser.add_argument('--seed', type=int, help='fault schedule seed (default: random, printed)')
    parser.add_argument('--deadline', type=float, default=240.0, help='seconds before giving up')
    parser.add_argument('--out', help=f'folder for the NDJSON traces (default: ${OUT_ENV})')
    parser.add_argument('--mutation', help='run a broken worker (fault_harness.MUTANT_WORKER)')
    options = parser.parse_args(argv)
    out = options.out or os.environ.get(OUT_ENV)
    if not out:
        print(f'trace_run: give --out or set {OUT_ENV}', file=sys.stderr)
        return 2
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(1 << 31)
    settings = FaultSettings(
        seed=seed, turns=options.turns, workers=options.workers, deadline_s=options.deadline,
        mutation=options.mutation, trace_dir=Path(out),
    )
    with tempfile.TemporaryDirectory(prefix='trace-run-', dir=schema.scratch_folder()) as work:
        try:
            report = run_faults(settings, Path(work))
        except TimeoutError as e:
            print(f'trace_run: {e}', file=sys.stderr)
            return 2
    print(report.summary())
    if report.worker_errors:
        print('trace_run: worker errors:\n' + '\n'.join(report.worker_errors), file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
