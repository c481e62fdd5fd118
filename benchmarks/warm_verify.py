"""Wall time of `execlease verify` when every result is in the cache. Prints medians and ratios;
asserts nothing.

On a model folder of this repository (the shipped model by default), after one untimed run that
fills the cache, each of these is run --runs times in turn (a v d a v d ...), and the median of each
is printed:
  (a) the floor: `python -c pass` with the same interpreter
  (v) `execlease --version`: the interpreter, the command-line parser and the package's metadata
  (d) `execlease verify --model DIR` with a warm cache: every TLC job, trace job and code mutation
      answered from the cache, and every check that needs no TLC (coverage, the action map, the
      watch rules, the notes) done again
With --cold, also (c) `execlease verify --model DIR --no-cache` (default jobs) once, and d/c.
A last run of (d) with --json checks that every job was answered from the cache: a figure of (d)
that ran TLC would be no warm figure at all, and the benchmark then says so and exits 1.
The load average is printed at the start and the end: the figures are only as good as the
machine was quiet.
Targets: d <= 0.6 s on a quiet 2-core machine, d/c <= 0.02.

    .venv/bin/python benchmarks/warm_verify.py [--runs 10] [--model DIR] [--cold]
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
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
EXECLEASE = Path(sys.executable).parent / 'execlease'
SHIPPED = 'verification/execution-lease'


def env(pycache: str) -> dict[str, str]:
    out = dict(os.environ)
    # An installed execlease has compiled bytecode (pip writes it); a shell with
    # PYTHONDONTWRITEBYTECODE=1 would time the compiler instead. The caches go to a temp folder,
    # so that the trace commands' own bytecode is not written into the covered folders.
    out.pop('PYTHONDONTWRITEBYTECODE', None)
    out['PYTHONPYCACHEPREFIX'] = pycache
    return out


def timed(argv: Sequence[str], environ: dict[str, str], root: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=root, env=environ, capture_output=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(
            f'{" ".join(argv)} exited {proc.returncode}:\n{proc.stdout.decode()}{proc.stderr.decode()}'
        )
    return seconds


def uncached_jobs(model: str, environ: dict[str, str], root: Path) -> list[str]:
    """The jobs a warm run still had to run (none, when the cache answered every one)."""
    with tempfile.TemporaryDirectory(prefix='execlease-warm-') as folder:
        report = Path(folder) / 'verify.json'
        timed((str(EXECLEASE), 'verify', '--model', model, '--json', str(report)), environ, root)
        data = json.loads(report.read_text(encoding='utf-8'))
    return [
        f'{j["kind"]} {j["name"]}'
        for m in data['models']
        for j in m['jobs']
        if not j['cached'] and j['verdict'] is not None
    ]


def load() -> str:
    return ' '.join(f'{x:.2f}' for x in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=10)
    parser.add_argument(
        '--model', default=SHIPPED, help='a model folder, relative to the repository'
    )
    parser.add_argument('--cold', action='store_true', help='also one cold run (--no-cache): d/c')
    args = parser.parse_args(argv)
    root = HERE
    print(f'load average at the start: {load()} ({os.cpu_count()} cores)')
    with tempfile.TemporaryDirectory(prefix='execlease-pycache-') as pycache:
        environ = env(pycache)
        verify = (str(EXECLEASE), 'verify', '--model', args.model)
        commands = {
            'a': (sys.executable, '-c', 'pass'),
            'v': (str(EXECLEASE), '--version'),
            'd': verify,
        }
        cold = timed((*verify, '--no-cache'), environ, root) if args.cold else None
        for argv in commands.values():  # untimed: bytecode written, the cache filled
            timed(argv, environ, root)
        times: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(args.runs):
            for key, argv in commands.items():
                times[key].append(timed(argv, environ, root))
        missed = uncached_jobs(args.model, environ, root)
    median = {k: statistics.median(v) for k, v in times.items()}
    spread = {k: (min(v), max(v)) for k, v in times.items()}
    print(f'model {args.model}, {args.runs} runs each, medians (min-max):')
    names = {'a': 'python -c pass', 'v': 'execlease --version', 'd': 'execlease verify, warm cache'}
    for key, name in names.items():
        low, high = spread[key]
        print(f'  ({key}) {name:30} {median[key]:7.3f} s  ({low:.3f}-{high:.3f})')
    print(
        f'  d/a = {median["d"] / median["a"]:.1f}, d/v = {median["d"] / median["v"]:.1f}, '
        f'd - v = {median["d"] - median["v"]:.3f} s (target: d <= 0.6 s on a quiet 2-core machine)'
    )
    if cold is not None:
        print(f'  (c) execlease verify --no-cache    {cold:7.3f} s  (one run)')
        print(f'  d/c = {median["d"] / cold:.4f} (target <= 0.02)')
    print(f'load average at the end: {load()}')
    if missed:
        print(
            f'NOT WARM: the last warm run still ran {", ".join(missed)}; the figures above are not '
            'of a warm cache (is another run changing the model, or the cache unwritable?)'
        )
        return 1
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
