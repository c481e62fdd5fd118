"""Trace validation throughput: events per second at 10^2, 10^3 and 10^4 events.

Traces are recorded from the real runtime (examples/agent_runtime, real SQLite, tracing on),
driven in one process through the guard scenarios' runs: turn after turn a run claims, renews,
runs its step through run_turn and releases; every third turn its lease expires after the
effect and a second run takes the turn over and re-runs the step. Then, timed separately:
export to NDJSON, conversion to the TraceData module, and one TLC run of TraceExecutionLease.
Growth is compared with the smallest size measured in the same run: time ratio against event
ratio (linear: equal).

With --overhead N, also the cost of recording: N rounds of the fault-injection harness
(fault_harness.py, --turns turns) with tracing off and on, alternating, the same seed each pair;
prints the median wall time of each and their ratio (the baseline is the untraced run).

    .venv/bin/python -m benchmarks.trace_validation [--sizes 100 1000 10000] [--runs 1]
        [--overhead 3 --turns 150]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from examples.agent_runtime import trace
from examples.agent_runtime.effects import append_effect
from examples.agent_runtime.fault_harness import FaultSettings, run_faults
from examples.agent_runtime.lease import renew
from examples.agent_runtime.steps import begin_step
from examples.agent_runtime.trace_scenarios import Run, World
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc.jar import resolve_jar
from execlease_hook.tlc.java import find_java
from execlease_hook.tlc.job import run_job
from execlease_hook.traces import validation

HERE = Path(__file__).resolve().parent.parent
MODEL = HERE / 'verification' / 'execution-lease'


def record(folder: Path, events: int) -> None:
    """Drive the runtime until about `events` trace lines exist; export them into folder/out."""
    world = World(folder)
    a, b = Run(world, 'a'), Run(world, 'b')
    made = turn = 0
    while made < events:
        turn += 1
        turn_id = f'b{turn:06d}'
        world.add_turns(turn_id)
        lease = a.claim(turn_id)
        assert lease is not None
        if turn % 3:
            renew(a.act(), lease, 60.0)
            a.turn(lease, ['search'])
            made += 7
        else:
            begin_step(a.act(), lease, '0:search', 'always')
            append_effect(str(world.effect_log), lease, '0:search', 'always', 0)
            world.expire(turn_id, a)
            new = b.claim(turn_id)
            assert new is not None
            b.turn(new, ['search'])
            made += 9
    trace.export(world.db, folder / 'out')


def measure(events: int, java: Path, jar: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix='trace-bench-') as work:
        folder = Path(work)
        record(folder, events)
        started = time.monotonic()
        found = validation.read_folder(folder / 'out', 'benchmark')
        base = validation.base_job(
            'benchmark',
            'TraceExecutionLease.tla',
            'TraceExecutionLease.cfg',
            java,
            jar,
            timeout=3600,
            settings=from_environ(),
        )
        job = validation.tlc_job(base, MODEL, found, root=HERE)
        converted = time.monotonic()
        verdict = run_job(job)
        done = time.monotonic()
        judged = validation.judge(verdict, found)
        if judged.outcome != 'accepted':
            raise SystemExit(f'{events} events: the traces were not accepted: {judged}')
        return {
            'lines': judged.lines,
            'traces': judged.traces,
            'convert': converted - started,
            'tlc': done - converted,
            'total': done - started,
        }


def overhead(rounds: int, turns: int) -> None:
    walls: dict[bool, list[float]] = {False: [], True: []}
    for i in range(rounds):
        for traced in (False, True):
            with tempfile.TemporaryDirectory(prefix='trace-overhead-') as work:
                folder = Path(work)
                report = run_faults(
                    FaultSettings(
                        seed=1000 + i,
                        turns=turns,
                        deadline_s=600,
                        trace_dir=folder / 'traces' if traced else None,
                    ),
                    folder / 'run',
                )
                walls[traced].append(report.wall_s)
                print(
                    f'  round {i + 1} {"traced" if traced else "plain "}: {report.wall_s:.1f} s',
                    flush=True,
                )
    off, on = statistics.median(walls[False]), statistics.median(walls[True])
    print(
        f'fault harness, {turns} turns, median of {rounds}: plain {off:.1f} s, traced {on:.1f} s '
        f'(x{on / off:.2f}; the traced time includes the export to NDJSON)'
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', type=int, nargs='+', default=[100, 1000, 10000])
    parser.add_argument('--runs', type=int, default=1, help='runs per size (the median is shown)')
    parser.add_argument(
        '--overhead',
        type=int,
        default=0,
        metavar='N',
        help='also N rounds of the fault harness without and with tracing',
    )
    parser.add_argument('--turns', type=int, default=150, help='turns per overhead round')
    options = parser.parse_args()
    root = HERE
    jar = resolve_jar(root, from_environ())
    java = find_java(from_environ())
    rows = []
    for size in options.sizes:
        samples = [measure(size, java.path, jar.path) for _ in range(options.runs)]
        row = {k: statistics.median(s[k] for s in samples) for k in samples[0]}
        rows.append(row)
        print(
            f'{int(row["lines"]):>7,} events in {int(row["traces"]):>5,} traces: convert {row["convert"]:6.2f} s, '
            f'TLC {row["tlc"]:6.2f} s, total {row["total"]:6.2f} s = {row["lines"] / row["total"]:8,.0f} events/s',
            flush=True,
        )
    base = rows[0]
    for row in rows[1:]:
        events = row['lines'] / base['lines']
        print(
            f'x{events:.1f} events -> x{row["total"] / base["total"]:.2f} time '
            f'(TLC alone x{row["tlc"] / base["tlc"]:.2f}); linear growth would be x{events:.1f}'
        )
    if options.overhead:
        overhead(options.overhead, options.turns)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
