"""What warm JVMs cost and buy: `execlease verify --no-cache` with them against without them, in
wall seconds and in CPU seconds. Prints medians and ratios; asserts nothing.

On each model, after one untimed run (it builds the class-data archive and compiles the warm
JVMs' helper, as a user's first run does), these run in turn --runs times (o w o w ...):
(o) `execlease verify --no-cache --jobs N` with EXECLEASE_JVM_SPARE=0: every job in a JVM of its own;
(w) the same with warm JVMs where the installed execlease starts them (tlc/job.expect_jobs).
CPU seconds are verify's and its children's (the JVMs, javac, trace commands), from the kernel's
accounting of the processes waited for. The models: the test fixture model (a check, a mutation,
two findings, a trace job and its two code mutations: a few jobs of each kind of JVM, as most
models and most of the test suite's runs have) and the shipped model (38 TLC jobs, most of them
mutations run in JVMs of one kind). Both runs of a pair must reach the same verdict for every
job, or no ratio is printed (exit 1): a ratio of unlike work means nothing.

The interpreter says which execlease is measured: another tree's
`/path/to/tree/.venv/bin/python benchmarks/warm_jvms.py` measures that tree's warm JVMs on the
same models, so two policies can be set side by side through their w/o. The load average is
printed at the start and the end: the figures are only as good as the machine was quiet.
No target: w/o of wall and of CPU are what warm JVMs buy and what they cost, the figures behind
when they start (docs/architecture.md#the-jvm-of-a-tlc-job).

    .venv/bin/python benchmarks/warm_jvms.py [--runs 3] [--jobs 2] [--fixtures-only]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(
    0, str(Path(__file__).resolve().parent.parent)
)  # run as a script: benchmarks.suite_time
from benchmarks import bare_suite, suite_time  # noqa: E402

EXECLEASE = Path(sys.executable).parent / 'execlease'
VARIANTS = {'o': {'EXECLEASE_JVM_SPARE': '0'}, 'w': {}}


def verify(root: Path, model: str, jobs: int, env: dict[str, str]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one `execlease verify --no-cache`, and each job's verdict."""
    with tempfile.TemporaryDirectory(prefix='execlease-bench-report-') as folder:
        out = Path(folder) / 'report.json'
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        proc = subprocess.run(
            (str(EXECLEASE), 'verify', '--model', model, '--no-cache', '--jobs', str(jobs))
            + ('--json', str(out)),
            cwd=root,
            capture_output=True,
            text=True,
            env={**os.environ, **env},
        )
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode == 2 or not out.is_file():
            raise SystemExit(f'verify could not run:\n{proc.stdout}\n{proc.stderr}')
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, bare_suite.report_verdicts(json.loads(out.read_text(encoding='utf-8')))


def measure(root: Path, model: str, runs: int, jobs: int) -> list[str]:
    verify(root, model, jobs, {})  # not timed: the archive and the helper, as a first run builds
    wall: dict[str, list[float]] = {k: [] for k in VARIANTS}
    cpu: dict[str, list[float]] = {k: [] for k in VARIANTS}
    said: list[dict[str, Any]] = []
    for _ in range(runs):
        said.append({})
        for key, env in VARIANTS.items():
            w, c, said[-1][key] = verify(root, model, jobs, env)
            wall[key].append(w)
            cpu[key].append(c)
    return summary(f'model {model}, --jobs {jobs}', wall, cpu, said)


def summary(
    title: str,
    wall: dict[str, list[float]],
    cpu: dict[str, list[float]],
    said: Sequence[dict[str, Any]],
) -> list[str]:
    """The medians and w/o of each, or the jobs whose verdicts differ and no ratio."""
    differ = [
        f'  run {n}, {job[0]} {job[1]}: (o) {pair["o"].get(job)}, (w) {pair["w"].get(job)}'
        for n, pair in enumerate(said, 1)
        for job in sorted(set(pair['o']) | set(pair['w']))
        if pair['o'].get(job) != pair['w'].get(job)
    ]
    if differ:
        return [f'{title}: the verdicts differ with and without warm JVMs: no ratio', *differ]
    med = {k: (statistics.median(wall[k]), statistics.median(cpu[k])) for k in VARIANTS}
    lines = [f'{title}, {len(said[0]["o"])} jobs, {len(said)} runs:']
    for key, label in (('o', 'every job in a JVM of its own'), ('w', 'warm JVMs')):
        each = ', '.join(f'{w:.1f}/{c:.1f}' for w, c in zip(wall[key], cpu[key]))
        lines.append(f'  ({key}) {label}: median {med[key][0]:.2f} s wall, {med[key][1]:.2f} CPU-s')
        lines.append(f'      each run, wall/CPU: {each}')
    lines.append(
        f'  w/o = {med["w"][0] / med["o"][0]:.3f} wall, {med["w"][1] / med["o"][1]:.3f} CPU'
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    parser.add_argument('--fixtures-only', action='store_true', help='not the shipped model')
    args = parser.parse_args(argv)
    os.environ.setdefault('EXECLEASE_TLA_OFFLINE', '1')
    print(f'{EXECLEASE}; {os.cpu_count()} CPUs; load average at start {suite_time.load()}')
    models = [(suite_time.fixture_repo(), suite_time.FIXTURE_MODEL)]
    shipped = suite_time.HERE / 'verification' / 'execution-lease'
    if not args.fixtures_only and (shipped / 'manifest.json').is_file():
        models.append((suite_time.HERE, 'verification/execution-lease'))
    held = True
    for root, model in models:
        lines = measure(root, model, args.runs, args.jobs)
        print('\n'.join(lines), flush=True)
        held = held and 'no ratio' not in lines[0]
    print(f'load average at the end {suite_time.load()}')
    return 0 if held else 1


if __name__ == '__main__':
    raise SystemExit(main())
