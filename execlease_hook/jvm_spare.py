"""Spare JVMs: TLC's start-up hidden behind the previous job (docs/architecture.md#the-jvm-of-a-tlc-job).

A spare is a JVM started before its job, in the job's own fresh folder (its cwd, its
`java.io.tmpdir`; under `spares/<pid>/` in the archive folder while it waits), with the job's JVM flags, running `spare/ExecleaseTlcSpare.java`: it boots
and loads TLC's classes, then waits for one job's TLC arguments on stdin and runs `tlc2.TLC` in
that same process, which TLC ends with its exit code. So each job still has a process of its
own (TLC's static state, its `System.exit`, its folders never meet another job's; a job that
hangs or dies costs only itself), and what execlease reads (exit code, output) is as before.
When a job takes a spare, another is started for the next job of the same kind; at most as
many as the jobs still expected (`expect`, from the suite's plan) wait at once.

The helper is compiled at first use with the `javac` beside the Java into the archive folder
(jvm_cds.archive_folder), named by a hash of its source and the Java's identity; with no javac,
or if it does not compile, every job runs in a JVM of its own started for it.
`EXECLEASE_JVM_SPARE=0` switches spares off.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from execlease_hook import jvm_cds

SOURCE = Path(__file__).with_name('spare') / 'ExecleaseTlcSpare.java'
MAIN = 'ExecleaseTlcSpare'
NO_JOB = 3          # the helper's exit when stdin closes before a job arrives


@dataclass
class Spare:
    key: tuple[str, ...]
    folder: Path
    proc: subprocess.Popen[bytes]
    out: IO[bytes]
    # The environment it was started with: a JVM reads JAVA_TOOL_OPTIONS and the like at its
    # start, so a spare serves only a job that would have started its JVM in the same one.
    environ: dict[str, str]

    def start_job(self, tlc_args: tuple[str, ...]) -> None:
        """Hand the spare its job; raises OSError if it is gone."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(''.join(a + '\n' for a in tlc_args).encode() + b'\n')
        self.proc.stdin.close()

    def discard(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        self.out.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_lock = threading.Lock()
_idle: dict[tuple[str, ...], list[Spare]] = {}
_expected: Counter[tuple[str, ...]] | None = None   # None: no plan given, always keep one ready
_helper: dict[str, Path | None] = {}                # java identity key -> compiled folder or None
_compiling: set[str] = set()


def enabled() -> bool:
    return os.environ.get('EXECLEASE_JVM_SPARE', '1') != '0'


def _javac(java: Path) -> Path | None:
    explicit = os.environ.get('EXECLEASE_JAVAC')
    if explicit:
        return Path(explicit)
    real = Path(shutil.which(str(java)) or java).resolve()
    candidate = real.parent / ('javac.exe' if real.suffix == '.exe' else 'javac')
    return candidate if candidate.is_file() else None


def helper_folder(java: Path, jar: Path) -> Path | None:
    """Where the compiled helper for this Java lives (compiled or not yet), or None: no javac."""
    identity = jvm_cds.java_identity(java)
    javac = _javac(java)
    if identity is None or javac is None:
        return None
    h = hashlib.sha256(SOURCE.read_bytes() + b'\0' + identity[1].encode() + b'\0' + str(javac).encode())
    return jvm_cds.archive_folder(jar) / f'spare-{h.hexdigest()[:32]}'


def compile_helper(java: Path, jar: Path) -> Path | None:
    """The folder holding the compiled helper, compiling it now if needed; None if it cannot be."""
    target = helper_folder(java, jar)
    javac = _javac(java)
    if target is None or javac is None:
        return None
    if (target / f'{MAIN}.class').is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f'.{target.name}.', dir=target.parent))
    except OSError:
        return None
    try:
        proc = subprocess.run(
            (str(javac), '-nowarn', '-d', str(work), str(SOURCE)), capture_output=True, timeout=300,
        )
        if proc.returncode != 0 or not (work / f'{MAIN}.class').is_file():
            return None
        try:
            os.replace(work, target)  # whole folder or nothing: a reader never sees a part
        except OSError:
            pass  # another run placed it first
        return target if (target / f'{MAIN}.class').is_file() else None
    except (OSError, subprocess.TimeoutExpired):
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def expected_one_less(key: tuple[str, ...]) -> None:
    """A job of this key runs without a spare (its own JVM): one fewer to keep ready."""
    with _lock:
        if _expected is not None:
            _expected[key] -= 1


def prepare(java: Path, jar: Path) -> None:
    """Compile the helper in the background now, so that the first jobs find it ready."""
    _ready_helper(java, jar)


def _ready_helper(java: Path, jar: Path) -> Path | None:
    """The compiled helper if ready; otherwise compiles it in the background and says None."""
    key = f'{java}\0{jar}'
    with _lock:
        if key in _helper:
            return _helper[key]
        if key in _compiling:
            return None
        _compiling.add(key)

    def work() -> None:
        folder = compile_helper(java, jar)
        with _lock:
            _helper[key] = folder
            _compiling.discard(key)

    threading.Thread(target=work, name='execlease-javac', daemon=True).start()
    return None


def expect(keys: Iterable[tuple[str, ...]]) -> None:
    """The keys of the jobs about to run: no spare is started that no job will take."""
    global _expected
    with _lock:
        if _expected is None:
            _expected = Counter()
        _expected.update(keys)


def _spawn(key: tuple[str, ...], jvm_argv: tuple[str, ...], jar: Path, helper: Path) -> Spare | None:
    """Start a spare: `jvm_argv` is the job's java and JVM flags (no tmpdir, no class path)."""
    try:
        folder = Path(tempfile.mkdtemp(prefix='job-', dir=_spares_folder(jar)))
    except OSError:
        return None
    classes = jvm_cds.class_list(jvm_argv[0], jar)
    argv = (*jvm_argv, f'-Djava.io.tmpdir={folder / "javatmp"}', '-cp', f'{jar}{os.pathsep}{helper}', MAIN,
            *((str(classes),) if classes else ()))
    environ = dict(os.environ)
    out = open(folder / 'tlc.out', 'wb')
    try:
        proc = subprocess.Popen(
            argv, cwd=folder, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError:
        out.close()
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return Spare(key, folder, proc, out, environ)


_own_folder: dict[str, Path] = {}


def _spares_folder(jar: Path) -> Path:
    """This process's folder for the folders of its waiting spares: `spares/<pid>` in the archive
    folder, so that the system's temp folder holds only the folders of running jobs. Folders
    left by a process that is gone (killed before its exit could remove them) are removed."""
    parent = jvm_cds.archive_folder(jar) / 'spares'
    key = str(parent)
    mine = parent / str(os.getpid())
    if key not in _own_folder:
        parent.mkdir(parents=True, exist_ok=True)
        for old in parent.iterdir():
            if old.name.isdigit() and not _alive(int(old.name)):
                shutil.rmtree(old, ignore_errors=True)
        _own_folder[key] = mine
    mine.mkdir(parents=True, exist_ok=True)
    return mine


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def take(key: tuple[str, ...], jvm_argv: tuple[str, ...], jar: Path) -> Spare | None:
    """A spare for a job of this key (same Java, JIT flags and jar) or None (the caller starts a
    JVM of its own); either way a spare for the next such job is started, with `jvm_argv` (the
    java binary and its flags, as the job would run them)."""
    if not enabled():
        return None
    helper = _ready_helper(Path(jvm_argv[0]), jar)
    found: Spare | None = None
    with _lock:
        if helper is None:
            if _expected is not None:
                _expected[key] -= 1
            return None
        waiting = _idle.setdefault(key, [])
        while waiting and found is None:  # a dead spare, or one of another environment, is thrown away
            spare = waiting.pop(0)
            if spare.proc.poll() is None and spare.environ == dict(os.environ):
                found = spare
            else:
                dead = spare
                threading.Thread(target=dead.discard, daemon=True).start()
        if _expected is not None:
            _expected[key] -= 1
            start = _expected[key] > len(waiting)
        else:
            start = len(waiting) < 1
    if start:
        fresh = _spawn(key, jvm_argv, jar, helper)
        if fresh is not None:
            with _lock:
                _idle.setdefault(key, []).append(fresh)
    return found


def discard_all() -> None:
    """Stop every waiting spare and remove its folder (Ctrl-C, exit)."""
    global _expected
    with _lock:
        spares = [s for waiting in _idle.values() for s in waiting]
        _idle.clear()
        _expected = None
    for spare in spares:
        spare.discard()
    for folder in list(_own_folder.values()):
        try:
            folder.rmdir()  # only if empty: a running job's spare folder is its own to remove
        except OSError:
            pass


atexit.register(discard_all)
