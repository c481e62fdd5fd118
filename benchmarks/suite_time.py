"""Wall time of `execlease verify` against bare TLC (issue 4 §6). Prints medians and ratios.

(a) bare `java ... tlc2.TLC` of every job of the full suite, one after another, run here
    (folders with the files prepared before the clock starts);
(b) `execlease verify --no-cache --jobs 1`;  (c) `execlease verify --no-cache`;
(d) `execlease verify` with a warm cache.
Targets: b/a <= 1.10, d/b <= 0.05. Uses the shipped model if present, else the test fixtures.

    .venv/bin/python benchmarks/suite_time.py [--runs 3] [--model DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from execlease_hook import manifest, suite, tlc, tools

HERE = Path(__file__).resolve().parent.parent
EXECLEASE = Path(sys.executable).parent / 'execlease'
FIXTURES = HERE / 'tests' / 'fixtures' / 'tlc'


def fixture_repo() -> tuple[Path, str]:
    """A throwaway repo holding the test fixture model (used until the shipped model exists)."""
    root = Path(tempfile.mkdtemp(prefix='execlease-bench-'))
    subprocess.run(('git', 'init', '-q', '-b', 'main'), cwd=root, check=True)
    folder = root / 'verification' / 'counter'
    folder.mkdir(parents=True)
    for name in ('Counter.tla', 'CounterLib.tla', 'pass.cfg', 'invariant.cfg', 'action.cfg'):
        shutil.copyfile(FIXTURES / name, folder / name)
    (folder / 'manifest.json').write_text(json.dumps({
        'version': 1, 'spec': 'Counter.tla',
        'checks': [{'name': 'main', 'config': 'pass.cfg'}],
        'mutations': [{'name': 'narrow', 'config': 'pass.cfg',
                       'replace': {'from': 'TypeOK == x \\in 0..N', 'to': 'TypeOK == x \\in 0..1'},
                       'violates': 'TypeOK'}],
        'findings': [{'id': 'F1', 'config': 'invariant.cfg', 'violates': 'XBelowTwo'},
                     {'id': 'F2', 'config': 'action.cfg', 'violates': 'NeverDecreases'}],
        'coverage': {'syncCommit': None, 'modelHash': None, 'entries': [],
                     'abstract': [{'action': a, 'reason': 'a benchmark of TLC alone'} for a in ('Inc', 'Flip', 'Reset')]},
    }))
    return root, 'verification/counter'


def bare(jobs: list[tlc.TlcJob]) -> float:
    folders = []
    for job in jobs:
        folder = Path(tempfile.mkdtemp(prefix='execlease-bare-'))
        tlc._write_files(job, folder)
        folders.append(folder)
    try:
        started = time.monotonic()
        for job, folder in zip(jobs, folders):
            subprocess.run(job.argv(folder), cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.monotonic() - started
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def verify(root: Path, model: str, *args: str) -> float:
    started = time.monotonic()
    proc = subprocess.run(
        (str(EXECLEASE), 'verify', '--model', model, *args), cwd=root, capture_output=True, text=True,
    )
    seconds = time.monotonic() - started
    if proc.returncode == 2:
        raise SystemExit(f'verify could not run:\n{proc.stdout}\n{proc.stderr}')
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--model', help='model folder (default: the shipped one, else fixtures)')
    parser.add_argument('--fixtures', action='store_true', help='use the test fixture model')
    args = parser.parse_args()
    os.environ.setdefault('EXECLEASE_TLA_OFFLINE', '1')
    shipped = HERE / 'verification' / 'execution-lease'
    if args.fixtures:
        root, model = fixture_repo()
    elif args.model:
        root, model = HERE, args.model
    elif (shipped / 'manifest.json').is_file():
        root, model = HERE, 'verification/execution-lease'
    else:
        root, model = fixture_repo()
    m = manifest.load(root / model / 'manifest.json', root)
    t = suite.Tools(tools.resolve_jar(root), tools.find_java())
    jobs = [p.job for p in suite.plan(m, False, t) if p.problem is None]
    print(f'model {model}: {len(jobs)} TLC jobs; {t.jar.tlc_version}; Java {t.java.major}; '
          f'{os.cpu_count()} CPUs; {args.runs} runs')
    times: dict[str, list[float]] = {k: [] for k in 'abcd'}
    for run in range(args.runs):
        times['a'].append(bare(jobs))
        times['b'].append(verify(root, model, '--no-cache', '--jobs', '1'))
        times['c'].append(verify(root, model, '--no-cache'))
        verify(root, model)  # make sure the cache is warm
        times['d'].append(verify(root, model))
        print(f'  run {run + 1}: ' + '  '.join(f'{k}={v[-1]:.2f}s' for k, v in times.items()), flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    labels = {
        'a': 'bare java tlc2.TLC, sequential', 'b': 'verify --no-cache --jobs 1',
        'c': 'verify --no-cache (parallel)', 'd': 'verify, warm cache',
    }
    for k in 'abcd':
        print(f'({k}) {labels[k]:34s} median {med[k]:8.2f} s')
    print(f'b/a = {med["b"] / med["a"]:.3f}  (target <= 1.10)')
    print(f'c/b = {med["c"] / med["b"]:.3f}')
    print(f'd/b = {med["d"] / med["b"]:.3f}  (target <= 0.05)')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
