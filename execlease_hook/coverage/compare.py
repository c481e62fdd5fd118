"""Did covered code change? Every entry of a manifest resolved against one source of file
contents (the index, the working tree or a commit) and compared with its recorded hash.

Both stages ask this here: the guard (index) and the suite / `execlease coverage` (working tree).
Exit mapping: any 'missing'/'ambiguous' -> 2, else any 'changed'/'never synced' -> 1, else 0.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from execlease_hook.git import repo as git
from execlease_hook.core.digest import sha256
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import CoveredEntry, Manifest
from execlease_hook.core.record import record

TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (record.py)
if TYPE_CHECKING:  # locate imports tree-sitter: only when an entry is actually located
    from typing import Protocol

    from execlease_hook.locate.entry import Located
else:
    Protocol = object

STATUSES = ('unchanged', 'changed', 'never synced', 'missing', 'ambiguous')


class Source(Protocol):
    description: str

    def read(self, path: str) -> bytes | None:
        """Content of `path` (relative to the repository root); None when absent."""


class _BlobSource:
    """Reads through `git cat-file --batch`, all prefetched paths in one call; `objects` (a
    blob id, `COMMIT:path`) may join that call too, read later with read_objects."""

    description = ''

    def __init__(self, root: Path, paths_hint: Iterable[str] = (), objects: Iterable[str] = ()) -> None:
        self.root = root
        self._cache: dict[str, bytes | None] = {}
        self._objects: dict[str, bytes | None] = {}
        self.prefetch(paths_hint, objects)

    def _spec(self, path: str) -> str:
        raise NotImplementedError

    def prefetch(self, paths: Iterable[str], objects: Iterable[str] = ()) -> None:
        wanted = [p for p in dict.fromkeys(paths) if p not in self._cache]
        others = [o for o in dict.fromkeys(objects) if o not in self._objects]
        if wanted or others:
            blobs = git.read_blobs(self.root, [*(self._spec(p) for p in wanted), *others])
            for p in wanted:
                self._cache[p] = blobs[self._spec(p)]
            self._objects.update((o, blobs[o]) for o in others)

    def read(self, path: str) -> bytes | None:
        self.prefetch((path,))
        return self._cache[path]

    def read_objects(self, specs: Sequence[str]) -> dict[str, bytes | None]:
        """Each object by git's name for it (None when absent), in one batch for those not read yet."""
        self.prefetch((), specs)
        return {spec: self._objects[spec] for spec in specs}


class IndexSource(_BlobSource):
    """What is staged: the content the next commit records (never the working tree)."""

    description = 'the index (staged)'

    def _spec(self, path: str) -> str:
        return f':{path}'


class CommitSource(_BlobSource):
    def __init__(self, root: Path, commit: str, paths_hint: Iterable[str] = (), objects: Iterable[str] = ()) -> None:
        self.commit = commit
        self.description = f'commit {commit[:12]}'
        super().__init__(root, paths_hint, objects)

    def _spec(self, path: str) -> str:
        return f'{self.commit}:{path}'


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


@record
class EntryStatus:
    entry: CoveredEntry
    status: str                 # one of STATUSES
    current: str | None         # current fingerprint (None if not located)
    located: Located | None
    problem: str | None         # for missing / ambiguous: why

    @property
    def where(self) -> str:
        if self.located is not None:
            return f'{self.entry.path}:{self.located.start_line}'
        return self.entry.path


# locate raises CannotRun for every failure; these phrases of its messages mean "more than one".
_AMBIGUOUS = re.compile(r'is defined more than once|is overloaded|occurs \d+ times')


def _failure_status(message: str) -> str:
    return 'ambiguous' if _AMBIGUOUS.search(message) else 'missing'


def entry_status(entry: CoveredEntry, source: Source) -> EntryStatus:
    from execlease_hook.fingerprint.scheme import SCHEME, fingerprint, matches, scheme_of
    from execlease_hook.locate.entry import locate

    content = source.read(entry.path)
    if content is None:
        return EntryStatus(entry, 'missing', None, None,
                           f'{entry.path}: no such file in {source.description}')
    try:
        located = locate(entry, content)
    except CannotRun as e:
        return EntryStatus(entry, _failure_status(str(e)), None, None, str(e))
    current = fingerprint(located)      # what a sync records (the current scheme)
    if entry.hash is None:
        status = 'never synced'
    elif current == entry.hash or (scheme_of(entry.hash) != SCHEME and matches(located, entry.hash)):
        # an older scheme's hash (ts1) is compared with the code's fingerprint in that scheme
        status = 'unchanged'
    else:
        status = 'changed'
    return EntryStatus(entry, status, current, located, None)


def compare(
        manifest: Manifest, source: Source, entries: Iterable[CoveredEntry] | None = None,
) -> list[EntryStatus]:
    chosen = list(manifest.coverage.entries if entries is None else entries)
    prefetch = getattr(source, 'prefetch', None)
    if prefetch is not None:
        prefetch(e.path for e in chosen)
    return [entry_status(e, source) for e in chosen]


def exit_code(statuses: Sequence[EntryStatus]) -> int:
    kinds = {s.status for s in statuses}
    if kinds & {'missing', 'ambiguous'}:
        return 2
    if kinds & {'changed', 'never synced'}:
        return 1
    return 0


def model_paths(manifest: Manifest) -> list[str]:
    """The spec and every cfg, relative to the repository root (POSIX)."""
    folder = manifest.folder.relative_to(manifest.root).as_posix()
    prefix = '' if folder == '.' else f'{folder}/'
    return [prefix + name for name in manifest.model_files]


def model_hash(manifest: Manifest, source: Source) -> str:
    """sha256 over the spec and every cfg: name, NUL, length, NUL, bytes, in model_files order."""
    digest = sha256()
    prefetch = getattr(source, 'prefetch', None)
    paths = model_paths(manifest)
    if prefetch is not None:
        prefetch(paths)
    for name, path in zip(manifest.model_files, paths):
        content = source.read(path)
        if content is None:
            raise CannotRun(
                f'{manifest.path}: the model file {path} is missing from {source.description}; '
                'restore it or remove it from the manifest',
            )
        digest.update(name.encode() + b'\0' + str(len(content)).encode() + b'\0' + content)
    return f'sha256:{digest.hexdigest()}'
