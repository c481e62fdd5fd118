"""Sources of file contents for the checks: the index (the guard), a commit (--range), the working
tree (verify); blobs read through one `git cat-file --batch` per batch of paths."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from execlease_hook.git import repo


class Source(Protocol):
    description: str

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read these paths in one batch where the source can (a `git cat-file`)."""

    def read(self, path: str) -> bytes | None:
        """Content of `path` (relative to the repository root); None when absent."""


class _BlobSource:
    """Reads through `git cat-file --batch`, all prefetched paths in one call (a path asked for
    as `prefix` and the path); `objects` (a blob id, `COMMIT:path`) may join that call too, read
    later with read_objects."""

    description = ''
    prefix = ''

    def __init__(
        self, root: Path, paths_hint: Iterable[str] = (), objects: Iterable[str] = ()
    ) -> None:
        self.root = root
        self._blobs: dict[str, bytes | None] = {}  # by the name git reads it by
        self.prefetch(paths_hint, objects)

    def prefetch(self, paths: Iterable[str], objects: Iterable[str] = ()) -> None:
        specs = dict.fromkeys((*(self.prefix + p for p in paths), *objects))
        wanted = [s for s in specs if s not in self._blobs]
        if wanted:
            self._blobs.update(repo.read_blobs(self.root, wanted))

    def read(self, path: str) -> bytes | None:
        self.prefetch((path,))
        return self._blobs[self.prefix + path]

    def read_objects(self, specs: Sequence[str]) -> dict[str, bytes | None]:
        """Each object by git's name for it (None when absent), in one batch for those not read yet."""
        self.prefetch((), specs)
        return {spec: self._blobs[spec] for spec in specs}


class IndexSource(_BlobSource):
    """What is staged: the content the next commit records (never the working tree)."""

    description = 'the index (staged)'
    prefix = ':'


class CommitSource(_BlobSource):
    def __init__(self, root: Path, commit: str, paths_hint: Iterable[str] = ()) -> None:
        self.description = f'commit {commit[:12]}'
        self.prefix = f'{commit}:'
        super().__init__(root, paths_hint)


class WorktreeSource:
    description = 'the working tree'

    def __init__(self, root: Path) -> None:
        self.root = root

    def prefetch(self, paths: Iterable[str]) -> None:
        pass

    def read(self, path: str) -> bytes | None:
        try:
            return (self.root / path).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
