"""One isolated TLC job -> Verdict (docs/architecture.md#tlc-facts-the-code-relies-on).

Each job runs in a fresh folder of its own; reading the verdict from what TLC printed is
tlc/output.py's job.

It is kept whole: a job's two ways to run (a JVM started for it, or a warm one of tlc/spare.py)
share its folder, its deadline and the reading of the verdict; a process's life is
core/procs.py's, the class-data archive tlc/cds.py's.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from execlease_hook.core import procs, scratch
from execlease_hook.core.digest import length_prefixed
from execlease_hook.core.settings import Settings
from execlease_hook.spec import scan
from execlease_hook.tlc import cds, missing, spare, spare_helper
from execlease_hook.tlc.kinds import jit_flags
from execlease_hook.tlc.libraries import NO_LIBRARIES, Libraries
from execlease_hook.tlc.library_modules import read_by
from execlease_hook.tlc.output import (
    OUT_OF_MEMORY,
    Verdict,
    classify,
    classify_simulation,
    finished_exit_code,
    last_lines,
    with_printed,
)
from execlease_hook.tlc.progress import Follower, JobProgress, last

DEFAULT_TIMEOUT = 600.0


@dataclass(frozen=True)
class TlcJob:
    kind: str  # 'check' | 'mutation' | 'finding'
    name: str
    spec: str  # module file name, e.g. 'ExecutionLease.tla'
    spec_text: bytes  # the spec as TLC sees it (after any mutation)
    config: str  # the cfg as named in the manifest, e.g. 'findings/F2.cfg'
    config_text: bytes
    modules: tuple[tuple[str, bytes], ...] = ()  # other .tla files beside the spec
    java: Path = Path('java')
    jar: Path = Path('tla2tools.jar')
    deadlock: bool = False  # True: TLC checks for deadlock (no -deadlock flag)
    timeout: float = DEFAULT_TIMEOUT
    workers: int = 1
    expect: str | None = None  # for mutations / findings: the property that must be violated
    # The deep tier (verify/deep.py): more TLC flags (-simulate ..., -fpmem F), part of the key.
    mode: tuple[str, ...] = ()
    # The model's libraries (tlc/libraries.py): jars on the class path, folders on the library
    # path; none adds nothing to the argv or the key.
    libraries: Libraries = NO_LIBRARIES
    # The run's settings (cli/main reads them): how the JVM is tuned, warm JVMs, the class-data
    # archive and where it lives. Not part of the key: they change the time, never the verdict.
    settings: Settings = field(kw_only=True, compare=False)

    @property
    def config_name(self) -> str:
        return Path(self.config).name

    def tlc_flags(self) -> tuple[str, ...]:
        flags = ['-tool', '-workers', str(self.workers)]
        if not self.deadlock:
            flags.append('-deadlock')
        return (*flags, *self.mode)

    def argv(self, folder: Path) -> tuple[str, ...]:
        return (
            str(self.java),
            '-XX:+UseParallelGC',
            *self.libraries.jvm_flags(),
            f'-Djava.io.tmpdir={folder / "javatmp"}',
            '-cp',
            self.libraries.class_path(self.jar),
            'tlc2.TLC',
            *self.tlc_flags(),
            '-metadir',
            str(folder / 'meta'),
            '-config',
            self.config_name,
            Path(self.spec).name,
        )

    def cache_key(self, jar_sha256: str, java_major: int) -> str:
        parts = [
            b'execlease-tlc-2',
            jar_sha256.encode(),
            str(java_major).encode(),
            Path(self.spec).name.encode(),
            self.spec_text,
            self.config_name.encode(),
            self.config_text,
            '\0'.join(self.tlc_flags()).encode(),
            *(part for name, text in sorted(self.modules) for part in (name.encode(), text)),
            *self.libraries.key_parts(),
        ]
        return hashlib.sha256(b''.join(map(length_prefixed, parts))).hexdigest()


def expect_jobs(jobs: Iterable[TlcJob]) -> None:
    """The jobs a run is about to start: warm JVMs are kept for these and no more, and one for
    the first job of each kind of JVM that has two jobs or more is started now, in the background
    (compiling the helper first if it is not yet). A kind's only job runs in a JVM of its own
    (docs/architecture.md#the-jvm-of-a-tlc-job says why)."""
    by_key: dict[tuple[str, ...], list[TlcJob]] = {}
    for j in jobs:
        by_key.setdefault(_spare_key(j), []).append(j)
    spare.expect(key for key, group in by_key.items() for _ in group)
    first = [group[0] for group in by_key.values() if len(group) >= 2]
    if not first or not (first[0].settings.jvm_tuning and first[0].settings.jvm_spare):
        return  # no warm JVM is wanted: the helper is not even compiled
    some = next(iter(by_key.values()))[0]  # the run's first job
    spare_helper.ready(some.java, some.jar, some.settings)  # compiled in the background
    for j in first:  # a warm JVM for the first job of each such key, started now
        launch = prepare(j)
        if launch.cds.building:  # the first job builds the class-data archive in a JVM of its own
            launch.cds.finish(None)
            continue
        spare.start_ahead(_jvm(j, launch))


def sweep(jar: Path, settings: Settings) -> None:
    """What runs killed outright left (no `finally` of theirs ran): their job folders in the
    system's temp folder, after stopping the TLC JVMs still running in them; and in the archive
    folder of this jar, the work folders of their javacs, their spares' folders (after stopping
    the spare) and their class-data parts."""
    scratch.sweep(Path(tempfile.gettempdir()), 'execlease-')
    folder = cds.archive_folder(jar, settings)
    spare_helper.sweep(folder)
    scratch.sweep(folder / 'spares', 'jvm-')
    cds.sweep(folder)


def _spare_key(job: TlcJob) -> tuple[str, ...]:
    """Jobs that can use each other's spares: same Java, same JIT flags, same jar, same libraries."""
    jars = (str(j.path) for j in job.libraries.jars)
    return (str(job.java), *jit_flags(job.kind), str(job.jar), *job.libraries.jvm_flags(), *jars)


@dataclass(frozen=True)
class Launch:
    """The JVM a job runs in (docs/architecture.md#the-jvm-of-a-tlc-job)."""

    flags: tuple[str, ...]  # JVM flags of execlease's own, inserted after the java binary
    cds: cds.Plan  # its `finish` must be called with the JVM's exit code

    def argv(self, argv: tuple[str, ...]) -> tuple[str, ...]:
        return (argv[0], *self.flags, *argv[1:])


# EXECLEASE_JVM_TUNING=0: every job runs exactly as `TlcJob.argv` says (no archive, no JIT flags).
PLAIN = Launch((), cds.NO_ARCHIVE)


def prepare(job: TlcJob, archive_too: bool = True) -> Launch:
    """The flags of the job's JVM: C1 only for a short job, and the class-data plan (none with
    `archive_too` False: neither using nor building the archive). A job with library jars never
    builds the class-data archive of tla2tools.jar (it would record their class path); it uses
    one built without them."""
    if not job.settings.jvm_tuning:
        return PLAIN
    archive = cds.plan(job.java, job.jar, job.settings) if archive_too else cds.NO_ARCHIVE
    if job.libraries.jars and archive.building:
        archive.finish(None)
        archive = cds.NO_ARCHIVE
    return Launch((*jit_flags(job.kind), *archive.flags), archive)


@dataclass
class _Run:
    exit_code: int | None  # None: the job ran past its timeout and was stopped
    output: bytes


def _write_files(job: TlcJob, folder: Path) -> None:
    for name, text in job.modules:
        (folder / name).write_bytes(text)
    (folder / Path(job.spec).name).write_bytes(job.spec_text)
    (folder / job.config_name).write_bytes(job.config_text)
    (folder / 'meta').mkdir()
    (folder / 'javatmp').mkdir()


def _jvm(job: TlcJob, launch: Launch) -> spare.Jvm:
    """How a spare for the job starts: the java binary and its flags, as the job's JVM runs them
    (before the job's own tmpdir)."""
    argv = launch.argv(job.argv(Path('.')))
    flags = tuple(itertools.takewhile(lambda a: not a.startswith('-Djava.io.tmpdir='), argv))
    jars = tuple(j.path for j in job.libraries.jars)
    return spare.Jvm(_spare_key(job), flags, job.jar, jars, job.settings)


def _execute(
    job: TlcJob, folder: Path, on_line: Callable[[str], None] | None, launch: Launch
) -> _Run:
    out_path = folder / 'tlc.out'
    code: int | None = None
    try:
        with (
            open(out_path, 'wb') as out,
            procs.running(
                launch.argv(job.argv(folder)), cwd=folder, stdout=out, folder=folder
            ) as proc,
        ):
            follow = None if on_line is None else Follower(out_path, on_line)
            if procs.wait(procs.exited(proc), job.timeout, follow):
                code = proc.returncode
            else:
                procs.stop(proc)
    finally:
        launch.cds.finish(code)
    return _Run(code, out_path.read_bytes())


def _in_spare(
    job: TlcJob, folder: Path, warm: spare.Spare, on_line: Callable[[str], None] | None
) -> _Run:
    """The job run by a warm JVM (tlc/spare.py), which writes TLC's output to folder/tlc.out.
    The spare is given back, or stopped, before this returns."""
    argv = job.argv(folder)
    tlc_args = (*argv[argv.index('tlc2.TLC') + 1 : -1], str(folder / Path(job.spec).name))
    out_path = folder / 'tlc.out'
    ended: spare.Ended | None = None
    log_start = os.path.getsize(warm.log.name)

    def job_ended(seconds: float) -> bool:
        nonlocal ended
        ended = warm.wait_job(seconds)
        return ended is not None

    try:
        with contextlib.suppress(OSError):  # it died while waiting: its end says so below
            warm.start_job(folder, tlc_args)
        follow = None if on_line is None else Follower(out_path, on_line)
        if not procs.wait(job_ended, job.timeout, follow):
            procs.stop(warm.proc)
    except BaseException:
        procs.stop(warm.proc)
        raise
    finally:
        said = b''
        if ended is not None and ended.jvm_ended:
            # The JVM itself ended during the job (TLC's own System.exit, a crash, a signal):
            # what it wrote to stderr belongs to the job's output, as in a JVM of the job's own.
            with contextlib.suppress(OSError), open(warm.log.name, 'rb') as log:
                log.seek(log_start)
                said = log.read()
        spare.give_back(warm, None if procs.cancelled() else ended)
    if procs.cancelled():
        raise KeyboardInterrupt
    output = (out_path.read_bytes() if out_path.exists() else b'') + said
    return _Run(None if ended is None else ended.code, output)


def run_job(job: TlcJob, on_line: Callable[[str], None] | None = None) -> Verdict:
    """`on_line`: called with each line of TLC's output as it arrives (progress only; the
    verdict is read from the whole output once TLC has ended)."""
    # The last gate before TLC, whoever built the job: a spec that may leave TLC or stop the search
    # never runs (the suite refuses it earlier, naming the file and line).
    read = read_by((Path(job.spec).name, job.spec_text), job.modules, job.libraries, job.jar)
    modules = [(mod.path, mod.text) for mod in read]
    if uses := scan.scan_job_files(modules, ((job.config_name, job.config_text),)):
        return Verdict('error', 0.0, None, reason=scan.refusal(uses))
    started = time.monotonic()
    try:
        folder = scratch.make(f'execlease-{job.kind}-')
        try:
            _write_files(job, folder)
        except BaseException:
            scratch.remove(folder)
            raise
    except OSError as e:
        spare.expected_one_less(_spare_key(job))  # no spare waits for this job
        reason = (
            f"could not write the job's files in {e.filename or tempfile.gettempdir()} "
            f'({e.strerror or e}); free disk space in {tempfile.gettempdir()}, or point TMPDIR at '
            'a folder with room'
        )
        return Verdict('error', 0.0, reason=reason)

    def again(launch: Launch) -> _Run:
        """The job run afresh in its folder, in a JVM started as `launch` says."""
        scratch.empty(folder)
        _write_files(job, folder)
        return _execute(job, folder, on_line, launch)

    launch = prepare(job)
    warm = None
    if launch is PLAIN or launch.cds.building or procs.cancelled():
        # A building run's flags are its own; the switch off means plain JVMs.
        spare.expected_one_less(_spare_key(job))
    else:
        warm = spare.take(_jvm(job, launch))
    try:
        try:
            if warm is None:
                run = _execute(job, folder, on_line, launch)
                told = None if run.exit_code is None else cds.lost(launch.cds, run.output)
                if told is not None:
                    # The JVM's housekeeping failed after TLC had ended: TLC's output is
                    # whole and, when it says how TLC ended, is the verdict; when it does
                    # not, the job runs again in a JVM that saves nothing.
                    code = finished_exit_code(told)
                    run = _Run(code, told) if code is not None else again(prepare(job, False))
            else:
                launch.cds.finish(None)
                run = _in_spare(job, folder, warm, on_line)
                if warm.jobs > 1 and any(sign in run.output for sign in OUT_OF_MEMORY):
                    # Out of memory in a JVM that ran other jobs before: confirmed (or not)
                    # in a JVM of the job's own, so that no verdict depends on what ran before.
                    run = again(prepare(job))
        except OSError as e:
            return Verdict(
                'error', time.monotonic() - started, None, reason=f'could not start Java: {e}'
            )
        seconds = round(time.monotonic() - started, 3)
        tail = last_lines(run.output)
        if run.exit_code is None:
            # What the search had covered at TLC's last progress report (about once a minute).
            covered = last(run.output) or JobProgress()
            counts = (covered.generated, covered.distinct, covered.depth)
            reason = (
                f'timed out after {job.timeout:g} s (TLC was stopped); '
                'raise "timeout" on the manifest entry if the model needs longer'
            )
            timed_out = Verdict('error', seconds, None, *counts, reason=reason, last_lines=tail)
            return with_printed(timed_out, run.output)
        if run.exit_code < 0:
            reason = (
                f'TLC was killed by signal {-run.exit_code} (by a person, the out-of-memory '
                'killer or a shutdown?); run again'
            )
            return Verdict('error', seconds, run.exit_code, reason=reason, last_lines=tail)
        judge = classify_simulation if '-simulate' in job.mode else classify
        config_text = job.config_text.decode('utf-8', 'replace')
        verdict = judge(run.exit_code, run.output, seconds, config_text)
        # A module SANY cannot find, and a library override built for another TLC, said clearly.
        verdict = missing.explain(
            with_printed(verdict, run.output), run.output, modules, job.libraries.names()
        )
        return missing.explain_override(verdict, run.output, [j.name for j in job.libraries.jars])
    finally:
        launch.cds.finish(None)  # a no-op once _execute has called it
        scratch.remove(folder)
