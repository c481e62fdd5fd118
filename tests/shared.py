"""Folders built once for the whole test run, shared by pytest-xdist's workers.

A session fixture is built once per worker process: with two workers, a venv installed for the
README's install line, or a hook repository pre-commit installs an environment for, was built
twice, each time competing with the other worker's tests for the same cores. `folder` builds it
once: the first worker to ask builds it holding a lock; the others wait on the lock and then
find it built. A build that fails leaves nothing behind, so the next asks again and fails the
same way, named.
"""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

try:
    import fcntl
except ImportError:  # Windows: no flock; each worker builds its own
    fcntl = None  # type: ignore[assignment]

T = TypeVar('T')


def folder(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder `name`, made by `build(folder)` once for the test run (every worker's)."""
    root = factory.getbasetemp()
    if os.environ.get('PYTEST_XDIST_WORKER') and fcntl is not None:
        root = root.parent  # the run's folder, the parent of each worker's
    target, done = root / name, root / f'{name}.built'
    with open(root / f'{name}.lock', 'w') as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            try:
                build(target)
            except BaseException:
                shutil.rmtree(target, ignore_errors=True)
                raise
            done.touch()
    return target


def value(factory: pytest.TempPathFactory, name: str, compute: Callable[[], T]) -> T:
    """What `compute()` returns, computed once for the test run and read back (pickled) by every
    other worker that asks: for a module fixture that runs TLC. `--dist worksteal` hands a
    module's tests to both workers, and a module fixture is built on each worker that runs one
    of them: the same verify run, twice. What `compute` leaves on disk (a repository it ran in)
    stays where it made it, one copy that the tests of every worker read."""

    def build(folder: Path) -> None:
        (folder / 'value.pickle').write_bytes(pickle.dumps(compute()))

    return pickle.loads((folder(factory, name, build) / 'value.pickle').read_bytes())
