"""Temporary folders that say whose they are, so that the next run removes a killed run's.

A `finally` removes a folder on every path a process lives through (success, failure, an
exception, Ctrl-C); one killed outright (SIGKILL, the out-of-memory killer, a CI runner's hard
stop) runs none, and its folders stay. So a folder made here holds a mark, `.execlease-owner`,
which the process that made it keeps locked (`flock`) for as long as the folder exists: the
kernel lets go of the lock when that process ends, however it ends, and in any pid namespace.
A folder whose mark can be locked was left by a process that is gone; `sweep` removes it.

The mark is created under another name, locked, then renamed into place, so a sweeper never
finds the mark of a live folder unlocked; a folder without a mark (being made this instant, or
made by something else) is never touched. The mark also lists the processes started to work in
the folder (`started`): a child outlives a parent killed outright (javac, a TLC JVM in a session
of its own) and would write into the folder again after the sweep (javac recreates its output
folder), so `sweep` stops those first, each only if its command line still names the folder
(read from /proc: a pid reused by something else is left alone; without /proc none is stopped),
and any other process whose command line names it: one started by a process killed before it
could record it.

Without `flock` (Windows), folders are made, listed and removed all the same; `sweep` removes
none.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

MARK = '.execlease-owner'

# Process-wide by design: a mark's lock is held for as long as this process owns the folder (that
# is what tells a later run the folder is not a dead run's leftover), whoever made it.
_lock = threading.Lock()
_held: dict[str, int] = {}  # folder -> the descriptor that holds its mark's lock


def make(prefix: str, parent: Path | None = None) -> Path:
    """A new folder (in `parent`, else the system's temp folder), marked as this process's until
    `remove`; raises OSError as tempfile.mkdtemp does."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    if fcntl is None:
        return folder
    try:
        part = folder / f'{MARK}.new'
        fd = os.open(part, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a file nobody else has opened yet
            os.replace(part, folder / MARK)
        except BaseException:
            os.close(fd)
            raise
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    with _lock:
        _held[str(folder)] = fd
    return folder


@contextmanager
def folder(prefix: str, parent: Path | None = None) -> Iterator[Path]:
    """`make`, then `remove` on the way out, whichever way that is."""
    made = make(prefix, parent)
    try:
        yield made
    finally:
        remove(made)


def started(folder: Path, pid: int) -> None:
    """Process `pid` works in `folder`: a sweep after this process was killed stops it first."""
    with _lock:
        fd = _held.get(str(folder))
        if fd is not None:
            # A full disk: the folder is still removed, the child only not stopped.
            with contextlib.suppress(OSError):
                os.write(fd, f'{pid}\n'.encode())


def empty(folder: Path) -> None:
    """Remove what a folder `make` made holds, but its mark: the same folder, as new."""
    for entry in list(folder.iterdir()):
        if entry.name == MARK:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def remove(folder: Path) -> None:
    """Remove a folder `make` made, then let go of its mark (in that order: until it is gone, no
    sweeper may take it for a dead run's). A folder still there after the removal (a process not
    yet stopped wrote into it meanwhile, after its mark had gone) gets a mark again, unlocked: a
    later sweep removes it, where a folder without one would be kept for ever."""
    shutil.rmtree(folder, ignore_errors=True)
    with _lock:
        fd = _held.pop(str(folder), None)
    if fd is not None:
        os.close(fd)
        if os.path.isdir(folder):
            with contextlib.suppress(OSError):
                os.close(os.open(folder / MARK, os.O_CREAT | os.O_WRONLY, 0o644))


def sweep(parent: Path, prefix: str) -> list[Path]:
    """Remove the folders `make` made in `parent` with this prefix whose maker is gone, stopping
    what they had started first; returns those removed."""
    if fcntl is None:
        return []
    removed: list[Path] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return []
    uid = os.getuid()
    for entry in entries:
        try:
            if (
                not entry.name.startswith(prefix)
                or not entry.is_dir(follow_symlinks=False)
                or entry.stat(follow_symlinks=False).st_uid != uid
            ):
                continue
            fd = os.open(os.path.join(entry.path, MARK), os.O_RDONLY)
        except OSError:
            continue  # no mark: being made this instant, or not made here
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # its maker holds it: alive
            listed = {int(p) for p in os.read(fd, 1 << 16).split() if p.isdigit()}
            # and those its maker started but had not recorded yet when it was killed
            stop(sorted(listed | set(naming(entry.path))), entry.path)
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
        finally:
            os.close(fd)
    return removed


def _runs_in(pid: int, folder: str) -> bool:
    """The process `pid` exists and its command line names `folder` (so it is the child that
    was recorded, not another process that got its pid since); False when it cannot be read."""
    try:
        with open(f'/proc/{pid}/cmdline', 'rb') as f:
            return folder.encode() in f.read()
    except OSError:
        return False


def naming(text: str) -> list[int]:
    """The processes of this user but this one whose command line names `text`, read from /proc
    (none without it): a child that a process killed outright had started but not yet recorded
    (`started`) is found by a path it was given."""
    found: list[int] = []
    try:
        entries = list(os.scandir('/proc'))
    except OSError:
        return found
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if entry.stat().st_uid == os.getuid() and _runs_in(int(entry.name), text):
                found.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile
    return found


def stop(pids: list[int], folder: str) -> None:
    """Kill each of `pids` whose command line names `folder`, and wait until each is gone."""
    stopping = [p for p in pids if _runs_in(p, folder)]
    for pid in stopping:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5.0
    while stopping and time.monotonic() < deadline:
        # Gone once its command line is (a zombie's is empty): it writes nothing more.
        stopping = [p for p in stopping if _runs_in(p, folder)]
        time.sleep(0.02)
