"""Every wait has a deadline, every number a range, and SIGTERM / SIGHUP clean up like Ctrl-C.

The download faults come from a local server (127.0.0.1): a real mirror cannot be made to trickle
or to stream forever on demand. Everything else is real: the processes, the lock, TLC and Java.
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlease_hook.tlc import jar
from tests import needs, wait
from tests.conftest import git_env

EXECLEASE = Path(sys.executable).parent / 'execlease'


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    stop: threading.Event


class Handler(http.server.BaseHTTPRequestHandler):
    server: Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == '/trickle':
            # Announces a jar's size, then sends one byte every 0.2 s: every read succeeds well
            # within any read timeout, and the whole would take days.
            self.send_response(200)
            self.send_header('Content-Length', str(jar.MAX_JAR_BYTES))
            self.end_headers()
            while not self.server.stop.wait(0.2):
                self.wfile.write(b'x')
                self.wfile.flush()
        elif self.path == '/endless':
            # No length, and no end: a body larger than any pinned jar.
            self.send_response(200)
            self.end_headers()
            chunk = b'\0' * (1 << 16)
            while not self.server.stop.is_set():
                self.wfile.write(chunk)
        elif self.path == '/huge':
            self.send_response(200)
            self.send_header('Content-Length', str(10**12))
            self.end_headers()
        else:
            self.send_error(404)


@pytest.fixture(scope='module')
def server() -> Iterator[Server]:
    srv = Server(('127.0.0.1', 0), Handler)
    srv.stop = threading.Event()
    # shutdown() returns at serve_forever's next poll (half a second by default)
    threading.Thread(target=srv.serve_forever, kwargs={'poll_interval': 0.01}, daemon=True).start()
    yield srv
    srv.stop.set()
    srv.shutdown()
    srv.server_close()  # the listening socket too: left open, it warns


def url(server: Server, path: str) -> str:
    return f'http://127.0.0.1:{server.server_address[1]}{path}'


def execlease(
    repo: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in git_env().items() if not k.startswith('EXECLEASE_')}
    full.update(env or {})
    return subprocess.run(
        (str(EXECLEASE), *args), cwd=repo, env=full, capture_output=True, text=True, timeout=timeout
    )


# --- downloads ---------------------------------------------------------------------------------


@pytest.mark.tlc
@pytest.mark.parametrize(
    ('path', 'message'),
    [
        ('/trickle', 'did not finish within EXECLEASE_TLA_DOWNLOAD_DEADLINE seconds'),
        ('/endless', 'more than any pinned jar'),
        ('/huge', 'announces 1000000000000 bytes'),
    ],
    ids=['trickle', 'endless', 'huge-length'],
)
def test_a_download_has_a_total_deadline_and_a_size_bound(git_repo, server, path, message):
    proc = execlease(
        git_repo.path,
        'tools',
        env={  # its timeout= is the hang guard; no time asserted
            'EXECLEASE_TLA_URL': url(server, path),
            'EXECLEASE_TLA_DOWNLOAD_DEADLINE': '3',
            'EXECLEASE_TLA_READ_TIMEOUT': '2',
            'EXECLEASE_TLA_RETRIES': '3',
        },
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert sorted(p.name for p in (git_repo.path / '.tmp/tla').iterdir()) == ['lock']  # no .part


def hold_lock(folder: Path) -> subprocess.Popen[str]:
    """Another process holding the TLA+ tools lock and stalled (it never lets go)."""
    folder.mkdir(parents=True, exist_ok=True)
    code = (
        'import fcntl, os, sys, time\n'
        f'f = open({str(folder / "lock")!r}, "a+b")\n'
        'fcntl.flock(f.fileno(), fcntl.LOCK_EX)\n'
        'f.truncate(0); f.write(str(os.getpid()).encode()); f.flush()\n'
        'print("locked", flush=True)\n'
        'time.sleep(600)\n'
    )
    proc = subprocess.Popen((sys.executable, '-c', code), stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == 'locked'
    proc.stdout.close()  # it says no more: left open, the pipe warns when collected
    return proc


@pytest.mark.tlc
def test_a_stalled_lock_holder_is_not_waited_for_forever(git_repo):
    needs.tla_jar()
    holder = hold_lock(git_repo.path / '.tmp/tla')
    try:
        proc = execlease(  # the holder never lets go: any wait is reached, a short one soonest
            git_repo.path,
            'tools',
            env={'EXECLEASE_TLA_OFFLINE': '1', 'EXECLEASE_TLA_LOCK_TIMEOUT': '0.5'},
        )
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 2
    assert (
        f'another execlease (pid {holder.pid}) has held the TLA+ tools lock for more than 0.5 s'
        in proc.stderr
    )


@pytest.mark.tlc
def test_a_cached_jar_is_used_while_another_run_holds_the_lock(git_repo):
    needs.tla_jar()
    assert execlease(git_repo.path, 'tools', env={'EXECLEASE_TLA_OFFLINE': '1'}).returncode == 0
    holder = hold_lock(git_repo.path / '.tmp/tla')
    try:
        proc = execlease(
            git_repo.path,
            'tools',
            env={'EXECLEASE_TLA_OFFLINE': '1', 'EXECLEASE_TLA_LOCK_TIMEOUT': '2'},
        )
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 0, proc.stderr
    assert 'source:  cache' in proc.stdout


@pytest.mark.tlc
def test_stale_part_files_are_removed_on_the_next_run(git_repo):
    needs.tla_jar()
    folder = git_repo.path / '.tmp/tla'
    folder.mkdir(parents=True)
    for name in ('download-abc123.part', 'copy-def456.part'):
        (folder / name).write_bytes(b'left by a run killed mid-download')
    proc = execlease(git_repo.path, 'tools', env={'EXECLEASE_TLA_OFFLINE': '1'})
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in folder.iterdir()) == ['lock', 'tla2tools.jar']


# --- numbers -----------------------------------------------------------------------------------

BAD_NUMBERS = ['nan', 'inf', '-inf', '-1', '0', '1e400', 'soon']


@pytest.mark.tlc
@pytest.mark.parametrize(
    'variable',
    [
        'EXECLEASE_TLA_CONNECT_TIMEOUT',
        'EXECLEASE_TLA_READ_TIMEOUT',
        'EXECLEASE_TLA_DOWNLOAD_DEADLINE',
    ],
)
@pytest.mark.parametrize('value', BAD_NUMBERS)
def test_download_settings_are_validated(git_repo, server, variable, value):
    proc = execlease(
        git_repo.path, 'tools', env={'EXECLEASE_TLA_URL': url(server, '/huge'), variable: value}
    )
    assert proc.returncode == 2
    assert f'{variable}={value!r}' in proc.stderr and 'Traceback' not in proc.stderr


@pytest.mark.parametrize(
    ('variable', 'value'),
    [('EXECLEASE_TLC_TIMEOUT', v) for v in BAD_NUMBERS]
    + [('EXECLEASE_TLC_WORKERS', v) for v in ('0', '-1', 'nan', '1.5', '99999999999', '٣')]
    + [('EXECLEASE_TLA_RETRIES', v) for v in ('0', 'nan', '1e9')]
    + [('EXECLEASE_TLA_LOCK_TIMEOUT', v) for v in ('nan', 'inf', '-5')],
)
def test_run_settings_are_validated(monkeypatch, variable, value):
    # Before, NaN and inf parsed as floats and a NaN timeout silently meant "no timeout".
    from execlease_hook.core import settings

    monkeypatch.setenv(variable, value)
    with pytest.raises(Exception) as caught:
        settings.from_environ()
    assert type(caught.value).__name__ == 'CannotRun'
    assert f'{variable}={value!r}' in str(caught.value)


@pytest.mark.parametrize('raw', ['NaN', 'Infinity', '-Infinity', '-1', '0', '1e400', '1e9', '"60"'])
def test_manifest_timeouts_are_validated(git_repo, raw):
    from execlease_hook.manifest import read as manifest_read

    git_repo.write('m/Spec.tla', '---- MODULE Spec ----\n====\n')
    git_repo.write('m/Spec.cfg', '')
    text = (
        '{"version": 1, "spec": "Spec.tla", "checks": [{"name": "main", "config": "Spec.cfg", '
        f'"timeout": {raw}}}], "coverage": {{"entries": []}}}}'
    )
    with pytest.raises(Exception) as caught:
        manifest_read.parse(text, git_repo.path / 'm' / 'manifest.json', git_repo.path)
    assert type(caught.value).__name__ == 'CannotRun'
    assert 'checks[0].timeout: expected a number of seconds > 0 and at most 604800' in str(
        caught.value
    )


# --- signals -----------------------------------------------------------------------------------

ENDLESS = """---- MODULE Endless ----
EXTENDS Naturals
VARIABLES a, b, c
Init == a = 0 /\\ b = 0 /\\ c = 0
Next == \\/ a' = (a + 1) % 1000 /\\ UNCHANGED <<b, c>>
        \\/ b' = (b + 1) % 1000 /\\ UNCHANGED <<a, c>>
        \\/ c' = (c + 1) % 1000 /\\ UNCHANGED <<a, b>>
====
"""


def tlc_processes(marker: str) -> list[int]:
    """Live processes whose command line names `marker` (the private temp folder)."""
    found = []
    for entry in Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / 'cmdline').read_bytes()
            state = (entry / 'stat').read_text().split(') ', 1)[1][:1]
        except OSError:
            continue
        if marker.encode() in cmdline and state != 'Z':
            found.append(int(entry.name))
    return found


@pytest.mark.tlc
@pytest.mark.parametrize(
    ('signum', 'code', 'name'),
    [
        (signal.SIGTERM, 143, 'SIGTERM'),
        (signal.SIGHUP, 129, 'SIGHUP'),
    ],
    ids=['sigterm', 'sighup'],
)
def test_a_signal_stops_every_tlc_and_cleans_up(git_repo, tmp_path, signum, code, name):
    needs.java()
    needs.tla_jar()
    temp = tmp_path / 'private-tmp'
    temp.mkdir()
    git_repo.write('verification/endless/Endless.tla', ENDLESS)
    git_repo.write('verification/endless/Endless.cfg', 'INIT Init\nNEXT Next\n')
    git_repo.write(
        'verification/endless/manifest.json',
        json.dumps(
            {
                'version': 1,
                'spec': 'Endless.tla',
                'checks': [
                    {'name': 'one', 'config': 'Endless.cfg'},
                    # Two distinct jobs (a run starts one TLC per distinct job): deadlock
                    # checking is on by default, so the second switches it off.
                    {'name': 'two', 'config': 'Endless.cfg', 'deadlock': False},
                ],
                'coverage': {'entries': []},
            }
        ),
    )
    out = tmp_path / 'out.json'
    env = {k: v for k, v in git_env().items() if not k.startswith('EXECLEASE_')}
    env.update({'EXECLEASE_TLA_OFFLINE': '1', 'TMPDIR': str(temp)})
    proc = subprocess.Popen(
        (str(EXECLEASE), 'verify', '--quick', '--no-cache', '--jobs', '2', '--json', str(out)),
        cwd=git_repo.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # TLC makes its -metadir's dated folder as it starts: both are running TLC. Waited for
        # first: a glob of one folder, where a look for the processes reads every process's
        # command line in /proc, 50 times a second while the JVMs start (CPU the run shares).
        wait.until(lambda: len(list(temp.glob('*/meta/*'))) >= 2, 'both TLC runs to start checking')
        wait.until(lambda: len(tlc_processes(str(temp))) >= 2, 'both TLC processes to start')
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()  # reaped and its pipes closed, not left to another test's warning
            for pid in tlc_processes(str(temp)):  # its TLC JVMs, each in a group of its own
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == code, stdout + stderr
    assert f'execlease verify: terminated ({name})' in stderr
    assert tlc_processes(str(temp)) == []
    assert [p.name for p in temp.iterdir()] == []
    data = json.loads(out.read_text())
    assert data['exit_code'] == code and data['error'] == f'terminated ({name})'
    assert 'PASSED' not in stdout


def test_ctrl_c_still_exits_130(git_repo):
    from execlease_hook.core import signals

    assert signals.interrupted(KeyboardInterrupt()) == ('interrupted (Ctrl-C)', 130)
    assert signals.interrupted(signals.Terminated(signal.SIGTERM)) == ('terminated (SIGTERM)', 143)
