"""The JVM's housekeeping never changes a verdict, against the real Java, javac and TLC: a build
of the class-data archive that the JVM cannot write (a real file-size limit: it then exits 1 after
TLC has finished) keeps TLC's verdict, of every kind; exit 1 says "TLC rejected its arguments"
only when TLC did; a helper that cannot compile, a compile racing itself, stopped by Ctrl-C, by
the process's end or by a kill, leaves no folder and no javac behind."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from execlease_hook.core import housekeeping, procs, scratch
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import cds, spare, spare_helper
from execlease_hook.tlc.job import (
    Launch,
    TlcJob,
    _execute,
    _spare_key,
    _write_files,
    prepare,
    run_job,
    sweep,
)
from execlease_hook.tlc.kinds import C1_ONLY
from execlease_hook.tlc.output import Verdict, classify, finished_exit_code
from tests import needs, wait
from tests.tlc.job_test import ERROR_REASONS, VERDICTS, make_job, own_jvm_outputs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cold archive folder of the test's own, its own temp folder, no archive failure recorded."""
    monkeypatch.setenv('EXECLEASE_JVM_CACHE', str(tmp_path / 'jvm'))
    for name in (
        'EXECLEASE_JVM_TUNING',
        'EXECLEASE_JVM_CDS',
        'EXECLEASE_JVM_SPARE',
        'EXECLEASE_JAVAC',
    ):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / 'tmp').mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path / 'tmp'))
    monkeypatch.setattr(cds, '_unwritable', set())
    monkeypatch.setattr(spare_helper, '_helpers', {})
    spare.discard_all()
    housekeeping.drain()
    yield tmp_path
    spare.discard_all()
    housekeeping.drain()


@contextmanager
def file_size_limit(size: int) -> Iterator[None]:
    """No file written by this process or its children may grow past `size` bytes (RLIMIT_FSIZE:
    a write past it fails with EFBIG; Python and the JVM both ignore SIGXFSZ)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def _leftovers(folder: Path) -> list[str]:
    return (
        sorted(
            p.name
            for p in folder.iterdir()
            if p.name.startswith('.spare-') or p.name.endswith(('.part', '.building'))
        )
        if folder.exists()
        else []
    )


def _processes_naming(folder: Path) -> list[int]:
    found = []
    for entry in Path('/proc').iterdir():
        if entry.name.isdigit():
            try:
                if str(folder).encode() in (entry / 'cmdline').read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


# -- the class-data archive -----------------------------------------------------------------------

EXIT_CODES = {
    'pass': 0,
    'invariant': 12,
    'initial': 12,
    'action': 13,
    'deadlock': 11,
    'assumption': 10,
    'evaluation': 75,
    'config': 151,
    'Broken': 150,
}
ERRORS = {'evaluation', 'config', 'Broken'}  # TLC does not say how it ended: the job runs again


@pytest.mark.tlc
@pytest.mark.parametrize('row', [v for v in VERDICTS if v[0] in EXIT_CODES], ids=lambda v: v[0])
def test_a_build_the_jvm_cannot_write_keeps_tlcs_verdict(env, monkeypatch, row):
    cfg, spec, deadlock, outcome, kind, prop, distinct, _ = row
    monkeypatch.setenv('EXECLEASE_JVM_SPARE', '0')  # the job runs in the JVM that builds
    # A mutation's JVM (C1 only): it builds the archive as a check's does, for about a fifth less
    # CPU; the JIT is not what is judged here (a check's build under the limit: verify/fault_test).
    job = replace(
        make_job(Path(needs.java()), needs.tla_jar(), cfg, spec, deadlock=deadlock), kind='mutation'
    )
    cold = prepare(job).cds
    assert cold.building  # cold: the job will build the archive
    cold.finish(None)
    runs: list[tuple[str, ...]] = []
    execute = _execute

    def counted(*a, **k):
        run = execute(*a, **k)
        runs.append(tuple(str(f) for f in (a[3] if len(a) > 3 else k['launch']).flags))
        return run

    monkeypatch.setattr('execlease_hook.tlc.job._execute', counted)
    with file_size_limit(1 << 20):  # TLC's output fits; the archive (5 MB and more) does not
        v = run_job(job)
    assert (v.outcome, v.kind, v.property, v.distinct, v.exit_code) == (
        outcome,
        kind,
        prop,
        distinct,
        EXIT_CODES[cfg],
    ), v
    if outcome == 'error':
        assert ERROR_REASONS[cfg] in (v.reason or '') and 'Java exited' not in (v.reason or '')
    assert not any('shared archive' in line for line in v.last_lines)
    # Judged by TLC's own output when it says how TLC ended; else run again, building nothing.
    assert len(runs) == (2 if cfg in ERRORS else 1)
    assert any(f.startswith('-XX:ArchiveClassesAtExit=') for f in runs[0])
    assert all(not f.startswith('-XX:') or f == C1_ONLY for f in (runs[1] if len(runs) > 1 else ()))
    [said] = housekeeping.drain()
    assert said.startswith(
        f'the class-data archive could not be written to {env / "jvm"} '
        '(the JVM said: Unable to write to shared archive file.)'
    )
    assert _leftovers(env / 'jvm') == [] and not list((env / 'jvm').glob('*.jsa'))
    assert list((env / 'tmp').iterdir()) == []
    # No other job of this process tries again (each would cost its JVM's exit for nothing).
    assert not prepare(job).cds.building


@pytest.mark.tlc  # the real Java: the first test of a process to read it probes it (a JVM)
def test_no_build_without_room_for_it(env, monkeypatch):
    java, jar = Path(needs.java()), needs.tla_jar()
    (env / 'jvm').mkdir()
    monkeypatch.setattr(cds, 'MIN_FREE', cds.shutil.disk_usage(env / 'jvm').free + (1 << 40))
    plan = cds.plan(java, jar, from_environ())
    assert plan is cds.NO_ARCHIVE
    [said] = housekeeping.drain()
    assert said.startswith(f'the class-data archive was not built: {env / "jvm"} has ')
    assert 'Free disk space there, or set EXECLEASE_JVM_CDS=0' in said
    assert list((env / 'jvm').iterdir()) == []


def test_a_killed_builds_part_and_mark_are_swept(env):
    folder = env / 'jvm'
    folder.mkdir()
    gone = subprocess.Popen(('true',))
    gone.wait()
    alive = subprocess.Popen(('sleep', '60'))
    try:
        names = {
            f'tla2tools-{"a" * 32}.jsa.{gone.pid}.123.part': False,  # its process is gone
            f'tla2tools-{"a" * 32}.jsa.{alive.pid}.456.part': True,  # still building
            f'tla2tools-{"b" * 32}.jsa.building': False,  # marked by the gone one
            f'tla2tools-{"c" * 32}.jsa.building': True,  # marked by a live one
        }
        for name in names:
            (folder / name).write_text(
                str(gone.pid if 'b' * 32 in name else alive.pid)
                if name.endswith('.building')
                else 'x'
            )
        cds.sweep(folder)
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            n for n, kept in names.items() if kept
        )
    finally:
        alive.kill()
        alive.wait()


# -- exit 1: TLC's refusal, or the JVM's ---------------------------------------------------------


def _plain(job: TlcJob) -> Verdict:
    return run_job(replace(job, settings=job.settings._replace(jvm_tuning=False)))


@pytest.mark.tlc
def test_exit_1_is_tlc_rejecting_its_arguments_only_when_tlc_says_so(env, monkeypatch):
    job = make_job(Path(needs.java()), needs.tla_jar(), 'pass')
    refused = _plain(replace(job, mode=('-no-such-flag',)))
    assert refused.exit_code == 1 and (refused.reason or '').startswith(
        'TLC rejected its arguments: '
    )
    assert 'report it' in (refused.reason or '')

    monkeypatch.setenv('JAVA_TOOL_OPTIONS', '-Xmx1k')  # the JVM itself refuses to start
    unstarted = _plain(job)
    assert unstarted.exit_code == 1 and 'rejected its arguments' not in (unstarted.reason or '')
    assert (unstarted.reason or '').startswith('Java exited 1 before TLC started; ')
    assert 'Too small maximum heap' in unstarted.last_lines


@pytest.mark.tlc
def test_exit_1_after_tlc_finished_says_so_and_tlcs_own_code_is_read_back(env, tmp_path):
    job = make_job(Path(needs.java()), needs.tla_jar(), 'invariant')
    folder = tmp_path / 'run'
    folder.mkdir()
    _write_files(job, folder)
    # A JVM told to write its archive where no folder is: it fails on its way out, after TLC.
    failing = Launch(
        (f'-XX:ArchiveClassesAtExit={tmp_path / "no-such-folder" / "a.jsa"}', *cds.QUIET),
        cds.NO_ARCHIVE,
    )
    run = _execute(job, folder, None, failing)
    assert run.exit_code == 1
    v = classify(1, run.output, 1.0, job.config_text.decode())
    assert (v.reason or '').startswith('TLC finished, then its Java exited 1')
    assert 'rejected its arguments' not in (v.reason or '')
    assert cds.lost(cds.NO_ARCHIVE, run.output) is None  # only a building JVM's failure is read
    building = cds.Plan((), cds.NO_ARCHIVE.finish, building=True)
    assert cds.lost(building, run.output[: run.output.index(b'An error has')]) is None
    told = cds.lost(building, run.output)
    assert told is not None and b'shared archive' not in told
    assert told.rstrip().endswith(b'@!@!@ENDMSG 2186 @!@!@')
    assert finished_exit_code(told) == 12
    assert classify(12, told, 1.0, job.config_text.decode()).property == 'XBelowTwo'


@pytest.mark.tlc  # the fixture jobs' runs, when no test of the run has asked for them yet
def test_no_exit_code_is_read_back_from_an_unfinished_or_mixed_output(env, tmp_path_factory):
    # TLC's own output of the passing fixture job: that of its run in a JVM of its own, run once
    # for the test run (job_test.own_jvm_outputs, which job_test's own tests read), not of a JVM
    # started again here for the same job.
    output = own_jvm_outputs(tmp_path_factory)['pass']
    assert finished_exit_code(output) == 0
    cut = output[: output.index(b'@!@!@STARTMSG 2186')]
    assert finished_exit_code(cut) is None  # TLC did not say it finished
    violation = (
        b'@!@!@STARTMSG 2110:1 @!@!@\nInvariant TypeOK is violated.\n@!@!@ENDMSG 2110 @!@!@\n'
    )
    deadlock = b'@!@!@STARTMSG 2114:1 @!@!@\nDeadlock reached.\n@!@!@ENDMSG 2114 @!@!@\n'
    assert finished_exit_code(violation + output) == 12
    assert finished_exit_code(violation + deadlock + output) is None  # two kinds: unknown


# -- the helper's compile -------------------------------------------------------------------------


def _java_jar() -> tuple[Path, Path]:
    java = Path(needs.java())
    if spare_helper._javac(java, from_environ()) is None:
        needs.missing(f'no javac beside {java}: the helper is never compiled there')
    return java, needs.tla_jar()


SLOW_JAVAC = textwrap.dedent("""\
    #!{python}
    import os, sys, time
    time.sleep({delay})
    os.execv({javac!r}, [{javac!r}, *sys.argv[1:]])
""")


def _slow_javac(tmp_path: Path, delay: float) -> Path:
    """The real javac, started late, so that a stop lands while it runs (it execs javac: the same
    process, named by the same command line)."""
    real = spare_helper._javac(Path(needs.java()), from_environ())
    script = tmp_path / 'slow-javac'
    script.write_text(SLOW_JAVAC.format(python=sys.executable, javac=str(real), delay=delay))
    script.chmod(0o755)
    return script


def _wait_for_work(folder: Path) -> Path:
    def found() -> list[Path]:
        return (
            [p for p in folder.iterdir() if p.name.startswith('.spare-')] if folder.exists() else []
        )

    return wait.until(found, 'a compile to start', timeout=60)[0]


@pytest.mark.tlc
def test_a_compile_the_disk_cannot_hold_leaves_one_note_and_nothing_else(env, monkeypatch):
    java, jar = _java_jar()
    with file_size_limit(4096):  # the helper's class (13 KB) cannot be written: javac fails
        assert spare_helper.compile_helper(java, jar, from_environ()) is None
        assert (
            spare_helper.compile_helper(java, jar, from_environ()) is None
        )  # not tried again in this process
    [said] = housekeeping.drain()
    assert said.startswith(
        f'the warm-JVM helper could not be compiled into {env / "jvm"} (javac said: '
    )
    assert 'EXECLEASE_JVM_SPARE=0' in said
    assert sorted(p.name for p in (env / 'jvm').iterdir()) == []
    # Each job then runs in a JVM of its own, with its verdict (the class-data archive, which
    # its first job would build here, is not what this test is about).
    monkeypatch.setenv('EXECLEASE_JVM_CDS', '0')
    job = make_job(java, jar, 'invariant')
    spare.expect([_spare_key(job)] * 2)  # a plan that would keep a spare for the next job
    assert run_job(job).property == 'XBelowTwo'
    assert not any(spare._idle.values())


@pytest.mark.tlc
def test_callers_racing_for_the_helper_share_one_javac(env, monkeypatch):
    java, jar = _java_jar()
    compiles: list[Path] = []
    compile_ = spare_helper._compile

    def compile_once(javac, target):
        compiles.append(target)
        return compile_(javac, target)

    monkeypatch.setattr(spare_helper, '_compile', compile_once)
    found: list[Path | None] = []
    threads = [
        threading.Thread(
            target=lambda: found.append(spare_helper.compile_helper(java, jar, from_environ()))
        )
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(compiles) == 1 and len(set(found)) == 1 and found[0] is not None
    assert (found[0] / 'ExecleaseTlcSpare.class').is_file()
    assert [p.name for p in (env / 'jvm').iterdir()] == [found[0].name]


@pytest.mark.tlc
def test_a_race_lost_to_another_run_removes_its_work(env, monkeypatch, tmp_path_factory):
    from tests.tlc.spare_test import compiled_helper  # that module imports job_test as this does

    java, jar = _java_jar()
    found = spare_helper.helper_folder(java, jar, from_environ())
    assert found is not None
    target = found
    other = target.parent / 'other-run'
    # The other run's compiled helper: the one compiled once for the test run, copied (a javac
    # of the other run's own would compile the same class; this test's own javac is the race).
    [compiled] = compiled_helper(tmp_path_factory).glob('spare-*')
    assert compiled.name == target.name
    shutil.copytree(compiled, other)
    assert (other / f'{spare_helper.MAIN}.class').is_file()

    class PlacedMeanwhile(subprocess.Popen):
        """The real javac; as it ends, another run places its helper first."""

        def communicate(self, *a, **k):
            said = super().communicate(*a, **k)
            if not target.exists():
                other.rename(target)
            return said

    monkeypatch.setattr(subprocess, 'Popen', PlacedMeanwhile)
    assert spare_helper.compile_helper(java, jar, from_environ()) == target
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]


def _wait_for_process_naming(folder: Path) -> None:
    """The work folder is made before javac starts: on a loaded machine the process comes later."""
    wait.until(lambda: _processes_naming(folder), f'a process naming {folder}', timeout=60)


@pytest.mark.tlc  # it probes the Java whose javac it stops (java -version)
def test_ctrl_c_during_the_compile_stops_javac_and_removes_its_work(env, tmp_path, monkeypatch):
    java, jar = _java_jar()
    monkeypatch.setenv('EXECLEASE_JAVAC', str(_slow_javac(tmp_path, 30)))
    found: list[Path | None] = []
    worker = threading.Thread(
        target=lambda: found.append(spare_helper.compile_helper(java, jar, from_environ()))
    )
    worker.start()
    work = _wait_for_work(env / 'jvm')
    _wait_for_process_naming(work)
    procs.cancel_all()
    try:
        worker.join(timeout=10)
        assert not worker.is_alive() and found == [None]
    finally:
        procs.reset_cancel()
    assert _leftovers(env / 'jvm') == [] and _processes_naming(work) == []
    assert housekeeping.drain() == []  # nothing failed: it was stopped


CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from execlease_hook.tlc import spare_helper
    from execlease_hook.core.settings import from_environ
    spare_helper.EXIT_WAIT = float(sys.argv[3])
    spare_helper.ready(Path(sys.argv[1]), Path(sys.argv[2]), from_environ())
    folder = Path(sys.argv[4])
    while not (folder.exists() and any(p.name.startswith('.spare-') for p in folder.iterdir())):
        time.sleep(0.02)
    print('compiling', flush=True)
    if sys.argv[5] == 'hang':
        time.sleep(600)
""")


def _child(env: Path, exit_wait: float, then: str) -> subprocess.Popen[str]:
    java, jar = _java_jar()
    proc = subprocess.Popen(
        (sys.executable, '-c', CHILD, str(java), str(jar), str(exit_wait), str(env / 'jvm'), then),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stdout is not None and proc.stdout.readline() == 'compiling\n'
    return proc


def _ended(child: subprocess.Popen[str], timeout: float) -> int:
    """The child's exit code, its output read to the end and its pipe closed."""
    child.communicate(timeout=timeout)
    return child.returncode


@pytest.mark.tlc
def test_a_process_ending_during_the_compile_leaves_nothing(env, tmp_path, monkeypatch):
    monkeypatch.setenv('EXECLEASE_JAVAC', str(_slow_javac(tmp_path, 30)))
    child = _child(env, 0.5, 'exit')  # its javac is still sleeping after the wait: stopped
    assert _ended(child, 60) == 0
    assert sorted(p.name for p in (env / 'jvm').iterdir()) == []
    assert _processes_naming(env / 'jvm') == []


@pytest.mark.tlc
def test_a_process_ending_during_the_compile_gives_it_time_to_finish(env, tmp_path, monkeypatch):
    monkeypatch.setenv('EXECLEASE_JAVAC', str(_slow_javac(tmp_path, 1)))
    # The wait is what is tested, not its length: a loaded machine's javac may take longer than
    # EXIT_WAIT's 10 s, so the child waits up to a minute.
    child = _child(env, 60.0, 'exit')
    assert _ended(child, 120) == 0
    [helper] = (env / 'jvm').iterdir()  # a short run keeps what it compiled
    assert helper.name.startswith('spare-') and (helper / 'ExecleaseTlcSpare.class').is_file()
    assert _processes_naming(env / 'jvm') == []


@pytest.mark.tlc
def test_a_process_killed_during_the_compile_is_swept_by_the_next(env, tmp_path, monkeypatch):
    java, jar = _java_jar()
    # Late enough that its javac still runs when the check below looks, on a loaded machine too.
    monkeypatch.setenv('EXECLEASE_JAVAC', str(_slow_javac(tmp_path, 10)))
    child = _child(env, 0.0, 'hang')
    work = _wait_for_work(env / 'jvm')
    # Killed once its javac runs and is recorded in the folder's mark (on a loaded machine the
    # folder comes well before the javac): the case the sweep is for.
    mark = work / scratch.MARK
    wait.until(
        lambda: mark.is_file() and mark.read_text().strip(),
        'the compile to record its javac',
        timeout=60,
    )
    child.send_signal(signal.SIGKILL)
    assert _ended(child, 30) == -signal.SIGKILL
    # Its javac may run on and write there (on a loaded machine it may also have ended already):
    # either way the next run's sweep must leave neither the folder nor a process naming it.
    assert work.exists()
    # An unmarked work folder of an execlease before the marks: swept once older than any compile.
    old, new = env / 'jvm' / '.spare-old.abc', env / 'jvm' / '.spare-new.def'
    old.mkdir()
    new.mkdir()
    os.utime(old, (time.time() - spare_helper.COMPILE_TIMEOUT - 60,) * 2)
    sweep(jar, from_environ())
    assert not work.exists() and not old.exists() and new.exists()
    # No process names the folder: none is left that could make it again (a javac names its
    # output folder on its command line).
    assert _processes_naming(work) == []


# -- a job folder that cannot be written ----------------------------------------------------------


@pytest.mark.tlc  # the real Java: the first test of a process to read it probes it (a JVM)
def test_a_job_whose_files_cannot_be_written_is_an_error_naming_the_folder(env):
    job = make_job(Path(needs.java()), needs.tla_jar(), 'pass')
    with file_size_limit(64):  # the spec (1 KB) cannot be copied into the job's folder
        v = run_job(job)
    assert v.outcome == 'error' and v.exit_code is None
    assert (v.reason or '').startswith(f"could not write the job's files in {env / 'tmp'}")
    assert 'free disk space in' in (v.reason or '') and 'TMPDIR' in (v.reason or '')
    assert list((env / 'tmp').iterdir()) == []
    assert not [k for k in scratch._held if k.startswith(str(env))]  # no mark left locked
