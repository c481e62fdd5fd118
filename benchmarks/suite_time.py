"""Wall time of `execlease verify` against bare TLC, and a trivial job's cost. Prints medians and ratios.

(a) bare `java ... tlc2.TLC` of every job of the full suite, one after another, run here
    (folders with the files prepared before the clock starts), as `TlcJob.argv` says;
(b) `execlease verify --no-cache --jobs 1`;  (c) `execlease verify --no-cache`;
(d) `execlease verify` with a warm cache;
(t) one job of a trivial spec through `tlc.run_job`, again and again in one process: its median
    once warm (after three), with execlease's JVM tuning and (t0) without (EXECLEASE_JVM_TUNING=0).
With --each, also (b) without spare JVMs (b-spare), without the class-data archive (b-cds) and
without any tuning (b-none), to show what each buys. The load average is printed at the start
and the end: the figures are only as good as the machine was quiet.
Targets: b/a <= 0.6, c/a <= 0.5 (on 2 cores), d/c <= 0.02, t < 0.3 s.
Uses the shipped model if present, else the test fixtures.

    .venv/bin/python benchmarks/suite_time.py [--runs 3] [--model DIR] [--each]
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


TARGETS = {'b/a': 0.6, 'c/a': 0.5, 'd/c': 0.02}
TRIVIAL_TARGET = 0.3
VARIANTS = {  # --each: (b) with one part of the JVM tuning switched off
    'b-spare': {'EXECLEASE_JVM_SPARE': '0'}, 'b-cds': {'EXECLEASE_JVM_CDS': '0'},
    'b-none': {'EXECLEASE_JVM_TUNING': '0'},
}
TRIVIAL_SPEC = b'---- MODULE Trivial ----\nVARIABLE x\nInit == x = 0\nNext == UNCHANGED x\n====\n'


def verify(root: Path, model: str, *args: str, env: dict[str, str] | None = None) -> float:
    started = time.monotonic()
    proc = subprocess.run(
        (str(EXECLEASE), 'verify', '--model', model, *args), cwd=root, capture_output=True, text=True,
        env={**os.environ, **(env or {})},
    )
    seconds = time.monotonic() - started
    if proc.returncode == 2:
        raise SystemExit(f'verify could not run:\n{proc.stdout}\n{proc.stderr}')
    return seconds


def trivial(t: suite.Tools, tuned: bool, runs: int) -> float:
    """Median seconds of a trivial spec's job through tlc.run_job, after three to warm up."""
    job = tlc.TlcJob(
        kind='mutation', name='trivial', spec='Trivial.tla', spec_text=TRIVIAL_SPEC, config='Trivial.cfg',
        config_text=b'INIT Init\nNEXT Next\n', java=t.java.path, jar=t.jar.path.resolve(),
    )
    old = os.environ.get('EXECLEASE_JVM_TUNING')
    os.environ['EXECLEASE_JVM_TUNING'] = '1' if tuned else '0'
    try:
        times = []
        for _ in range(3 + runs):
            started = time.monotonic()
            verdict = tlc.run_job(job)
            times.append(time.monotonic() - started)
            if verdict.outcome != 'passed':
                raise SystemExit(f'the trivial job did not pass: {verdict}')
            time.sleep(0.5)  # a job's spare gets the time the previous job would have given it
        return statistics.median(times[3:])
    finally:
        if old is None:
            del os.environ['EXECLEASE_JVM_TUNING']
        else:
            os.environ['EXECLEASE_JVM_TUNING'] = old


def load() -> str:
    return ' '.join(f'{x:.2f}' for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--model', help='model folder (default: the shipped one, else fixtures)')
    parser.add_argument('--fixtures', action='store_true', help='use the test fixture model')
    parser.add_argument('--each', action='store_true', help='also (b) with each part of the JVM tuning off')
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
          f'{os.cpu_count()} CPUs; {args.runs} runs; load average at start {load()}')
    keys = ['a', 'b', 'c', 'd', *(VARIANTS if args.each else ())]
    times: dict[str, list[float]] = {k: [] for k in keys}
    verify(root, model, '--no-cache', '--jobs', '1')  # not timed: builds the class-data archive and the helper
    for run in range(args.runs):
        times['a'].append(bare(jobs))
        times['b'].append(verify(root, model, '--no-cache', '--jobs', '1'))
        times['c'].append(verify(root, model, '--no-cache'))
        verify(root, model)  # make sure the cache is warm
        times['d'].append(verify(root, model))
        for key, env in VARIANTS.items():
            if key in times:
                times[key].append(verify(root, model, '--no-cache', '--jobs', '1', env=env))
        print(f'  run {run + 1}: ' + '  '.join(f'{k}={v[-1]:.2f}s' for k, v in times.items()), flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    labels = {
        'a': 'bare java tlc2.TLC, sequential', 'b': 'verify --no-cache --jobs 1',
        'c': 'verify --no-cache (parallel)', 'd': 'verify, warm cache',
        'b-spare': '(b) without spare JVMs', 'b-cds': '(b) without the class-data archive',
        'b-none': '(b) without any JVM tuning',
    }
    for k in keys:
        print(f'({k}) {labels[k]:40s} median {med[k]:8.2f} s')
    ratios = {'b/a': med['b'] / med['a'], 'c/a': med['c'] / med['a'], 'd/c': med['d'] / med['c']}
    for name, value in ratios.items():
        print(f'{name} = {value:.3f}  (target <= {TARGETS[name]})')
    for key in VARIANTS:
        if key in med:
            print(f'{key}/a = {med[key] / med["a"]:.3f}   b/{key} = {med["b"] / med[key]:.3f}')
    tuned, plain = trivial(t, True, 2 * args.runs + 1), trivial(t, False, 2 * args.runs + 1)
    print(f'(t) a trivial job once warm, median {tuned:.3f} s  (target < {TRIVIAL_TARGET} s); '
          f'(t0) without JVM tuning {plain:.3f} s; t/t0 = {tuned / plain:.3f}')
    print(f'load average at the end {load()}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
