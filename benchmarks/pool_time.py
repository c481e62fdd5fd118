"""Wall time of `execlease verify` across several models: one pool against model by model.

In a throwaway repository of four single-check models (a grid of K**3 states each):
(a) `execlease verify --no-cache --jobs 2 --model DIR` for each model, one after another: a
    run that takes the models one at a time, whatever --jobs says;
(b) `execlease verify --no-cache --jobs 2`: every model's jobs in one pool.
Targets: b/a <= 0.65 on 2 cores (ideal 0.5: two jobs at once all the way).

    .venv/bin/python benchmarks/pool_time.py [--runs 3] [--k 40]
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

EXECLEASE = Path(sys.executable).parent / 'execlease'
MODELS = ('m1', 'm2', 'm3', 'm4')
SPEC = """---- MODULE Grid ----
EXTENDS Naturals
CONSTANT K
VARIABLES a, b, c
Init == a = 0 /\\ b = 0 /\\ c = 0
IncA == a' = (a + 1) % K /\\ UNCHANGED <<b, c>>
IncB == b' = (b + 1) % K /\\ UNCHANGED <<a, c>>
IncC == c' = (c + 1) % K /\\ UNCHANGED <<a, b>>
Next == IncA \\/ IncB \\/ IncC
TypeOK == a \\in 0..K /\\ b \\in 0..K /\\ c \\in 0..K
====
"""


def repo(k: int) -> Path:
    root = Path(tempfile.mkdtemp(prefix='execlease-pool-bench-'))
    subprocess.run(('git', 'init', '-q', '-b', 'main'), cwd=root, check=True)
    for name in MODELS:
        folder = root / 'verification' / name
        folder.mkdir(parents=True)
        (folder / 'Grid.tla').write_text(SPEC)
        (folder / 'Grid.cfg').write_text(
            f'CONSTANT K = {k}\nINIT Init\nNEXT Next\nINVARIANT TypeOK\n'
        )
        (folder / 'manifest.json').write_text(
            json.dumps(
                {
                    'version': 1,
                    'spec': 'Grid.tla',
                    'checks': [{'name': f'{name}-grid', 'config': 'Grid.cfg'}],
                    'coverage': {
                        'syncCommit': None,
                        'modelHash': None,
                        'entries': [],
                        'abstract': [
                            {'action': a, 'reason': 'a benchmark of TLC alone'}
                            for a in ('IncA', 'IncB', 'IncC')
                        ],
                    },
                }
            )
        )
    return root


def timed(root: Path, *argvs: tuple[str, ...]) -> float:
    started = time.monotonic()
    for argv in argvs:
        proc = subprocess.run(
            (str(EXECLEASE), 'verify', '--no-cache', '--jobs', '2', '-q', *argv),
            cwd=root,
            capture_output=True,
            text=True,
            env={**os.environ},
        )
        if proc.returncode != 0:
            sys.exit(
                f'verify {" ".join(argv)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}'
            )
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument(
        '--k', type=int, default=40, help='grid side: K**3 states per model (40: 64,000)'
    )
    args = parser.parse_args(argv)
    root = repo(args.k)
    try:
        timed(root, ())  # fetch or verify the tools once, outside the clock
        a, b = [], []
        for _ in range(args.runs):  # interleaved, so a load change hits both
            a.append(timed(root, *[('--model', f'verification/{n}') for n in MODELS]))
            b.append(timed(root, ()))
        ma, mb = statistics.median(a), statistics.median(b)
        print(
            f'{len(MODELS)} models of {args.k**3:,} states, {os.cpu_count()} CPUs, {args.runs} runs (medians):'
        )
        print(f'  (a) model by model   {ma:6.1f} s   ({", ".join(f"{x:.1f}" for x in a)})')
        print(f'  (b) one pool         {mb:6.1f} s   ({", ".join(f"{x:.1f}" for x in b)})')
        print(f'  b/a = {mb / ma:.2f}   (target <= 0.65 on 2 cores)')
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
