"""Wall time of `execlease verify` against bare TLC, and a trivial job's cost. Prints medians and ratios.

(a) the work of (b) done the naive way, one thing after another (benchmarks/bare_suite.py): every
    planned TLC job, every trace job (its command, the compiled traces, TLC) and every code
    mutation (its trace jobs in its mutated copy, to the first rejection), each TLC run a bare
    `java ... tlc2.TLC` as `TlcJob.argv` says; job folders and mutated copies are made before
    the clock starts. What verify does beyond that is named in the output;
(b) `execlease verify --no-cache --jobs 1`;  (c) `execlease verify --no-cache`;
(d) `execlease verify` with a warm cache;
(t) one job of a trivial spec through `tlc.run_job`, again and again in one process: its median
    once warm (after three), with execlease's JVM tuning and (t0) without (EXECLEASE_JVM_TUNING=0).
Each verify writes its report (--json); (a)'s verdict of every job (held, did not hold, could not
run; TLC's outcome, kind and property) must equal every report's, or no ratio is printed (exit 1):
a ratio of unlike work means nothing. (a) and (b) are split by kind of job (check, mutation,
finding, traces, code-mutation; (b)'s from its report's seconds per job).
With --each, also (b) without spare JVMs (b-spare), without the class-data archive (b-cds) and
without any tuning (b-none), to show what each buys. The load average is printed at the start
and the end: the figures are only as good as the machine was quiet.
Targets: b/a <= 0.6, c/a <= 0.5 (on 2 cores), d/c <= 0.02, t < 0.3 s.
Uses the shipped model if present, else the test fixtures (a counter model with a trace job and
two code mutations).

    .venv/bin/python benchmarks/suite_time.py [--runs 3] [--model DIR | --fixtures] [--each]
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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execlease_hook.tlc.java import find_java

sys.path.insert(
    0, str(Path(__file__).resolve().parent.parent)
)  # run as a script: benchmarks.bare_suite

from benchmarks import bare_suite
from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.tlc import jar
from execlease_hook.tlc.job import TlcJob, expect_jobs, run_job
from execlease_hook.verify import plan

HERE = Path(__file__).resolve().parent.parent
EXECLEASE = Path(sys.executable).parent / 'execlease'
TLC_FIXTURES = HERE / 'tests' / 'fixtures' / 'tlc'
TRACE_FIXTURES = HERE / 'tests' / 'fixtures' / 'traces'
FIXTURE_MODEL = 'verification/counter'


def fixture_repo() -> Path:
    """A throwaway repo holding the test fixture model: a check, a mutation, two findings, a trace
    job running a counter program, and two code mutations of that program; coverage synced."""
    root = Path(tempfile.mkdtemp(prefix='execlease-bench-'))
    git = ('git', '-c', 'user.name=benchmark', '-c', 'user.email=benchmark@example.invalid')
    subprocess.run((*git, 'init', '-q', '-b', 'main'), cwd=root, check=True)
    folder = root / FIXTURE_MODEL
    folder.mkdir(parents=True)
    for name in ('Counter.tla', 'CounterLib.tla', 'pass.cfg', 'invariant.cfg', 'action.cfg'):
        shutil.copyfile(TLC_FIXTURES / name, folder / name)
    for name in ('TraceCounter.tla', 'TraceCounter.cfg'):
        shutil.copyfile(TRACE_FIXTURES / name, folder / name)
    (root / 'app').mkdir()
    shutil.copyfile(TRACE_FIXTURES / 'counter_app.py', root / 'app' / 'counter_app.py')
    app = 'app/counter_app.py'
    (folder / 'manifest.json').write_text(
        json.dumps(
            {
                'version': 1,
                'spec': 'Counter.tla',
                'checks': [{'name': 'main', 'config': 'pass.cfg'}],
                'mutations': [
                    {
                        'name': 'narrow',
                        'config': 'pass.cfg',
                        'replace': {'from': 'TypeOK == x \\in 0..N', 'to': 'TypeOK == x \\in 0..1'},
                        'violates': 'TypeOK',
                    }
                ],
                'findings': [
                    {'id': 'F1', 'config': 'invariant.cfg', 'violates': 'XBelowTwo'},
                    {'id': 'F2', 'config': 'action.cfg', 'violates': 'NeverDecreases'},
                ],
                'traces': [
                    {
                        'name': 'app',
                        'spec': 'TraceCounter.tla',
                        'config': 'TraceCounter.cfg',
                        'command': ['python', app],
                    }
                ],
                'codeMutations': [
                    {
                        'name': 'unbounded',
                        'path': app,
                        'replace': {'from': '    if x < top:', 'to': '    if True:'},
                    },
                    {
                        'name': 'flip-to-two',
                        'path': app,
                        'replace': {'from': 'return 1 - y', 'to': 'return 2 - y'},
                    },
                ],
                'coverage': {
                    'syncCommit': None,
                    'modelHash': None,
                    'entries': [
                        {'id': 'inc', 'path': app, 'function': 'increment', 'action': 'Inc'},
                        {'id': 'flip', 'path': app, 'function': 'flip', 'action': 'Flip'},
                    ],
                    'abstract': [{'action': 'Reset', 'reason': 'the counter program never resets'}],
                },
            },
            indent=2,
        )
        + '\n'
    )
    subprocess.run((*git, 'add', '.'), cwd=root, check=True)
    subprocess.run((*git, 'commit', '-q', '-m', 'model'), cwd=root, check=True)
    proc = subprocess.run(
        (str(EXECLEASE), 'verify', '--update-coverage'), cwd=root, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise SystemExit(f'the fixture model does not verify:\n{proc.stdout}\n{proc.stderr}')
    return root


TARGETS = {'b/a': 0.6, 'c/a': 0.5, 'd/c': 0.02}
TRIVIAL_TARGET = 0.3
VARIANTS = {  # --each: (b) with one part of the JVM tuning switched off
    'b-spare': {'EXECLEASE_JVM_SPARE': '0'},
    'b-cds': {'EXECLEASE_JVM_CDS': '0'},
    'b-none': {'EXECLEASE_JVM_TUNING': '0'},
}
LABELS = {
    'a': 'the same work, bare java tlc2.TLC, sequential',
    'b': 'verify --no-cache --jobs 1',
    'c': 'verify --no-cache (parallel)',
    'd': 'verify, warm cache',
    'b-spare': '(b) without spare JVMs',
    'b-cds': '(b) without the class-data archive',
    'b-none': '(b) without any JVM tuning',
}
TRIVIAL_SPEC = b'---- MODULE Trivial ----\nVARIABLE x\nInit == x = 0\nNext == UNCHANGED x\n====\n'


def verify(
    root: Path, model: str, *args: str, env: dict[str, str] | None = None
) -> tuple[float, dict[str, Any]]:
    """Wall seconds of one `execlease verify`, and its --json report."""
    with tempfile.TemporaryDirectory(prefix='execlease-bench-report-') as folder:
        out = Path(folder) / 'report.json'
        started = time.monotonic()
        proc = subprocess.run(
            (str(EXECLEASE), 'verify', '--model', model, '--json', str(out), *args),
            cwd=root,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
        )
        seconds = time.monotonic() - started
        if proc.returncode == 2 or not out.is_file():
            raise SystemExit(f'verify could not run:\n{proc.stdout}\n{proc.stderr}')
        return seconds, json.loads(out.read_text(encoding='utf-8'))


def trivial(t: jar.Tools, tuned: bool, runs: int) -> float:
    """Median seconds of a trivial spec's job through tlc.run_job, after three to warm up."""
    job = TlcJob(
        kind='mutation',
        name='trivial',
        spec='Trivial.tla',
        spec_text=TRIVIAL_SPEC,
        config='Trivial.cfg',
        config_text=b'INIT Init\nNEXT Next\n',
        java=t.java.path,
        jar=t.jar.path.resolve(),
        settings=t.settings._replace(jvm_tuning=tuned),
    )
    times = []
    expect_jobs([job] * (3 + runs))  # as verify's pool says what is to come: warm JVMs for them
    for _ in range(3 + runs):
        started = time.monotonic()
        verdict = run_job(job)
        times.append(time.monotonic() - started)
        if verdict.outcome != 'passed':
            raise SystemExit(f'the trivial job did not pass: {verdict}')
        time.sleep(0.5)  # a job's spare gets the time the previous job would have given it
    return statistics.median(times[3:])


def load() -> str:
    return ' '.join(f'{x:.2f}' for x in os.getloadavg())


Split = Mapping[str, tuple[int, float]]


def split_lines(a: Sequence[Split], b: Sequence[Split], a_wall: float, b_wall: float) -> list[str]:
    """Where the time goes: median seconds per kind of job in (a) and (b), and (b)'s time outside its jobs."""

    def med(splits: Sequence[Split], kind: str) -> float:
        return statistics.median(s[kind][1] for s in splits)

    lines = [f'  {"kind":14s} {"jobs":>5s} {"(a) s":>9s} {"(b) s":>9s} {"b/a":>7s}']
    for kind in bare_suite.KINDS:
        ka, kb = med(a, kind), med(b, kind)
        ratio = f'{kb / ka:7.3f}' if ka > 0 else '      -'
        lines.append(f'  {kind:14s} {a[0][kind][0]:5d} {ka:9.2f} {kb:9.2f} {ratio}')
    in_a = sum(med(a, k) for k in bare_suite.KINDS)
    in_b = sum(med(b, k) for k in bare_suite.KINDS)
    lines.append(f'  {"sum of jobs":14s} {"":5s} {in_a:9.2f} {in_b:9.2f}')
    lines.append(
        f'  {"outside them":14s} {"":5s} {a_wall - in_a:9.2f} {b_wall - in_b:9.2f}'
        '   ((b): start-up, plan, coverage, map, copies, report)'
    )
    return lines


def verdict_lines(problems: Sequence[str], med: Mapping[str, float]) -> list[str]:
    """The ratios against their targets, or, when (a) and verify did not reach the same verdicts,
    those differences and no ratio."""
    if problems:
        return [
            'the verdicts of (a) and verify differ, so they did not do the same work: no ratios',
            *(f'  {p}' for p in problems),
        ]
    ratios = {'b/a': med['b'] / med['a'], 'c/a': med['c'] / med['a'], 'd/c': med['d'] / med['c']}
    lines = [f'{name} = {value:.3f}  (target <= {TARGETS[name]})' for name, value in ratios.items()]
    lines += [
        f'{key}/a = {med[key] / med["a"]:.3f}   b/{key} = {med["b"] / med[key]:.3f}'
        for key in VARIANTS
        if key in med
    ]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--model', help='model folder (default: the shipped one, else fixtures)')
    parser.add_argument('--fixtures', action='store_true', help='use the test fixture model')
    parser.add_argument(
        '--each', action='store_true', help='also (b) with each part of the JVM tuning off'
    )
    args = parser.parse_args(argv)
    os.environ.setdefault('EXECLEASE_TLA_OFFLINE', '1')
    shipped = HERE / 'verification' / 'execution-lease'
    if args.model and not args.fixtures:
        root, model = HERE, args.model
    elif (shipped / 'manifest.json').is_file() and not args.fixtures:
        root, model = HERE, 'verification/execution-lease'
    else:
        root, model = fixture_repo(), FIXTURE_MODEL
    m = manifest_read.load(root / model / 'manifest.json', root)
    t = jar.Tools(jar.resolve_jar(root, from_environ()), find_java(from_environ()), from_environ())
    planned = plan.plan(m, False, t)
    print(
        f'model {model}: {sum(p.problem is None for p in planned)} planned TLC jobs, {len(m.traces)} trace '
        f'jobs, {len(m.code_mutations)} code mutations; {t.jar.tlc_version}; Java {t.java.major}; '
        f'{os.cpu_count()} CPUs; {args.runs} runs; load average at start {load()}',
        flush=True,
    )
    keys = ['a', 'b', 'c', 'd', *(VARIANTS if args.each else ())]
    times: dict[str, list[float]] = {k: [] for k in keys}
    splits: dict[str, list[Split]] = {'a': [], 'b': []}
    prepared: list[float] = []
    problems: list[str] = []
    verify(
        root, model, '--no-cache', '--jobs', '1'
    )  # not timed: builds the class-data archive and the helper
    for run in range(args.runs):
        with bare_suite.prepare(m, t) as p:
            a = bare_suite.run(p)
        prepared.append(p.seconds)
        times['a'].append(a.seconds)
        splits['a'].append(a.split())
        reports: dict[str, dict[str, Any]] = {}
        for key, flags, env in (
            ('b', ('--no-cache', '--jobs', '1'), None),
            ('c', ('--no-cache',), None),
            ('warm-up', (), None),
            ('d', (), None),
            *((k, ('--no-cache', '--jobs', '1'), e) for k, e in VARIANTS.items() if k in times),
        ):
            seconds, reports[key] = verify(root, model, *flags, env=env)
            if key in times:
                times[key].append(seconds)
        splits['b'].append(bare_suite.report_split(reports['b']))
        mine = bare_suite.verdicts(a)
        for key, report in reports.items():
            problems += bare_suite.differences(
                mine, bare_suite.report_verdicts(report), f'({key}, run {run + 1})'
            )
        print(
            f'  run {run + 1}: ' + '  '.join(f'{k}={v[-1]:.2f}s' for k, v in times.items()),
            flush=True,
        )
    med = {k: statistics.median(v) for k, v in times.items()}
    for k in keys:
        print(f'{"(" + k + ")":9s} {LABELS[k]:46s} median {med[k]:8.2f} s')
    print('(a) and (b) by kind of job, median seconds:')
    print('\n'.join(split_lines(splits['a'], splits['b'], med['a'], med['b'])))
    print(
        f'(a) before its clock: {len(p.planned)} job folders and {len(p.copies)} mutated copies made, '
        f'median {statistics.median(prepared):.2f} s'
    )
    print(f'not in (a): {bare_suite.NOT_TIMED}')
    print('\n'.join(verdict_lines(problems, med)))
    tuned, plain = trivial(t, True, 2 * args.runs + 1), trivial(t, False, 2 * args.runs + 1)
    print(
        f'(t) a trivial job once warm, median {tuned:.3f} s  (target < {TRIVIAL_TARGET} s); '
        f'(t0) without JVM tuning {plain:.3f} s; t/t0 = {tuned / plain:.3f}'
    )
    print(f'load average at the end {load()}')
    return 1 if problems else 0


if __name__ == '__main__':
    raise SystemExit(main())
