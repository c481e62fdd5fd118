"""What a staged file of each language costs the guard: one process that imports the locator,
loads the language's grammar, parses a real file and fingerprints every definition it names
(what the guard does for a covered file, at most). Prints medians and ratios; asserts nothing.

Medians over --runs runs each, measured in this one run:
  floor     `python -c pass` with the same interpreter
  python    tests/fixtures/formatters/lease.py (the language the guard's targets are set for)
  each new  the real files under tests/fixtures/real/ (C#, Kotlin, Scala, Swift, C, C++, Zig)
Ratios are against `python`: a language whose file costs about what a Python file costs keeps
the guard's latency targets (benchmarks/guard_latency.py) where they are.
Targets: each language <= 1.5 x python.

    .venv/bin/python benchmarks/language_cost.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).parent.parent
TARGET = 1.5
FILES = {
    'python': ROOT / 'tests' / 'fixtures' / 'formatters' / 'lease.py',
    'csharp': ROOT / 'tests' / 'fixtures' / 'real' / 'CircuitStateController.cs',
    'kotlin': ROOT / 'tests' / 'fixtures' / 'real' / 'Throttler.kt',
    'scala': ROOT / 'tests' / 'fixtures' / 'real' / 'TempOps.scala',
    'swift': ROOT / 'tests' / 'fixtures' / 'real' / 'NIOScheduledCallback.swift',
    'c': ROOT / 'tests' / 'fixtures' / 'real' / 'ae.c',
    'cpp': ROOT / 'tests' / 'fixtures' / 'real' / 'Time.cc',
    'cpp-large': ROOT
    / 'tests'
    / 'fixtures'
    / 'real'
    / 'RaftConsensus.cc',  # 107 KB, 122 definitions
    'zig': ROOT / 'tests' / 'fixtures' / 'real' / 'common.zig',
}
SCRIPT = """\
import sys
from pathlib import Path
from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import find_functions
from execlease_hook.locate.source import language_for
from execlease_hook.locate.entry import every_definition
path = sys.argv[1]
source = Path(path).read_bytes()
for definition in every_definition(language_for(path), source):
    for located in find_functions(path, source, definition.qualname):
        fingerprint(located)
"""


def median_ms(argv: Sequence[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, cwd=ROOT, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=15)
    args = parser.parse_args(argv)
    floor = median_ms((sys.executable, '-c', 'pass'), args.runs)
    print(f'floor (python -c pass): {floor:.1f} ms')
    results = {
        name: median_ms((sys.executable, '-c', SCRIPT, str(path)), args.runs)
        for name, path in FILES.items()
    }
    base = results['python']
    for name, ms in results.items():
        size = FILES[name].stat().st_size / 1000
        print(
            f'{name:9} {FILES[name].name:30} {size:5.1f} KB  {ms:7.1f} ms  '
            f'x{ms / floor:4.2f} floor  x{ms / base:4.2f} python (target <= {TARGET})'
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
