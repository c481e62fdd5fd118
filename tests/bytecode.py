"""Compiled modules kept for the test run, outside the checkout, on a machine that keeps none.

A machine that sets PYTHONDONTWRITEBYTECODE (CI images often do; this project's CI machine does)
makes every Python process the suite starts compile what it imports from source, every time:
each xdist worker, each `execlease` command a test runs, each pre-commit hook and example worker.
The package alone costs 0.36 CPU-s to import from source against 0.19 from compiled files.
Measured on 3,976 tests with nothing beside them, one run after the other: 299 s and 569 CPU-s
without this, 288 s and 542 CPU-s with it. So the run's processes write compiled files and read
them back under one folder of the run's own (PYTHONPYCACHEPREFIX, which Python and pytest's
assertion rewriting both honour), removed when the run ends: nothing is written beside the
sources, in the checkout or in a test's copy of a tree.

On a machine that writes compiled files as Python does by default, nothing changes. The process
that starts the run keeps its own setting; the processes it starts (the workers first) read it
from the environment.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

FLAG = 'PYTHONDONTWRITEBYTECODE'
PREFIX = 'PYTHONPYCACHEPREFIX'


def keep_for_the_run() -> str | None:
    """The folder the run's processes compile into, made here, or None: the machine writes
    compiled files itself, a prefix is already chosen, or this is a worker (its parent chose)."""
    if not os.environ.get(FLAG) or os.environ.get(PREFIX) or os.environ.get('PYTEST_XDIST_WORKER'):
        return None
    folder = tempfile.mkdtemp(prefix='pytest-bytecode-')
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    del os.environ[FLAG]
    os.environ[PREFIX] = folder
    return folder


FOLDER = keep_for_the_run()
