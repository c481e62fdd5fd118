"""Warm JVMs for TLC jobs (docs/architecture.md#the-jvm-of-a-tlc-job).

A spare is a JVM started before it is needed, with a job's JVM flags, running
`helper/ExecleaseTlcSpare.java` (compiled at first use, tlc/spare_helper.py): it runs jobs one at
a time, each in a class loader of its own over the jar, until it must "retire".

It is kept whole: a spare's process, the line protocol with its helper, and the pool of waiting
spares keyed by the jobs expected are one mechanism, whose rules (one job at a time, only of its
key and environment, none waiting that no job will take) span all three. A spare lives
core/procs.py's one life: its own group, registered from its start to its discard, so Ctrl-C
stops it; what is left for `discard_all` is the pool's bookkeeping and the folders.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from execlease_hook.core import housekeeping, procs, scratch
from execlease_hook.core.settings import Settings
from execlease_hook.tlc import cds, spare_helper

NO_JOB = 3  # the helper's exit when stdin closes before a job arrives
MAX_JOBS = 24  # jobs per JVM, then it ends (passed to the helper): bounds what loaders may leave
# TLC's fingerprint set is an RMI object: the helper unexports each job's from RMI's table.
OPENS = ('--add-opens', 'java.rmi/sun.rmi.transport=ALL-UNNAMED')


@dataclass(frozen=True)
class Ended:
    """How a job in a spare ended: `code` is TLC's exit code, or the JVM's (negative: a signal)
    when the JVM itself ended during the job (`jvm_ended`); `retired`: the JVM ends after it."""

    code: int
    retired: bool
    jvm_ended: bool = False


@dataclass(frozen=True)
class Jvm:
    """How the spares of one key are started (`_spawn`): the job's java and JVM flags, as the job
    would run them (no tmpdir, no class path), the jar, the model's library jars, the settings."""

    key: tuple[str, ...]  # jobs of one key can use each other's spares (tlc/job._spare_key)
    argv: tuple[str, ...]
    jar: Path
    libraries: tuple[Path, ...]
    settings: Settings


@dataclass
class Spare:
    jvm: Jvm  # how it was started: another like it is started the same way
    helper: Path
    folder: Path  # its own: cwd, warm-up run, jvm.log
    proc: subprocess.Popen[bytes]
    log: IO[bytes]  # the JVM's own stderr
    # The environment it was started with: a JVM reads JAVA_TOOL_OPTIONS and the like at its
    # start, so a spare serves only a job that would have started its JVM in the same one.
    environ: dict[str, str]
    jobs: int = 0  # jobs handed to it so far
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, name='execlease-spare-control', daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode('utf-8', 'replace').strip())
        self.lines.put(None)

    def start_job(self, folder: Path, tlc_args: tuple[str, ...]) -> None:
        """Hand the spare a job whose files are in `folder`; raises OSError if it is gone."""
        assert self.proc.stdin is not None
        self.jobs += 1
        lines = (str(folder), str(folder / 'javatmp'), *tlc_args)
        self.proc.stdin.write(''.join(a + '\n' for a in lines).encode() + b'\n')
        self.proc.stdin.flush()

    def wait_job(self, timeout: float) -> Ended | None:
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
        procs.stop(self.proc)
        procs.close(self.proc)
        self.log.close()
        scratch.remove(self.folder)


# Process-wide on purpose: the pool is shared by every job thread of the process, and only
# what every thread sees can keep one spare per key waiting and none that no job will take.
_lock = threading.Lock()
_idle: dict[tuple[str, ...], list[Spare]] = {}  # waiting spares, by key
# Jobs still to come, by key. None: no plan given (a job run on its own, outside verify's pool):
# no job is known to follow it, so no spare is started or kept for one.
_expected: Counter[tuple[str, ...]] | None = None
_starting: Counter[tuple[str, ...]] = Counter()  # spares being started ahead of any job


def expected_one_less(key: tuple[str, ...]) -> None:
    """A job of this key runs without a spare (its own JVM): one fewer to keep ready."""
    with _lock:
        if _expected is not None:
            _expected[key] -= 1


def expect(keys: Iterable[tuple[str, ...]]) -> None:
    """The keys of the jobs about to run: no spare is started that no job will take."""
    global _expected
    with _lock:
        if _expected is None:
            _expected = Counter()
        _expected.update(keys)


def start_ahead(jvm: Jvm) -> None:
    """Start a spare for the first job of its key now, in the background (compiling the helper
    first if need be), unless one waits already or no job of this key is expected."""
    key = jvm.key
    with _lock:
        _starting[key] += 1

    def work() -> None:
        try:
            helper = spare_helper.compile_helper(Path(jvm.argv[0]), jvm.jar, jvm.settings)
            with _lock:
                if (
                    helper is None
                    or _idle.get(key)
                    or _expected is not None
                    and _expected[key] <= 0
                ):
                    return
            _keep(_spawn(jvm, helper))
        finally:
            with _lock:
                _starting[key] -= 1

    spare_helper.in_background(work)


def _spawn(jvm: Jvm, helper: Path) -> Spare | None:
    """Start a spare as `jvm` says. The jar is on its class path too, as in a job's own JVM, so
    that the class-data archive of the flags applies; each job's classes come from a loader of
    its own (parent: the platform's) over the jar and the model's library jars (part of the key)."""
    # Waiting spares keep their folders in the archive folder, so that the system's temp folder
    # holds only the folders of running jobs.
    jar = jvm.jar
    spares = cds.archive_folder(jar, jvm.settings) / 'spares'
    try:
        spares.mkdir(parents=True, exist_ok=True)
        folder = scratch.make('jvm-', spares)
    except OSError as e:
        housekeeping.note(
            f'warm JVMs could not be started: cannot make their folder in '
            f'{spares} ({e.strerror or e}); TLC jobs ran in JVMs of '
            'their own, a little slower. Free disk space there, or set EXECLEASE_JVM_SPARE=0'
        )
        return None
    argv = (
        *jvm.argv,
        *OPENS,
        f'-Djava.io.tmpdir={folder / "javatmp"}',
        '-cp',
        f'{jar}{os.pathsep}{helper}',
        spare_helper.MAIN,
        os.pathsep.join(map(str, (jar, *jvm.libraries))),
        str(folder / 'warmup'),
        str(MAX_JOBS),
    )
    try:
        (folder / 'javatmp').mkdir()
        log = open(folder / 'jvm.log', 'wb')
    except OSError:
        scratch.remove(folder)
        return None
    try:
        proc = procs.start(argv, cwd=folder, stdin=subprocess.PIPE, stderr=log, folder=folder)
    except BaseException:  # no Java, or Ctrl-C: no spare
        log.close()
        scratch.remove(folder)
        raise
    return Spare(jvm, helper, folder, proc, log, dict(os.environ))


def _keep(fresh: Spare | None) -> None:
    """A spare just started waits for its job; once the run is stopped (Ctrl-C, the process's
    exit: discard_all has run or is about to, and would not see it), it is stopped instead."""
    if fresh is None:
        return
    with _lock:
        late = procs.cancelled()
        if not late:
            _idle.setdefault(fresh.jvm.key, []).append(fresh)
    if late:
        fresh.discard()


def take(jvm: Jvm) -> Spare | None:
    """A waiting spare for a job of its key (same Java, JIT flags and jar), or None (the caller
    starts a JVM of its own). When none waits, or the one taken is at its last job, another is
    started for the next job of this key, as `jvm` says. The caller gives the spare back
    (`give_back`) when the job has ended. Without a plan (`expect`), None: no later job is known
    that would take a spare."""
    key = jvm.key
    if not jvm.settings.jvm_spare:
        return None
    with _lock:
        if _expected is None:
            return None
        _expected[key] -= 1
        if _expected[key] <= 0 and not _idle.get(key) and not _starting[key]:
            return None  # none waits, none is coming, and no later job would take one
    helper = spare_helper.ready(Path(jvm.argv[0]), jvm.jar, jvm.settings)
    found: Spare | None = None
    unfit: list[Spare] = []
    with _lock:
        if helper is None:
            return None
        waiting = _idle.setdefault(key, [])
        while waiting and found is None:  # a dead one, or one of another environment, goes
            spare = waiting.pop(0)
            if spare.proc.poll() is None and spare.environ == dict(os.environ):
                found = spare
            else:
                unfit.append(spare)
        more = _expected is not None and _expected[key] > 0  # None: Ctrl-C forgot the plan
        start = more and (
            found is None and not _starting[key] or found is not None and found.jobs + 1 >= MAX_JOBS
        )
    for spare in unfit:
        spare.discard()
    if start:
        _keep(_spawn(jvm, helper))
    return found


def give_back(spare: Spare, ended: Ended | None) -> None:
    """A spare whose job has ended: it waits for the next job of its key if it runs on and one is
    still expected; otherwise it is stopped, and if it retired with jobs of its key still expected,
    another is started now. `ended` None: the job did not end by itself (timeout, Ctrl-C)."""
    key = spare.jvm.key
    with _lock:
        waiting = _idle.setdefault(key, [])
        wanted = (_expected[key] if _expected is not None else 0) - len(waiting)
        runs_on = ended is not None and not ended.retired and spare.proc.poll() is None
        if kept := runs_on and wanted > 0:
            waiting.append(spare)
    if kept:
        return
    # Not a daemon: the process's exit waits for it (a kill and a wait), or its folder would stay.
    threading.Thread(target=spare.discard).start()
    if ended is not None and ended.retired and wanted > 0:
        _keep(_spawn(spare.jvm, spare.helper))


def discard_all() -> None:
    """Stop every waiting spare and remove its folder, and forget the plan (Ctrl-C, exit). A
    javac still running is stopped by core/procs.py's cancel_all, and its thread removes its
    work folder."""
    global _expected
    with _lock:
        spares = [s for waiting in _idle.values() for s in waiting]
        _idle.clear()
        _expected = None
    for spare in spares:
        spare.discard()


procs.on_cancel(discard_all)  # Ctrl-C also stops the spares waiting between jobs
