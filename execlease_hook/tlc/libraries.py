"""The TLA+ libraries a manifest names (`libraries`, docs/libraries.md), made ready for TLC.

It is kept whole: where a jar or folder comes from, its check and its place on the class path
are one order that every TLC job of a model depends on.

A jar (`url` + `sha256`) goes on TLC's class path after tla2tools.jar, from where
docs/libraries.md#where-a-jar-comes-from says; its sha256 is checked when a run first uses it. A
folder of .tla modules goes on TLC's library path (`-DTLA-Library=`) as a snapshot of its modules
taken once per process: the bytes the result cache's key covers and the spec scan read are the
bytes TLC parses, even if the folder is edited while a run is under way.
"""

from __future__ import annotations

import atexit
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core import paths, scratch
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.manifest.model import Library, Manifest
from execlease_hook.tlc import jar

PATH_ENV = 'EXECLEASE_LIBRARY_PATH'


@dataclass(frozen=True)
class LibraryJar:
    name: str  # as reports show it (the entry's "name", else the url's file name)
    sha256: str
    path: Path  # the verified file TLC's class path names
    source: str  # 'EXECLEASE_LIBRARY_PATH' | 'cache' | 'download'


@dataclass(frozen=True)
class LibraryFolder:
    folder: str  # as the manifest names it, relative to the repository root
    path: Path  # the snapshot TLC reads
    modules: tuple[tuple[str, bytes], ...]  # (file name, bytes), sorted by name


@dataclass(frozen=True)
class Libraries:
    """A model's libraries, ready: what a TlcJob needs to find them, and what its keys cover.
    With none, every method adds nothing (a job's argv and keys stay as they were)."""

    jars: tuple[LibraryJar, ...] = ()
    folders: tuple[LibraryFolder, ...] = ()

    def class_path(self, tools_jar: Path) -> str:
        """TLC's -cp: the TLA+ tools first, then each jar in the manifest's order."""
        return os.pathsep.join((str(tools_jar), *(str(j.path) for j in self.jars)))

    def jvm_flags(self) -> tuple[str, ...]:
        if not self.folders:
            return ()
        return ('-DTLA-Library=' + os.pathsep.join(str(f.path) for f in self.folders),)

    def key_parts(self) -> list[bytes]:
        """For a result cache key: each jar's sha256 and each folder's name and modules' bytes,
        in the order TLC searches them. Nothing at all when there are no libraries."""
        if not self.jars and not self.folders:
            return []
        parts = [b'libraries-1']
        for j in self.jars:
            parts += [b'jar', j.sha256.encode()]
        for f in self.folders:
            parts += [b'folder', f.folder.encode(), str(len(f.modules)).encode()]
            for name, text in f.modules:
                parts += [name.encode(), text]
        return parts

    def modules(self) -> list[tuple[str, bytes]]:
        """Each folder module as (its path in the repository, bytes), read or not."""
        return [(f'{f.folder}/{name}', text) for f in self.folders for name, text in f.modules]

    def names(self) -> list[str]:
        return [*(j.name for j in self.jars), *(f.folder for f in self.folders)]


NO_LIBRARIES = Libraries()
# The process's snapshots of library folders by (folder, its modules), a registry by design: a
# folder read twice with the same modules is the same snapshot (warm JVMs keyed by its path stay
# usable), and every one is removed when the process exits, whichever run made it.
_lock = threading.Lock()
_snapshots: dict[tuple[str, tuple[tuple[str, bytes], ...]], Path] = {}


def of(m: Manifest, settings: Settings, cache_root: Path | None = None) -> Libraries:
    """The manifest's libraries, ready for TLC, read now: a folder edited since the last call is
    a new snapshot. `cache_root`: the repository whose cache holds the jars (default the model's;
    for a commit checked out alone, `verify --rev`, the repository's). Raises CannotRun (exit 2)
    naming the manifest, the entry and what to do."""
    if not m.libraries:
        return NO_LIBRARIES
    ready = [
        one(m.root, lib, f'{m.path}: libraries[{i}] ({lib.label})', settings, cache_root=cache_root)
        for i, lib in enumerate(m.libraries)
    ]
    return Libraries(
        tuple(j for r in ready for j in r.jars), tuple(f for r in ready for f in r.folders)
    )


def one(
    root: Path,
    lib: Library,
    where: str,
    settings: Settings,
    pin: str = 'the manifest pins',
    cache_root: Path | None = None,
) -> Libraries:
    """One library entry made ready as `of` makes each (a jar fetched and verified, a folder
    read); `where` begins each message (the entry, or the option that names it), `pin` says where
    a jar's sha256 comes from (the manifest, or the option that gives it)."""
    if lib.folder is not None:
        return Libraries(folders=(_folder(root, lib.folder, where),))
    return Libraries(jars=(_jar(cache_root or root, lib, where, pin, settings),))


def _folder(root: Path, text: str, where: str) -> LibraryFolder:
    folder = root / text
    if not folder.is_dir():
        raise CannotRun(
            f'{where}: {folder} is not a folder; create it, or fix "folder" (a path from '
            'the repository root)'
        )
    modules = paths.tla_modules(
        root,
        folder,
        lambda module, e: f'{where}: cannot read {module}: {e.strerror}; restore it or remove it',
        f'{where}: ',
    )
    if not modules:
        raise CannotRun(
            f'{where}: {folder} holds no .tla module; TLC reads only the modules directly '
            'in the folder, not in its subfolders'
        )
    snapshot = (str(folder), modules)
    with _lock:
        known = _snapshots.get(snapshot)
    if known is not None and known.is_dir():
        return LibraryFolder(text, known, modules)
    try:
        target = scratch.make('execlease-lib-')
        for name, data in modules:
            (target / name).write_bytes(data)
    except OSError as e:
        raise CannotRun(
            f'cannot write a copy of the library folder {folder} to the temp folder: '
            f'{e.strerror or e}; free some disk space or set TMPDIR'
        ) from None
    with _lock:
        _snapshots[snapshot] = target
    return LibraryFolder(text, target, modules)


def _remove_snapshots() -> None:
    with _lock:
        folders = list(_snapshots.values())
        _snapshots.clear()
    for folder in folders:
        scratch.remove(folder)


atexit.register(_remove_snapshots)


def file_name(url: str) -> str:
    return url.rstrip('/').rsplit('/', 1)[-1].partition('?')[0] or 'library.jar'


def _mismatch(where: str, file: str, digest: str, pinned: str, pin: str) -> CannotRun:
    trust = (
        'put its sha256 in the manifest'
        if pin == 'the manifest pins'
        else 'give its sha256 instead'
    )
    return CannotRun(
        f'{where}: {file} has sha256 {digest}, but {pin} {pinned}. A jar is trusted by its sha256 '
        'alone, so this one is not used. If the URL names a rolling release (a tag whose jar '
        'upstream replaces under the same URL), pin a versioned release or a mirror of your own; '
        f'if you trust this jar, {trust}'
    )


def _jar(root: Path, lib: Library, where: str, pin: str, settings: Settings) -> LibraryJar:
    url, pinned, text = lib.url, lib.sha256, settings.library_path
    assert url is not None and pinned is not None
    # The jar EXECLEASE_LIBRARY_PATH offers first: a jar named there, or in a folder named there,
    # the url's file name or <sha256>.jar, whose sha256 is the pinned one. A file of the url's
    # name with another sha256 is refused, naming both.
    for entry in filter(None, (text or '').split(os.pathsep)):
        place = Path(entry).expanduser()
        if place.is_dir():
            candidates = [place / file_name(url), place / f'{pinned}.jar']
        elif place.is_file():
            candidates = [place]
        else:
            raise CannotRun(
                f'{PATH_ENV}={text}: {entry} is no file or folder; name jars, or folders '
                'holding them, separated by ' + repr(os.pathsep)
            )
        for candidate in filter(Path.is_file, candidates):
            digest = jar.file_sha256(candidate)
            if digest == pinned:
                return LibraryJar(lib.label, pinned, candidate.resolve(), PATH_ENV)
            if candidate.name == file_name(url):
                raise _mismatch(where, f'{candidate} (from {PATH_ENV})', digest, pinned, pin)
    folder = jar.cache_dir(root) / 'lib'
    cached = folder / f'{pinned}.jar'
    if jar.valid_copy(cached, pinned):  # no lock needed: only verified files are placed
        return LibraryJar(lib.label, pinned, cached, 'cache')
    if settings.tla_offline:
        raise CannotRun(
            f'{where}: the jar is not in the cache {folder} and downloads are off '
            f'(EXECLEASE_TLA_OFFLINE=1); set {PATH_ENV} to a folder holding {file_name(url)} '
            f'(sha256 {pinned}), or allow the download of {url}'
        )
    try:
        fetched = jar.fetch_pinned(
            url,
            pinned,
            cached,
            bound(url, settings),
            refused=lambda digest: _mismatch(where, f'the download of {url}', digest, pinned, pin),
            failed=lambda e: CannotRun(
                f'{where}: {e}; nothing was kept. Check the url, or set {PATH_ENV} '
                f'to a folder holding {file_name(url)} (sha256 {pinned})'
            ),
            settings=settings,
        )
    except jar.CacheUnwritable as e:
        raise CannotRun(
            f'{where}: cannot write the library cache {e}; make {folder} writable, or set '
            f'{PATH_ENV} to a folder holding {file_name(url)}'
        ) from e
    except OSError as e:
        raise CannotRun(
            f'{where}: cannot write the library cache {folder}: {e.strerror or e}; make it '
            f'writable, free some disk space, or set {PATH_ENV}'
        ) from e
    return LibraryJar(lib.label, pinned, cached, 'download' if fetched else 'cache')


def bound(url: str, settings: Settings) -> jar.Bound:
    """How large a library jar from `url` may be (EXECLEASE_LIBRARY_MAX_MB)."""
    limit = settings.library_max_mb
    return jar.Bound(limit << 20, f'EXECLEASE_LIBRARY_MAX_MB={limit} allows', file_name(url))
