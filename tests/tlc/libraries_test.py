"""tlc/libraries.py: a manifest's library jars fetched from a local HTTP server (good, truncated,
of another sha256), from the cache and from EXECLEASE_LIBRARY_PATH; folders snapshotted; and
what a TlcJob makes of them (argv, cache key, warm-JVM key)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlease_hook.core import scratch
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.tlc import libraries, spare_helper
from execlease_hook.tlc.jar import cache_dir
from execlease_hook.tlc.job import TlcJob, _spare_key, run_job, sweep
from execlease_hook.tlc.kinds import jit_flags
from tests import libraries_support as support
from tests import needs


@pytest.fixture(scope='module')
def lib_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.limits_jar(tmp_path_factory)


@pytest.fixture(scope='module')
def server(lib_jar: Path) -> Iterator[support.Server]:
    other = lib_jar.read_bytes()[:-1] + bytes([lib_jar.read_bytes()[-1] ^ 1])
    yield from support.serve({'Limits.jar': lib_jar.read_bytes(), 'moved/Limits.jar': other})


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    needs.clear_settings(monkeypatch)
    monkeypatch.setenv('EXECLEASE_TLA_READ_TIMEOUT', '2')
    monkeypatch.setenv('EXECLEASE_TLA_RETRIES', '2')
    return monkeypatch


def manifest(root: Path, libs: list[dict[str, str]]):
    return manifest_read.load(support.write_repo(root, libs), root)


def cache_files(root: Path) -> list[str]:
    folder = cache_dir(root) / 'lib'
    return sorted(p.name for p in folder.iterdir() if p.name != 'lock') if folder.exists() else []


def test_a_jar_is_downloaded_once_then_taken_from_the_cache(tmp_path, env, server, lib_jar):
    digest = support.sha256(lib_jar)
    m = manifest(
        tmp_path, [{'url': support.url(server, 'Limits.jar'), 'sha256': digest, 'name': 'Limits'}]
    )
    before = server.requests.count('/Limits.jar')
    first = libraries.of(m, from_environ())
    (jar,) = first.jars
    assert (jar.name, jar.source, jar.sha256) == ('Limits', 'download', digest)
    assert jar.path == cache_dir(tmp_path) / 'lib' / f'{digest}.jar'
    assert jar.path.read_bytes() == lib_jar.read_bytes()
    assert cache_files(tmp_path) == [f'{digest}.jar']
    (again,) = libraries.of(m, from_environ()).jars
    assert again.source == 'cache' and server.requests.count('/Limits.jar') == before + 1


def test_a_tampered_cached_jar_is_fetched_again(tmp_path, env, server, lib_jar, capsys):
    digest = support.sha256(lib_jar)
    m = manifest(tmp_path, [{'url': support.url(server, 'Limits.jar'), 'sha256': digest}])
    (jar,) = libraries.of(m, from_environ()).jars
    jar.path.write_bytes(b'not the pinned jar')
    (again,) = libraries.of(m, from_environ()).jars
    assert again.source == 'download' and again.path.read_bytes() == lib_jar.read_bytes()
    assert f'its sha256 is not {digest}' in capsys.readouterr().err


def test_a_truncated_download_keeps_nothing(tmp_path, env, server, lib_jar):
    m = manifest(
        tmp_path,
        [{'url': support.url(server, 'truncated/Limits.jar'), 'sha256': support.sha256(lib_jar)}],
    )
    with pytest.raises(
        CannotRun,
        match=r'libraries\[0\] \(Limits\.jar\): truncated download from .*'
        r'EXECLEASE_LIBRARY_PATH',
    ):
        libraries.of(m, from_environ())
    assert cache_files(tmp_path) == []


def test_a_jar_of_another_sha256_is_refused_naming_both(tmp_path, env, server, lib_jar):
    """What a rolling release does: the same URL, new bytes. The pin wins, and the message says
    what to do."""
    digest = support.sha256(lib_jar)
    m = manifest(tmp_path, [{'url': support.url(server, 'moved/Limits.jar'), 'sha256': digest}])
    with pytest.raises(CannotRun) as e:
        libraries.of(m, from_environ())
    moved = support.hashlib.sha256(server.files['moved/Limits.jar']).hexdigest()
    message = str(e.value)
    assert f'has sha256 {moved}, but the manifest pins {digest}' in message
    assert (
        'rolling release' in message
        and 'pin a versioned release or a mirror of your own' in message
    )
    assert str(m.path) in message
    assert cache_files(tmp_path) == []


def test_a_missing_jar_is_a_clear_error(tmp_path, env, server):
    m = manifest(tmp_path, [{'url': support.url(server, 'nothing.jar'), 'sha256': 'b' * 64}])
    with pytest.raises(CannotRun, match=r'libraries\[0\] \(nothing\.jar\): HTTP 404'):
        libraries.of(m, from_environ())


def test_offline_without_the_jar_says_how_to_supply_it(tmp_path, env, lib_jar):
    env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    m = manifest(
        tmp_path, [{'url': 'https://example.invalid/Limits.jar', 'sha256': support.sha256(lib_jar)}]
    )
    with pytest.raises(
        CannotRun,
        match=r'downloads are off \(EXECLEASE_TLA_OFFLINE=1\); set '
        r'EXECLEASE_LIBRARY_PATH to a folder holding Limits\.jar',
    ):
        libraries.of(m, from_environ())


def test_the_library_path_offers_a_jar_offline(tmp_path, env, lib_jar):
    env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    (tmp_path / 'empty').mkdir()
    env.setenv('EXECLEASE_LIBRARY_PATH', f'{tmp_path / "empty"}{os.pathsep}{lib_jar.parent}')
    m = manifest(
        tmp_path / 'repo',
        [{'url': 'https://example.invalid/x/Limits.jar', 'sha256': support.sha256(lib_jar)}],
    )
    (jar,) = libraries.of(m, from_environ()).jars
    assert (jar.source, jar.path) == ('EXECLEASE_LIBRARY_PATH', lib_jar.resolve())
    assert cache_files(tmp_path / 'repo') == []
    env.setenv('EXECLEASE_LIBRARY_PATH', str(lib_jar))  # a jar named directly
    assert libraries.of(m, from_environ()).jars[0].path == lib_jar.resolve()


def test_the_library_path_refuses_a_jar_of_the_name_and_another_sha256(tmp_path, env, lib_jar):
    env.setenv('EXECLEASE_LIBRARY_PATH', str(lib_jar.parent))
    m = manifest(
        tmp_path / 'repo', [{'url': 'https://example.invalid/Limits.jar', 'sha256': 'c' * 64}]
    )
    with pytest.raises(
        CannotRun,
        match=rf'Limits\.jar \(from EXECLEASE_LIBRARY_PATH\) has sha256 '
        rf'{support.sha256(lib_jar)}, but the manifest pins {"c" * 64}',
    ):
        libraries.of(m, from_environ())


def test_the_library_path_names_a_place_that_is_not_there(tmp_path, env):
    env.setenv('EXECLEASE_LIBRARY_PATH', str(tmp_path / 'gone'))
    m = manifest(
        tmp_path / 'repo', [{'url': 'https://example.invalid/Limits.jar', 'sha256': 'c' * 64}]
    )
    with pytest.raises(CannotRun, match=r'EXECLEASE_LIBRARY_PATH=.*gone: .*is no file or folder'):
        libraries.of(m, from_environ())


def test_a_folder_is_snapshotted_and_a_new_snapshot_follows_an_edit(tmp_path, env):
    m = manifest(tmp_path, [{'folder': support.LIB}])
    first = libraries.of(m, from_environ())
    (folder,) = first.folders
    assert folder.modules == (('Steps.tla', support.STEPS_TLA.encode()),)
    assert (folder.path / 'Steps.tla').read_text() == support.STEPS_TLA
    assert folder.path != tmp_path / support.LIB
    assert (
        libraries.of(m, from_environ()) == first
    )  # the same modules: the same snapshot (warm JVMs stay keyed)
    (tmp_path / support.LIB / 'Steps.tla').write_text(support.STEPS_TLA.replace('v + 1', '1 + v'))
    edited = libraries.of(m, from_environ())
    assert edited.folders[0].path != folder.path and edited.key_parts() != first.key_parts()
    assert (
        folder.path / 'Steps.tla'
    ).read_text() == support.STEPS_TLA  # the old snapshot is as it was


def test_a_folder_that_is_not_there_or_holds_no_module_stops_the_run(tmp_path, env):
    m = manifest(tmp_path, [{'folder': 'verification/nowhere'}])
    with pytest.raises(
        CannotRun,
        match=r'libraries\[0\] \(verification/nowhere\): .*nowhere is not a folder; create it',
    ):
        libraries.of(m, from_environ())
    (tmp_path / 'verification' / 'empty' / 'sub').mkdir(parents=True)
    (tmp_path / 'verification' / 'empty' / 'sub' / 'Deep.tla').write_text('')
    m = manifest(tmp_path, [{'folder': 'verification/empty'}])
    with pytest.raises(
        CannotRun,
        match=r'empty holds no \.tla module; TLC reads only the modules directly in '
        r'the folder, not in its subfolders',
    ):
        libraries.of(m, from_environ())


def job(**changes) -> TlcJob:
    return dataclasses.replace(
        TlcJob(
            kind='check',
            name='main',
            spec='LCounter.tla',
            spec_text=b'spec',
            config='pass.cfg',
            config_text=b'cfg',
            settings=from_environ(),
        ),
        **changes,
    )


def test_no_libraries_add_nothing_to_the_argv_and_the_keys():
    plain = job()
    assert plain.libraries is libraries.NO_LIBRARIES
    argv = plain.argv(Path('/f'))
    assert '-cp' in argv and argv[argv.index('-cp') + 1] == 'tla2tools.jar'
    assert not any(a.startswith('-DTLA-Library') for a in argv)
    assert _spare_key(plain) == (str(plain.java), *jit_flags('check'), 'tla2tools.jar')


def test_libraries_reach_the_argv_the_cache_key_and_the_warm_jvm_key(tmp_path):
    jar = libraries.LibraryJar('Limits', 'a' * 64, tmp_path / 'a.jar', 'cache')
    folder = libraries.LibraryFolder(
        'verification/lib', tmp_path / 'snap', (('Steps.tla', b'one'),)
    )
    with_both = job(libraries=libraries.Libraries((jar,), (folder,)))
    argv = with_both.argv(tmp_path / 'job')
    assert argv[argv.index('-cp') + 1] == f'tla2tools.jar{os.pathsep}{tmp_path / "a.jar"}'
    assert f'-DTLA-Library={tmp_path / "snap"}' in argv
    assert argv.index(f'-DTLA-Library={tmp_path / "snap"}') < argv.index(
        '-cp'
    )  # a JVM flag: warm JVMs get it
    keys = {
        job().cache_key('s', 17),
        with_both.cache_key('s', 17),
        job(
            libraries=libraries.Libraries((dataclasses.replace(jar, sha256='b' * 64),), (folder,))
        ).cache_key('s', 17),
        job(
            libraries=libraries.Libraries(
                (jar,), (dataclasses.replace(folder, modules=(('Steps.tla', b'two'),)),)
            )
        ).cache_key('s', 17),
        job(libraries=libraries.Libraries((), (folder,))).cache_key('s', 17),
    }
    assert len(keys) == 5
    spare_keys = {
        _spare_key(job()),
        _spare_key(with_both),
        _spare_key(job(libraries=libraries.Libraries((jar,), ()))),
    }
    assert len(spare_keys) == 3


@pytest.mark.tlc
def test_a_warm_jvm_runs_jobs_with_the_libraries_as_a_jvm_of_their_own(
    tmp_path, tmp_path_factory, env, lib_jar
):
    from execlease_hook.tlc import spare
    from tests.tlc.spare_test import compiled_helper

    # The helper compiled already (its compile is spare_test.py's); no archive, as asserted below.
    shutil.copytree(compiled_helper(tmp_path_factory), tmp_path / 'jvm-cache')
    env.setenv('EXECLEASE_JVM_CACHE', str(tmp_path / 'jvm-cache'))
    env.setenv('EXECLEASE_LIBRARY_PATH', str(lib_jar.parent))
    env.setattr(spare_helper, '_helpers', {})
    spare.discard_all()
    m = manifest(
        tmp_path / 'repo',
        [
            {'url': 'https://example.invalid/Limits.jar', 'sha256': support.sha256(lib_jar)},
            {'folder': support.LIB},
        ],
    )
    job = TlcJob(
        kind='mutation',
        name='main',
        spec='LCounter.tla',
        spec_text=support.SPEC_TLA.encode(),
        config='pass.cfg',
        config_text=support.PASS_CFG.encode(),
        java=Path(needs.java()),
        jar=needs.tla_jar(),
        deadlock=True,
        libraries=libraries.of(m, from_environ()),
        settings=from_environ(),
    )
    if spare_helper.compile_helper(job.java, job.jar, from_environ()) is None:
        needs.missing('no javac beside java: no warm JVMs')
    served: list[tuple[str, ...]] = []
    take = spare.take

    def recording_take(jvm):
        found = take(jvm)
        if found is not None:
            served.append(jvm.key)
        return found

    env.setattr(spare, 'take', recording_take)
    spare.expect([_spare_key(job)] * 5)  # a plan of the five jobs below, none started ahead
    try:
        own = run_job(job)  # builds no class-data archive (library jars): runs in a JVM of its own
        assert (own.outcome, own.distinct) == ('passed', 8), own
        assert not list((tmp_path / 'jvm-cache').glob('*.jsa')), (
            'a job with library jars built the archive'
        )
        for _ in range(4):
            verdict = run_job(job)
            assert (verdict.outcome, verdict.distinct) == ('passed', 8), verdict
            if served:
                break
        assert served == [_spare_key(job)]
        assert str(lib_jar.resolve()) in served[0]
    finally:
        spare.discard_all()


# A run that snapshots the library folder of the manifest argv[1] (repository argv[2]), says
# where, and waits to be killed.
SNAPSHOTTER = """
import sys, time
from pathlib import Path
from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read
from execlease_hook.tlc import libraries
(folder,) = libraries.of(read.load(Path(sys.argv[1]), Path(sys.argv[2])), from_environ()).folders
print(folder.path, flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(scratch.fcntl is None, reason='no flock: folders are never swept here')
def test_a_killed_runs_snapshot_goes_with_the_next_runs_sweep(tmp_path, env):
    """A snapshot outlives a run killed with SIGKILL (no atexit ran); the next run's sweep of
    dead runs' leftovers removes it, and never a live run's."""
    temp = tmp_path / 'temp'
    temp.mkdir()
    env.setattr(tempfile, 'tempdir', str(temp))  # the sweep's, and the child's (TMPDIR)
    env.setenv('EXECLEASE_JVM_CACHE', str(tmp_path / 'jvm-cache'))
    path = support.write_repo(tmp_path / 'repo', [{'folder': support.LIB}])
    run = subprocess.Popen(
        (sys.executable, '-c', SNAPSHOTTER, str(path), str(tmp_path / 'repo')),
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, 'TMPDIR': str(temp)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert run.stdout is not None
        snapshot = Path(run.stdout.readline().strip())
        run.stdout.close()
        assert snapshot.parent == temp and (snapshot / 'Steps.tla').read_text() == support.STEPS_TLA
        sweep(needs.tla_jar(), from_environ())
        assert snapshot.is_dir()  # its run lives
        run.send_signal(signal.SIGKILL)
        assert run.wait(timeout=30) == -signal.SIGKILL
        assert snapshot.is_dir()  # nothing of the killed run removed it
        sweep(needs.tla_jar(), from_environ())
        assert not snapshot.exists()
    finally:
        run.kill()
        run.wait()
