"""benchmarks/language_cost.py's timed script, run once on each of its files without timing:
a renamed module or function breaks the benchmark here, not the next time someone times it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks import language_cost


@pytest.mark.parametrize('name', sorted(language_cost.FILES))
def test_the_timed_script_locates_and_fingerprints_the_file(name: str) -> None:
    path = language_cost.FILES[name]
    done = subprocess.run(
        (sys.executable, '-c', language_cost.SCRIPT, str(path)),
        cwd=language_cost.ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
