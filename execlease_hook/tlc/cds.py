"""The class-data archive of tla2tools.jar (docs/architecture.md#the-jvm-of-a-tlc-job).

A dynamic AppCDS archive, built by the first TLC job that finds none on that job's own run and
used by every later job; trusted only while its sha256 is the one recorded when it was built. One
job builds at a time (an exclusive `.building` file naming its process).

The archive only saves time, so it never costs a verdict. A build is not tried where less than
MIN_FREE is free (the archive is 5-15 MB; a cache must not take the last of a disk). A build
whose JVM could not write the archive all the same (a file-size limit, a quota, a disk filled
meanwhile) ends TLC's finished run with the JVM's own exit 1 (`lost`): tlc/job.py then judges
the run by TLC's output, or runs the job again without the archive; no later job of this
process tries to build it. Each of these says so once (housekeeping.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core import atomic, housekeeping, procs, scratch
from execlease_hook.core.settings import Settings, user_cache
from execlease_hook.tlc.jar import file_sha256
from execlease_hook.tlc.java import java_identity

MIN_JAVA = 13  # the first Java with -XX:ArchiveClassesAtExit
STALE_BUILD = 3600.0  # a .building file older than this was left by a killed run
MIN_FREE = 64 << 20  # bytes that must be free in the archive's folder before a build
# The JVM prints its class-data warnings to stdout, which is TLC's output: keep them out of it.
QUIET = ('-Xlog:cds=off', '-Xlog:cds+dynamic=off')


@dataclass(frozen=True)
class Plan:
    flags: tuple[str, ...]
    # Called with the JVM's exit code once it has ended; commits an archive this run built.
    finish: Callable[[int | None], None]
    building: bool = False
    archive: Path | None = None  # the archive this plan builds (building only)


NO_ARCHIVE = Plan((), lambda code: None)

# Archives whose build failed to write in this process: not tried again until the next run.
_unwritable: set[str] = set()


def archive_folder(jar: Path, settings: Settings) -> Path:
    """EXECLEASE_JVM_CACHE; else beside the jar in execlease's own jar cache (`.tmp/tla/`,
    tlc/jar.cache_dir) when writable; else (a jar named by EXECLEASE_TLA_JAR, a read-only cache)
    the user's cache."""
    if settings.jvm_cache:
        return Path(settings.jvm_cache)
    beside = jar.resolve().parent
    if beside.name == 'tla' and beside.parent.name == '.tmp' and os.access(beside, os.W_OK):
        return beside / 'jvm'
    return user_cache() / 'jvm'


def archive_path(java: Path, jar: Path, settings: Settings) -> Path | None:
    """Where the archive for this Java and jar lives, or None when this Java cannot build one."""
    identity = java_identity(java)
    if identity is None or identity[0] < MIN_JAVA:
        return None
    jar = jar.resolve()
    java_file = Path(shutil.which(str(java)) or java).resolve()
    parts = ('execlease-cds-1', str(jar), file_sha256(jar), str(java_file), identity[1])
    digest = hashlib.sha256(b''.join(part.encode() + b'\0' for part in parts)).hexdigest()
    return archive_folder(jar, settings) / f'tla2tools-{digest[:32]}.jsa'


def _sidecar(archive: Path) -> Path:
    return archive.with_name(archive.name + '.sha256')


def trusted(archive: Path) -> bool:
    """The archive exists and is byte for byte the one that was built; else it is removed."""
    if not archive.is_file():
        return False
    with contextlib.suppress(OSError):
        if _sidecar(archive).read_text(encoding='utf-8').strip() == file_sha256(archive):
            return True
    for path in (archive, _sidecar(archive)):
        with contextlib.suppress(OSError):
            path.unlink()
    return False


def _room(folder: Path) -> bool:
    """MIN_FREE is free in `folder` (made if need be); else says so once and returns False."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(folder).free
    except OSError as e:
        why, fix = f'cannot use {folder} ({e.strerror or e})', 'Make that folder writable'
    else:
        if free >= MIN_FREE:
            return True
        why = f'{folder} has {free >> 20} MB free, and a build needs {MIN_FREE >> 20} MB there'
        fix = 'Free disk space there'
    housekeeping.note(
        f'the class-data archive was not built: {why}; TLC jobs ran without it, a little slower. '
        f'{fix}, or set EXECLEASE_JVM_CDS=0'
    )
    return False


# The JVM's words when it cannot write the archive at its exit (HotSpot's FileMapInfo::fail_stop,
# to stderr, which a job's output holds): the first line of the block, which ends the output.
_DUMP_FAILED = b'An error has occurred while processing the shared archive file.'


def lost(plan: Plan, output: bytes) -> bytes | None:
    """When `plan` built the archive and its JVM could not write it (it then exits 1, whatever
    TLC's own exit code was: TLC had already ended, the JVM writes the archive on its way out):
    what TLC itself printed, `output` up to the JVM's block, once the failure is recorded (no
    more builds of it in this process, one note naming the folder and what the JVM said). Else
    None."""
    at = output.find(_DUMP_FAILED)
    while at > 0 and output[at - 1 : at] != b'\n':
        at = output.find(_DUMP_FAILED, at + 1)
    if not plan.building or at < 0:
        return None
    if plan.archive is not None:
        _unwritable.add(str(plan.archive))
        said = output[at:].decode('utf-8', 'replace').splitlines()[1:2]
        housekeeping.note(
            f'the class-data archive could not be written to {plan.archive.parent} (the JVM said: '
            f"{' '.join(line.strip() for line in said) or 'nothing more'}); the verdict is TLC's "
            'own, and later jobs ran without the archive, a little slower. Free disk space there '
            '(or lift the file-size limit), or set EXECLEASE_JVM_CDS=0'
        )
    return output[:at]


def sweep(folder: Path) -> None:
    """Remove what killed runs left in the archive folder: a build's `.part` (named by its
    process) and a `.building` mark whose process is gone. A folder shared with another pid
    namespace may name a live process as gone: removing its part or mark costs at most that
    build or a second one at once, never a verdict.

    The building JVM of such a run is stopped first: it writes its part at its exit, so one
    still running would leave a part after this sweep. The killed run's job folder lists it for
    the sweep of the system's temp folder, unless the kill landed between the JVM's start and
    that record; so it is found here by the part its command line names."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for path in entries:
        text = ''  # the process the file names
        archive = path.name.partition('.jsa')[0] + '.jsa'
        if path.name.endswith('.part') and path.name.startswith('tla2tools-'):
            fields = path.name.split('.')
            text = fields[-3] if len(fields) >= 4 else ''
        elif path.name.endswith('.jsa.building'):
            try:
                text = path.read_text(encoding='utf-8').strip()
            except OSError:
                continue
        pid = int(text) if text.isdigit() else None
        if pid is not None and pid != os.getpid() and not procs.alive(pid):
            parts = f'-XX:ArchiveClassesAtExit={folder / archive}.{pid}.'
            scratch.stop(scratch.naming(parts), parts)
            # The file, and the parts the JVM just stopped had written.
            for stale in (path, *folder.glob(f'{archive}.{pid}.*.part')):
                with contextlib.suppress(OSError):
                    stale.unlink()


def plan(java: Path, jar: Path, settings: Settings) -> Plan:
    """The class-data flags for one TLC run: use the archive, build it, or neither."""
    if not settings.jvm_cds:
        return NO_ARCHIVE
    try:
        archive = archive_path(java, jar, settings)
    except OSError:  # no such jar: TLC's own run says so
        archive = None
    if archive is None:
        return NO_ARCHIVE
    if trusted(archive):
        return Plan((f'-XX:SharedArchiveFile={archive}', *QUIET), NO_ARCHIVE.finish)
    if str(archive) in _unwritable or not _room(archive.parent):
        return NO_ARCHIVE
    lock = archive.with_name(archive.name + '.building')
    try:  # _room made the folder
        with contextlib.suppress(FileNotFoundError):
            if time.time() - lock.stat().st_mtime > STALE_BUILD:
                lock.unlink()
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except OSError:
        return NO_ARCHIVE  # another job is building it, or the folder is not writable: run without
    # Whose it is, for `sweep` after a kill; on a full disk the empty mark still works, and goes
    # stale after STALE_BUILD.
    with contextlib.suppress(OSError), os.fdopen(fd, 'wb') as mark:
        mark.write(str(os.getpid()).encode())
    part = archive.with_name(f'{archive.name}.{os.getpid()}.{time.monotonic_ns()}.part')

    finished = threading.Event()

    def finish(code: int | None) -> None:
        if finished.is_set():
            return  # once only: a second call must not remove a later build's mark
        finished.set()
        try:
            # Only a JVM that ended by itself wrote a whole archive (a killed one may leave a part).
            if code is not None and code >= 0 and part.is_file() and part.stat().st_size > 0:
                atomic.write_text_atomic(_sidecar(archive), file_sha256(part) + '\n')
                os.replace(part, archive)
        except OSError as e:
            housekeeping.note(
                f'the class-data archive was built but could not be saved in {archive.parent} '
                f'({e.strerror or e}); TLC jobs ran without it, a little slower. Free disk space '
                'there, or set EXECLEASE_JVM_CDS=0'
            )
        finally:
            for path in (part, lock):
                with contextlib.suppress(OSError):
                    path.unlink()

    return Plan(
        (f'-XX:ArchiveClassesAtExit={part}', *QUIET), finish, building=True, archive=archive
    )
