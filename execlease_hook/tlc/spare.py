"""Warm JVMs for TLC jobs (docs/architecture.md#the-jvm-of-a-tlc-job).

A spare is a JVM started before it is needed, with a job's JVM flags, running
`helper/ExecleaseTlcSpare.java`: it warms up (one trivial TLC run of its own), then runs jobs one
at a time, each in a class loader of its own over the jar, so TLC's static state is new for every
job while the JVM and the JIT's work on the JDK stay warm. Each job keeps its own folder, its own
`java.io.tmpdir`, output file, exit code and timeout; a job that hangs is stopped by killing its
JVM, which runs nothing else meanwhile. After each job the helper removes what the job left in
the JVM's registries (its MBeans and exported RMI objects) and ends the JVM instead when it cannot
(a thread of the job still alive, a throwable TLC did not catch, MAX_JOBS jobs, a heap half full):
"retire". A spare serves only jobs of its key (same Java, JIT flags, jar) and of the environment
it was started in; at most one waits per key while jobs of that key are still expected (`expect`,
from the suite's plan), and one more is started ahead when a spare takes its last job.

The helper is compiled at first use with the `javac` beside the Java into the archive folder
(tlc/cds.archive_folder), named by a hash of its source and the Java's identity; with no javac,
or if it does not compile, every job runs in a JVM of its own started for it (with one note
when a javac was there and failed: a full disk, say). One javac per helper runs in a process;
its work folder (`.spare-<hash>.<random>`, core/scratch.py) is removed on every path: compiled,
failed, a race lost to another run, Ctrl-C, and the process's exit, which gives a javac still
running EXIT_WAIT seconds to finish, then stops it; a killed run's is swept by the next (`sweep`).
`EXECLEASE_JVM_SPARE=0` switches spares off.

It is kept whole: a spare's process, the line protocol with its helper, and the pool
of waiting spares keyed by the jobs expected are one mechanism, whose rules (one job at a time,
only of its key and environment, none waiting that no job will take) span all three; compiling
the helper is the only part apart from them, and it shares their lock and their end: a javac
still running when the process ends is stopped with the spares (`discard_all`).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from execlease_hook.core import housekeeping, scratch, settings
from execlease_hook.tlc import cds
from execlease_hook.tlc.java import identity as java_identity

SOURCE = Path(__file__).with_name('helper') / 'ExecleaseTlcSpare.java'
MAIN = 'ExecleaseTlcSpare'
NO_JOB = 3  # the helper's exit when stdin closes before a job arrives
MAX_JOBS = 24  # jobs per JVM, then it ends (passed to the helper): bounds what loaders may leave
COMPILE_TIMEOUT = 300.0  # seconds for javac; a work folder without a mark older than this is stale
# At the process's normal exit, a javac still running gets this long to finish (once per Java:
# a short cold run would otherwise never keep a helper); then it is stopped. Ctrl-C waits for none.
EXIT_WAIT = 10.0
# TLC's fingerprint set is an RMI object: the helper unexports each job's from RMI's table.
OPENS = ('--add-opens', 'java.rmi/sun.rmi.transport=ALL-UNNAMED')


@dataclass(frozen=True)
class Ended:
    """How a job in a spare ended: `code` is TLC's exit code, or the JVM's (negative: a signal)
    when the JVM itself ended during the job (`jvm_ended`); `retired`: the JVM ends after it."""

    code: int
    retired: bool
    jvm_ended: bool = False


@dataclass
class Spare:
    key: tuple[str, ...]
    folder: Path  # its own: cwd, warm-up run, jvm.log
    proc: subprocess.Popen[bytes]
    log: IO[bytes]  # the JVM's own stderr
    # The environment it was started with: a JVM reads JAVA_TOOL_OPTIONS and the like at its
    # start, so a spare serves only a job that would have started its JVM in the same one.
    environ: dict[str, str]
    started: tuple[
        tuple[str, ...], Path, Path, tuple[Path, ...]
    ]  # how to start another like it: JVM argv, jar, helper, library jars
    jobs: int = 0  # jobs handed to it so far
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, name='execlease-spare-control', daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode('utf-8', 'replace').strip())
        self.lines.put(None)

    @property
    def last_job(self) -> bool:
        return self.jobs + 1 >= MAX_JOBS

    def start_job(self, folder: Path, tlc_args: tuple[str, ...]) -> None:
        """Hand the spare a job whose files are in `folder`; raises OSError if it is gone."""
        assert self.proc.stdin is not None
        self.jobs += 1
        lines = (str(folder), str(folder / 'javatmp'), *tlc_args)
        self.proc.stdin.write(''.join(a + '\n' for a in lines).encode() + b'\n')
        self.proc.stdin.flush()

    def wait_job(self, timeout: float) -> Ended | None:
        """The job's end, or None if it has not ended within `timeout` seconds."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                return None
            if line is None:  # the JVM ended during the job
                return Ended(self.proc.wait(), True, jvm_ended=True)
            words = line.split()
            if len(words) >= 2 and words[0] == 'exit' and words[1].lstrip('-').isdigit():
                return Ended(int(words[1]), 'retire' in words[2:])
            # 'ready' and anything else the helper says between jobs

    def discard(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_lock = threading.Lock()
_idle: dict[tuple[str, ...], list[Spare]] = {}
_expected: Counter[tuple[str, ...]] | None = None  # None: no plan given, always keep one ready
_helper: dict[str, Path | None] = {}  # java identity key -> compiled folder or None
_compiling: set[str] = set()
_starting: Counter[tuple[str, ...]] = (
    Counter()
)  # spares being started ahead of any job (start_ahead)
_compile_locks: dict[str, threading.Lock] = {}  # helper folder -> held while its javac runs
_compile_failed: set[str] = set()  # helper folders whose javac failed in this process
_javacs: dict[
    Path, subprocess.Popen[bytes] | None
] = {}  # work folder -> its javac (None: not started yet)
_exiting = False  # the process is ending: no javac starts


def enabled() -> bool:
    return (
        settings.from_environ().jvm_spare
    )  # not yet handed down: the launch of a JVM takes no settings


def _javac(java: Path) -> Path | None:
    explicit = (
        settings.from_environ().javac
    )  # not yet handed down: the launch of a JVM takes no settings
    if explicit:
        return Path(explicit)
    real = Path(shutil.which(str(java)) or java).resolve()
    candidate = real.parent / ('javac.exe' if real.suffix == '.exe' else 'javac')
    return candidate if candidate.is_file() else None


def helper_folder(java: Path, jar: Path) -> Path | None:
    """Where the compiled helper for this Java lives (compiled or not yet), or None: no javac."""
    identity = java_identity(java)
    javac = _javac(java)
    if identity is None or javac is None:
        return None
    h = hashlib.sha256(
        SOURCE.read_bytes() + b'\0' + identity[1].encode() + b'\0' + str(javac).encode()
    )
    return cds.archive_folder(jar) / f'spare-{h.hexdigest()[:32]}'


def compile_helper(java: Path, jar: Path) -> Path | None:
    """The folder holding the compiled helper, compiling it now if needed; None if it cannot be.
    One javac per helper at a time in this process: another caller waits for its answer."""
    target = helper_folder(java, jar)
    javac = _javac(java)
    if target is None or javac is None:
        return None
    with _lock:
        one = _compile_locks.setdefault(str(target), threading.Lock())
    with one:
        if (target / f'{MAIN}.class').is_file():
            return target
        if str(target) in _compile_failed:
            return None
        return _compile(javac, target)


def _compile_failure(target: Path, why: str) -> None:
    _compile_failed.add(str(target))
    housekeeping.note(
        f'the warm-JVM helper could not be compiled into {target.parent} ({why}); each TLC job ran '
        'in a JVM of its own, a little slower. Free disk space there, or set EXECLEASE_JVM_SPARE=0'
    )


def _compile(javac: Path, target: Path) -> Path | None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _lock:
            if _exiting:
                return None
            # Known from its first moment: the process's exit waits for it, or removes it.
            work = scratch.make(f'.{target.name}.', target.parent)
            _javacs[work] = None
    except OSError as e:
        _compile_failure(target, f'cannot make a folder there: {e.strerror or e}')
        return None
    classes = work / 'classes'  # javac's output, renamed into place whole: the mark stays behind
    try:
        with _lock:
            if _exiting:
                return None
            proc = subprocess.Popen(
                (str(javac), '-nowarn', '-d', str(classes), str(SOURCE)),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            _javacs[work] = proc
        scratch.started(work, proc.pid)
        try:
            said, _ = proc.communicate(timeout=COMPILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            _stop(proc)
            _compile_failure(target, f'javac took more than {COMPILE_TIMEOUT:g} s')
            return None
        if proc.returncode < 0:
            return None  # stopped by this process (Ctrl-C, its exit): nothing failed
        if proc.returncode != 0 or not (classes / f'{MAIN}.class').is_file():
            first = next(
                (
                    line.strip()
                    for line in said.decode('utf-8', 'replace').splitlines()
                    if line.strip()
                ),
                f'exit code {proc.returncode}',
            )
            _compile_failure(target, f'javac said: {first}')
            return None
        try:
            os.replace(classes, target)  # whole folder or nothing: a reader never sees a part
        except OSError:
            pass  # another run placed it first: a race lost, its copy is the same
        return target if (target / f'{MAIN}.class').is_file() else None
    except OSError as e:
        _compile_failure(target, f'javac could not run: {e.strerror or e}')
        return None
    finally:
        scratch.remove(work)
        with _lock:
            _javacs.pop(work, None)  # last: _at_exit waits until none is left


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def sweep(jar: Path) -> None:
    """Remove what killed runs left in the archive folder: the work folders of their javacs
    (a marked one whose maker is gone, after stopping its javac; an unmarked one, from an
    execlease before the marks, once older than any compile) and their class-data parts."""
    folder = cds.archive_folder(jar)
    scratch.sweep(folder, '.spare-')
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        try:
            old = (
                entry.name.startswith('.spare-')
                and entry.is_dir()
                and not entry.is_symlink()
                and not (entry / scratch.MARK).exists()
                and time.time() - entry.stat().st_mtime > COMPILE_TIMEOUT
            )
        except OSError:
            continue
        if old:
            shutil.rmtree(entry, ignore_errors=True)
    cds.sweep(folder)


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


def start_ahead(
    key: tuple[str, ...], jvm_argv: tuple[str, ...], jar: Path, libraries: tuple[Path, ...] = ()
) -> None:
    """Start a spare for the first job of this key now, in the background (compiling the helper
    first if need be), unless one waits already or no job of this key is expected."""
    with _lock:
        _starting[key] += 1

    def work() -> None:
        try:
            helper = compile_helper(Path(jvm_argv[0]), jar)
            with _lock:
                if (
                    helper is None
                    or _exiting
                    or _idle.get(key)
                    or _expected is not None
                    and _expected[key] <= 0
                ):
                    return
            fresh = _spawn(key, jvm_argv, jar, helper, libraries)
            if fresh is not None:
                with _lock:
                    late = _exiting  # discard_all has run or is about to: it would not see this one
                    if not late:
                        _idle.setdefault(key, []).append(fresh)
                if late:
                    fresh.discard()
        finally:
            with _lock:
                _starting[key] -= 1

    threading.Thread(target=work, name='execlease-spare-ahead', daemon=True).start()


def _spawn(
    key: tuple[str, ...],
    jvm_argv: tuple[str, ...],
    jar: Path,
    helper: Path,
    libraries: tuple[Path, ...] = (),
) -> Spare | None:
    """Start a spare: `jvm_argv` is the job's java and JVM flags (no tmpdir, no class path). The
    jar is on its class path too, as in a job's own JVM, so that the class-data archive of the
    flags applies; each job's classes come from a loader of its own (parent: the platform's)
    over the jar and the model's library jars (`libraries`, part of the key)."""
    folder: Path | None = None
    try:
        folder = Path(tempfile.mkdtemp(prefix='jvm-', dir=_spares_folder(jar)))
        (folder / 'javatmp').mkdir()
        log = open(folder / 'jvm.log', 'wb')
    except OSError as e:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        housekeeping.note(
            f'warm JVMs could not be started: cannot make their folder in '
            f'{cds.archive_folder(jar) / "spares"} ({e.strerror or e}); TLC jobs ran in JVMs of '
            'their own, a little slower. Free disk space there, or set EXECLEASE_JVM_SPARE=0'
        )
        return None
    argv = (
        *jvm_argv,
        *OPENS,
        f'-Djava.io.tmpdir={folder / "javatmp"}',
        '-cp',
        f'{jar}{os.pathsep}{helper}',
        MAIN,
        os.pathsep.join(map(str, (jar, *libraries))),
        str(folder / 'warmup'),
        str(MAX_JOBS),
    )
    environ = dict(os.environ)
    try:
        proc = subprocess.Popen(
            argv,
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
        )
    except OSError:
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return Spare(key, folder, proc, log, environ, (jvm_argv, jar, helper, libraries))


_own_folder: dict[str, Path] = {}


def _spares_folder(jar: Path) -> Path:
    """This process's folder for the folders of its waiting spares: `spares/<pid>` in the archive
    folder, so that the system's temp folder holds only the folders of running jobs. Folders
    left by a process that is gone (killed before its exit could remove them) are removed."""
    parent = cds.archive_folder(jar) / 'spares'
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


def take(
    key: tuple[str, ...], jvm_argv: tuple[str, ...], jar: Path, libraries: tuple[Path, ...] = ()
) -> Spare | None:
    """A waiting spare for a job of this key (same Java, JIT flags and jar), or None (the caller
    starts a JVM of its own). When none waits, or the one taken is at its last job, another is
    started for the next job of this key, with `jvm_argv` (the java binary and its flags, as the
    job would run them). The caller gives the spare back (`give_back`) when the job has ended."""
    if not enabled():
        return None
    with _lock:
        if _expected is not None:
            _expected[key] -= 1
            if _expected[key] <= 0 and not _idle.get(key) and not _starting[key]:
                return None  # none waits, none is coming, and no later job would take one
    helper = _ready_helper(Path(jvm_argv[0]), jar)
    found: Spare | None = None
    unfit: list[Spare] = []
    with _lock:
        if helper is None:
            return None
        waiting = _idle.setdefault(key, [])
        while (
            waiting and found is None
        ):  # a dead spare, or one of another environment, is thrown away
            spare = waiting.pop(0)
            if spare.proc.poll() is None and spare.environ == dict(os.environ):
                found = spare
            else:
                unfit.append(spare)
        more = _expected is None or _expected[key] > 0
        start = more and (
            found is None and not _starting[key] or found is not None and found.last_job
        )
    for spare in unfit:
        spare.discard()
    if start:
        fresh = _spawn(key, jvm_argv, jar, helper, libraries)
        if fresh is not None:
            with _lock:
                _idle.setdefault(key, []).append(fresh)
    return found


def give_back(spare: Spare, ended: Ended | None) -> None:
    """A spare whose job has ended: it waits for the next job of its key if it runs on and one is
    still expected; otherwise it is stopped, and if it retired with jobs of its key still expected,
    another is started now. `ended` None: the job did not end by itself (timeout, Ctrl-C)."""
    with _lock:
        waiting = _idle.setdefault(spare.key, [])
        wanted = (_expected[spare.key] if _expected is not None else 1) - len(waiting)
        runs_on = ended is not None and not ended.retired and spare.proc.poll() is None
        if runs_on and wanted > 0:
            waiting.append(spare)
    if runs_on and wanted > 0:
        return
    # Not a daemon: the process's exit waits for it (a kill and a wait), or its folder would stay.
    threading.Thread(target=spare.discard).start()
    if ended is not None and ended.retired and wanted > 0 and enabled():
        fresh = _spawn(spare.key, *spare.started)
        if fresh is not None:
            with _lock:
                _idle.setdefault(spare.key, []).append(fresh)


def discard_all() -> None:
    """Stop every waiting spare and every running javac, and remove their folders (Ctrl-C, exit)."""
    global _expected
    with _lock:
        spares = [s for waiting in _idle.values() for s in waiting]
        _idle.clear()
        _expected = None
        javacs = list(_javacs.items())
    for spare in spares:
        spare.discard()
    for work, proc in javacs:
        # Its thread removes the folder too once javac has ended, but at the process's exit that
        # thread (a daemon's) may never run again: the folder is removed here, javac stopped first.
        if proc is not None:
            _stop(proc)
        scratch.remove(work)
    for folder in list(_own_folder.values()):
        try:
            folder.rmdir()  # only if empty: a running job's spare folder is its own to remove
        except OSError:
            pass


def _at_exit() -> None:
    global _exiting
    with _lock:
        _exiting = True  # a compile thread still running starts no javac after this
    deadline = time.monotonic() + EXIT_WAIT
    while time.monotonic() < deadline:
        with _lock:
            if not _javacs:
                break
        time.sleep(0.05)  # its thread places the helper and removes its folder
    discard_all()


atexit.register(_at_exit)
