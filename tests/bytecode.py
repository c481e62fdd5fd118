"""Compiled modules kept for the test run, outside the checkout, on a machine that keeps none.

A machine that sets PYTHONDONTWRITEBYTECODE (CI images often do; this project's CI machine does)
makes every Python process the suite starts compile what it imports from source, every time:
each xdist worker, each `execlease` command a test runs, each pre-commit hook and example worker.
The package alone costs 0.36 CPU-s to import from source against 0.19 from compiled files.
Measured on 3,976 tests with nothing beside them, one run after the other: 299 s and 569 CPU-s
without this, 288 s and 542 CPU-s with it. So the run's processes write compiled files and read
them back under one folder (PYTHONPYCACHEPREFIX, which Python and pytest's assertion rewriting
both honour): nothing is written beside the sources, in the checkout or in a test's copy of a
tree.

The folder is kept between runs, as Python keeps `__pycache__`: a compiled file is used only
while its source has the size and time it was compiled from. So a contributor's next run reads
the package and the rewritten test modules compiled, where each of its workers compiled them
all again. Measured on the fast tier (`-m "not tlc and not e2e"`, 3,458 tests, alone, one run
after the other): 53.4 s and 102.3 CPU-s, then 49.3 s and 92.8 CPU-s, with a folder made for
each run; 45.1 s and 86.4 CPU-s for a second run with the kept folder. It is the user's own
(`<temp>/execlease-test-bytecode-<uid>`, mode 0700): a folder there that another user owns or
can write is not used, since the run would execute what it holds; the run then makes one of
its own and removes it at exit.

On a machine that writes compiled files as Python does by default, nothing changes. The process
that starts the run keeps its own setting; the processes it starts (the workers first) read it
from the environment.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
from pathlib import Path

FLAG = 'PYTHONDONTWRITEBYTECODE'
PREFIX = 'PYTHONPYCACHEPREFIX'


def keep_for_the_run() -> str | None:
    """The folder the run's processes compile into, or None: the machine writes compiled
    files itself, a prefix is already chosen, or this is a worker (its parent chose)."""
    if not os.environ.get(FLAG) or os.environ.get(PREFIX) or os.environ.get('PYTEST_XDIST_WORKER'):
        return None
    folder = str(kept_folder(Path(tempfile.gettempdir())))
    del os.environ[FLAG]
    os.environ[PREFIX] = folder
    return folder


def kept_folder(base: Path) -> Path:
    """`base/execlease-test-bytecode-<uid>`, made if missing, when this user alone can write
    it; else a folder of this run's own, removed at exit."""
    folder = base / f'execlease-test-bytecode-{os.getuid()}'
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        found = folder.lstat()  # a symbolic link is not the folder made here
        if stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid():
            if not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return folder
    except OSError:
        pass
    own = tempfile.mkdtemp(prefix='pytest-bytecode-', dir=base)
    atexit.register(shutil.rmtree, own, ignore_errors=True)
    return Path(own)


FOLDER = keep_for_the_run()
