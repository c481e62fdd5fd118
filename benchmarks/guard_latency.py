"""Latency of `execlease guard`, the hook that runs on every commit. Prints medians and ratios;
asserts nothing.

A scratch repository of 2,000 files, a manifest of 10 entries in one ~3.5 KB Python file and one
~60 KB TypeScript file. Medians over --runs runs each, measured in this one run:
  (a) the floor: `python -c pass` with the same interpreter
  (b) `execlease guard` with no covered file staged (one unrelated file staged)
  (c) one covered 3.5 KB file staged and changed
  (d) both covered files staged and changed
  (e) as (b), once the manifest has a `watch` rule over src/** (no watched file staged)
  (f) a new 3.5 KB file under src/ staged (the watch rule reads and judges it)
Targets: b/a <= 2.0, c/a <= 3.0, d/a <= 4.5 (fingerprints in scheme ts2, the one syncs record); e/b about 1 (the rule costs nothing until it matches).

    .venv/bin/python benchmarks/guard_latency.py [--runs 25] [--execlease PATH]
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

TARGETS = {'b': 2.0, 'c': 3.0, 'd': 4.5}


PYCACHE: str | None = None  # set in main: bytecode caches for the timed processes


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith('GIT_')}
    # An installed hook has compiled bytecode (pip writes it); a shell with
    # PYTHONDONTWRITEBYTECODE=1 would time the compiler instead. Caches go to a temp folder.
    out.pop('PYTHONDONTWRITEBYTECODE', None)
    if PYCACHE is not None:
        out['PYTHONPYCACHEPREFIX'] = PYCACHE
    out.update(
        {
            'GIT_AUTHOR_NAME': 'bench',
            'GIT_AUTHOR_EMAIL': 'bench@example.com',
            'GIT_COMMITTER_NAME': 'bench',
            'GIT_COMMITTER_EMAIL': 'bench@example.com',
            'GIT_CONFIG_GLOBAL': os.devnull,
            'GIT_CONFIG_NOSYSTEM': '1',
        }
    )
    return out


def git(root: Path, *args: str) -> None:
    subprocess.run(('git', *args), cwd=root, env=env(), check=True, capture_output=True)


def python_file() -> str:
    parts = ['import sqlite3\n\n']
    for i in range(5):
        parts.append(
            f'\n\ndef step_{i}(db, run_id, now):\n'
            f'    """Transaction {i} of the lease protocol."""\n'
            f'    row = db.execute(\n'
            f"        'SELECT owner, generation, expires_at FROM lease WHERE id = ?', (run_id,),\n"
            f'    ).fetchone()\n'
            f'    if row is None or row[2] < now:\n'
            f'        return None\n'
            f'    cur = db.execute(\n'
            f"        'UPDATE lease SET generation = generation + {i + 1} WHERE id = ? AND owner = ?',\n"
            f'        (run_id, row[0]),\n'
            f'    )\n'
            f'    for attempt in range(3):\n'
            f'        if cur.rowcount == 1:\n'
            f'            return attempt + {i}\n'
            f'    return cur.rowcount\n',
        )
    parts.append('\n\ndef helper():\n    return 0\n' * 1)
    text = ''.join(parts)
    while len(text) < 3500:
        text += f'\n\nCONSTANT_{len(text)} = {len(text)!r}\n'
    return text


def typescript_file() -> str:
    parts = ['export interface Lease { owner: string; generation: number; expiresAt: number }\n']
    i = 0
    while sum(map(len, parts)) < 60_000:
        parts.append(
            f'\nexport function step{i}(lease: Lease, runId: string, now: number): Lease | null {{\n'
            f'  // transition {i}\n'
            f'  if (lease.expiresAt < now && lease.owner !== runId) {{\n'
            f'    return {{ ...lease, owner: runId, generation: lease.generation + {i % 7 + 1} }};\n'
            f'  }}\n'
            f'  const values = [lease.generation, now, {i}].map((v) => v * 2).filter((v) => v > 0);\n'
            f'  return values.length > 2 ? lease : null;\n'
            f'}}\n',
        )
        i += 1
    return ''.join(parts)


def build(root: Path) -> None:
    git(root, 'init', '-q', '-b', 'main')
    for i in range(1995):  # + 2 covered files + spec, cfg, manifest = 2,000
        f = root / f'pkg{i // 100:02d}' / f'mod{i:04d}.py'
        f.parent.mkdir(exist_ok=True)
        f.write_text(f'def f{i}(x):\n    return x + {i}\n')
    (root / 'src').mkdir()
    (root / 'src' / 'lease.py').write_text(python_file())
    (root / 'src' / 'lease.ts').write_text(typescript_file())
    model = root / 'verification' / 'bench'
    model.mkdir(parents=True)
    actions = [f'Py{i}' for i in range(5)] + [f'Ts{i}' for i in range(5)]
    (model / 'Bench.tla').write_text(
        '---- MODULE Bench ----\nVARIABLE x\nInit == x = 0\n'
        + ''.join(f"{a} == x' = x\n" for a in actions)
        + 'Next == '
        + ' \\/ '.join(actions)
        + '\n====\n'
    )
    (model / 'Bench.cfg').write_text('INIT Init\nNEXT Next\n')
    entries = [
        {'id': f'py-{i}', 'path': 'src/lease.py', 'function': f'step_{i}', 'action': f'Py{i}'}
        for i in range(5)
    ] + [
        {'id': f'ts-{i}', 'path': 'src/lease.ts', 'function': f'step{i * 40}', 'action': f'Ts{i}'}
        for i in range(5)
    ]
    (model / 'manifest.json').write_text(
        json.dumps(
            {
                'version': 1,
                'spec': 'Bench.tla',
                'checks': [{'name': 'main', 'config': 'Bench.cfg'}],
                'coverage': {'syncCommit': None, 'modelHash': None, 'entries': entries},
            },
            indent=2,
        )
        + '\n'
    )
    git(root, 'add', '.')
    git(root, 'commit', '-q', '-m', 'scratch')
    sync(root, model / 'manifest.json')
    git(root, 'add', '.')
    git(root, 'commit', '-q', '-m', 'sync')
    assert (
        len(
            subprocess.run(
                ('git', 'ls-files'), cwd=root, capture_output=True, text=True
            ).stdout.splitlines()
        )
        == 2000
    )


def sync(root: Path, path: Path) -> None:
    from dataclasses import replace

    from execlease_hook.core.settings import Settings
    from execlease_hook.coverage import compare as coverage
    from execlease_hook.git import blobs
    from execlease_hook.git import repo as egit
    from execlease_hook.manifest import read as manifest_read
    from execlease_hook.manifest import write as manifest_write
    from execlease_hook.spec import record as model_record

    m = manifest_read.load(path, root)
    source = blobs.WorktreeSource(root)
    statuses = coverage.compare(m, source, None, Settings().max_covered_bytes)
    assert all(s.current for s in statuses), [s.problem for s in statuses]
    m = replace(
        m,
        coverage=replace(
            m.coverage,
            entries=tuple(replace(s.entry, hash=s.current) for s in statuses),
            sync_commit=egit.head(root),
            model_hash=model_record.record(model_record.read(m, source)),
        ),
    )
    manifest_write.write(path, m)


def median_ms(argv: Sequence[str], cwd: Path, runs: int, expect: int) -> float:
    times = []
    e = env()
    for _ in range(2):  # warm-up: bytecode caches, page cache
        subprocess.run(argv, cwd=cwd, env=e, capture_output=True)
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, env=e, capture_output=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != expect:
            raise SystemExit(
                f'{argv} exited {proc.returncode}, expected {expect}:\n'
                f'{proc.stdout.decode()}{proc.stderr.decode()}'
            )
    return statistics.median(times) * 1000


def parse_args(
    doc: str, argv: Sequence[str] | None, instructions: bool = False
) -> argparse.Namespace:
    """--runs and --execlease, the options of every benchmark that times the console script
    (and --instructions where it can count instead)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument('--runs', type=int, default=25)
    parser.add_argument(
        '--execlease',
        default=str(Path(sys.executable).parent / 'execlease'),
        help='the console script to time (default: beside this interpreter)',
    )
    if instructions:
        parser.add_argument(
            '--instructions',
            action='store_true',
            help="count each run's instructions, every process's, with valgrind's callgrind "
            'instead of timing it: a figure the load of the machine does not move',
        )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(__doc__, argv)
    global PYCACHE
    with tempfile.TemporaryDirectory(prefix='guard-latency-') as tmp:
        root = Path(tmp) / 'repo'
        root.mkdir()
        PYCACHE = str(Path(tmp) / 'pycache')
        build(root)
        py, ts = root / 'src' / 'lease.py', root / 'src' / 'lease.ts'
        guard = (args.execlease, 'guard')
        results: dict[str, float] = {}
        results['a'] = median_ms((sys.executable, '-c', 'pass'), root, args.runs, 0)

        (root / 'pkg00' / 'mod0000.py').write_text('def f0(x):\n    return x - 1\n')
        git(root, 'add', 'pkg00/mod0000.py')
        results['b'] = median_ms((*guard, 'pkg00/mod0000.py'), root, args.runs, 0)

        py.write_text(py.read_text().replace('attempt + 0', 'attempt - 0'))
        git(root, 'add', 'src/lease.py')
        results['c'] = median_ms((*guard, 'pkg00/mod0000.py', 'src/lease.py'), root, args.runs, 1)

        ts.write_text(ts.read_text().replace('generation + 1 };', 'generation + 2 };', 1))
        git(root, 'add', 'src/lease.ts')
        results['d'] = median_ms(
            (*guard, 'pkg00/mod0000.py', 'src/lease.py', 'src/lease.ts'), root, args.runs, 1
        )
        git(root, 'reset', '-q')
        git(root, 'checkout', '--', '.')
        manifest_path = root / 'verification' / 'bench' / 'manifest.json'
        data = json.loads(manifest_path.read_text())
        data['coverage']['watch'] = [{'paths': ['src/**'], 'strings': r'\bUPDATE\s+lease\b'}]
        manifest_path.write_text(json.dumps(data, indent=2) + '\n')
        git(root, 'commit', '-q', '-am', 'watch src/')
        git(root, 'add', 'pkg00/mod0000.py')
        results['e'] = median_ms((*guard, 'pkg00/mod0000.py'), root, args.runs, 0)
        (root / 'src' / 'admin.py').write_text(
            python_file().replace('def step_', 'def admin_step_')
        )
        git(root, 'add', 'src/admin.py')
        results['f'] = median_ms((*guard, 'src/admin.py'), root, args.runs, 1)
        # Not a target: what the console-script launcher adds over `python -m`.
        launcher = median_ms((args.execlease, '--help'), root, args.runs, 0)
        module = median_ms((sys.executable, '-m', 'execlease_hook', '--help'), root, args.runs, 0)

    labels = {
        'a': 'floor: python -c pass',
        'b': 'guard, no covered file staged',
        'c': 'guard, covered 3.5 KB .py staged+changed',
        'd': 'guard, .py and 60 KB .ts staged+changed',
        'e': 'guard, watch rule, no watched file staged',
        'f': 'guard, watch rule, new 3.5 KB .py staged',
    }
    print(f'guard latency, medians of {args.runs} runs ({sys.executable}, {args.execlease})')
    for key, label in labels.items():
        ratio = (
            ''
            if key == 'a'
            else f'   {key}/a = {results[key] / results["a"]:.2f}'
            + (f'  (target <= {TARGETS[key]})' if key in TARGETS else '')
        )
        if key == 'e':
            ratio += f'   e/b = {results["e"] / results["b"]:.2f}'
        print(f'  ({key}) {label:<45} {results[key]:7.1f} ms{ratio}')
    print(
        f'  launcher: `execlease --help` {launcher:.1f} ms vs '
        f'`python -m execlease_hook --help` {module:.1f} ms'
    )
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
