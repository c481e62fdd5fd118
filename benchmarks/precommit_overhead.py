"""What the guard adds to a commit: `pre-commit run` with the execlease guard hook against the
same `pre-commit run` with a hook that does nothing. Prints medians and the ratio; asserts
nothing.

The real pre-commit, on the scratch repository of benchmarks/guard_latency.py (2,000 files, a
model whose manifest covers two files), with one change staged that concerns nothing covered.
Two configurations, each one local hook with the published hook's options (`language: python`,
the stages, `always_run`, `require_serial`), in one environment that pre-commit builds once:
  (n) the no-op: `python -c pass`, the interpreter beside --execlease
  (g) the guard: `execlease guard`, the console script --execlease
Runs alternate (n g n g ...) so that a change of load touches both; the medians and g/n are
printed. Target: g/n <= 1.15. The load average is printed at the start and the end.

With --instructions, one run of each is counted instead of timed: the instructions of every
process (pre-commit, the hook, its gits) under valgrind's callgrind, which the load does not
move; timed alone, g/n has come out within 0.03 of it (1.16 timed against 1.17 counted, 1.06
against 1.04).

    .venv/bin/python benchmarks/precommit_overhead.py [--runs 25] [--execlease PATH] [--instructions]
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import guard_latency

TARGET = 1.15
CONFIG = """\
repos:
-   repo: local
    hooks:
    -   id: {id}
        name: {id}
        entry: {entry}
        language: python
        stages: [pre-commit, pre-merge-commit]
        always_run: true
        require_serial: true
"""


def run_ms(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(
            f'{argv} exited {proc.returncode}, expected 0:\n'
            f'{proc.stdout.decode()}{proc.stderr.decode()}'
        )
    return elapsed * 1000


def instructions(argv: Sequence[str], cwd: Path, env: dict[str, str], folder: Path) -> int:
    """The instructions of `argv` and of every process it starts, from callgrind's file of each
    (a hook's own output, where callgrind would also print its count, is pre-commit's to keep)."""
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    valgrind = ('valgrind', '--tool=callgrind', '--trace-children=yes')
    run_ms((*valgrind, f'--callgrind-out-file={folder}/callgrind.%p', *argv), cwd, env)
    return sum(
        int(count)
        for out in folder.iterdir()
        for count in re.findall(r'^summary: (\d+)$', out.read_text(errors='replace'), re.M)
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = guard_latency.parse_args(__doc__, argv, instructions=True)
    if args.instructions and shutil.which('valgrind') is None:
        raise SystemExit('--instructions needs valgrind on PATH (its callgrind tool)')
    execlease = Path(args.execlease).absolute()
    print(f'load average at the start: {os.getloadavg()[0]:.2f}')
    with tempfile.TemporaryDirectory(prefix='precommit-overhead-') as tmp:
        root = Path(tmp) / 'repo'
        root.mkdir()
        guard_latency.PYCACHE = str(Path(tmp) / 'pycache')
        guard_latency.build(root)
        configs = {
            'n': ('noop', f'{execlease.parent / "python"} -c pass'),
            'g': ('execlease-guard', f'{execlease} guard'),
        }
        for key, (hook_id, entry) in configs.items():
            (root / f'{key}.yaml').write_text(CONFIG.format(id=hook_id, entry=entry))
        guard_latency.git(root, 'add', 'n.yaml', 'g.yaml')
        guard_latency.git(root, 'commit', '-q', '-m', 'hooks')
        (root / 'pkg00' / 'mod0000.py').write_text('def f0(x):\n    return x - 1\n')
        guard_latency.git(root, 'add', 'pkg00/mod0000.py')
        env = guard_latency.env()
        env['PRE_COMMIT_HOME'] = str(Path(tmp) / 'pre-commit-home')
        pre_commit = (sys.executable, '-m', 'pre_commit', 'run')
        times: dict[str, list[float]] = {key: [] for key in configs}
        for _ in range(2):  # warm-up: the hook environment, bytecode caches, page cache
            for key in configs:
                run_ms((*pre_commit, '-c', f'{key}.yaml'), root, env)
        if args.instructions:
            count = {
                key: instructions((*pre_commit, '-c', f'{key}.yaml'), root, env, Path(tmp) / 'cg')
                for key in configs
            }
            print(f'pre-commit run overhead in instructions, every process ({execlease})')
            print(f'  (n) a no-op python hook                   {count["n"] / 1e6:7.0f} M')
            print(
                f'  (g) execlease guard, nothing concerned    {count["g"] / 1e6:7.0f} M'
                f'   g/n = {count["g"] / count["n"]:.3f}  (target <= {TARGET})'
            )
            return 0
        for _ in range(args.runs):
            for key in configs:
                times[key].append(run_ms((*pre_commit, '-c', f'{key}.yaml'), root, env))
    median = {key: statistics.median(values) for key, values in times.items()}
    print(f'pre-commit run overhead, medians of {args.runs} interleaved runs ({execlease})')
    print(f'  (n) a no-op python hook                   {median["n"]:7.1f} ms')
    print(
        f'  (g) execlease guard, nothing concerned    {median["g"]:7.1f} ms'
        f'   g/n = {median["g"] / median["n"]:.2f}  (target <= {TARGET})'
    )
    print(f'load average at the end: {os.getloadavg()[0]:.2f}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
