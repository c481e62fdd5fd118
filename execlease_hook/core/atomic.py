"""Atomic file writes: a reader sees the old file or the new one, never a part
(docs/architecture.md#the-reliability-contract)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def write_text_atomic(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync, rename: a reader sees the old or the new file."""
    with replacing(path) as tmp:
        with open(tmp, 'w', encoding='utf-8', newline='\n') as f:
            f.write(text)


@contextmanager
def replacing(path: Path, mode: int | None = None, suffix: str = '.tmp') -> Iterator[Path]:
    """A temp file beside `path` for the block to fill (bytes, a copy, a stream); placed on
    `path` (`place`) when the block ends, deleted if it raises."""
    fd, name = tempfile.mkstemp(prefix=f'.{path.name}.', suffix=suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        place(tmp, path, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def place(tmp: Path, path: Path, mode: int | None = None) -> None:
    """Rename the finished `tmp` (in path's folder) onto `path` once it is on disk, with `mode`,
    else the old file's mode, else the usual umask'd 0666 (mkstemp makes the file 0600)."""
    with open(tmp, 'rb') as f:
        os.fsync(f.fileno())
    if mode is None:
        if path.exists():
            mode = path.stat().st_mode & 0o777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    os.chmod(tmp, mode)
    os.replace(tmp, path)
