"""Soak: the fault-injection harness of tests/examples/agent_runtime/fault_injection_test.py, for longer.

Runs rounds of the harness (each a fresh database and effect log, more turns and workers
than CI) until --minutes have passed, and prints the totals. Exit 1 on any violation,
worker error or turn left open. Example:

    python -m benchmarks.fault_soak --minutes 5 --turns 600 --workers 6
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from examples.agent_runtime.fault_harness import FaultReport, FaultSettings, run_faults

TOTALS = (
    'turns',
    'done',
    'needs_attention',
    'open_left',
    'workers_spawned',
    'kills',
    'stops',
    'effect_stops',
    'stale_resumptions',
    'takeovers',
    'policy_flips',
    'effects',
    'reruns',
    'uncompleted_effects',
    'deposed_effects',
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--minutes', type=float, default=5.0)
    parser.add_argument('--turns', type=int, default=600, help='turns per round')
    parser.add_argument('--workers', type=int, default=6)
    parser.add_argument('--ttl', type=float, default=0.4)
    parser.add_argument('--seed', type=int, help='first round seed (default: random)')
    parser.add_argument('--mutation', help='a broken variant of fault_harness.MUTANT_WORKER')
    options = parser.parse_args(argv)

    # On SIGTERM, unwind through the harness's cleanup: no worker is left stopped.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(1 << 31)
    started = time.monotonic()
    reports: list[FaultReport] = []
    with tempfile.TemporaryDirectory(prefix='fault-soak-') as tmp:
        while time.monotonic() - started < options.minutes * 60:
            settings = FaultSettings(
                seed=seed + len(reports),
                turns=options.turns,
                workers=options.workers,
                ttl=options.ttl,
                deadline_s=600,
                mutation=options.mutation,
            )
            report = run_faults(settings, Path(tmp) / f'round{len(reports):03d}')
            reports.append(report)
            print(report.summary(), flush=True)
            for problem in [*report.violations, *report.worker_errors][:10]:
                print('  ', problem)
    wall = time.monotonic() - started

    totals = {name: sum(getattr(r, name) for r in reports) for name in TOTALS}
    violations = sum(len(r.violations) for r in reports)
    errors = sum(len(r.worker_errors) for r in reports)
    print(
        f'soak: rounds={len(reports)} first_seed={seed} '
        + ' '.join(f'{k}={v}' for k, v in totals.items())
        + f' violations={violations} worker_errors={errors} wall_s={wall:.0f}'
    )
    return 1 if violations or errors or totals['open_left'] else 0


if __name__ == '__main__':
    raise SystemExit(main())
