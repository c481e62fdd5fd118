from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from execlease_hook.verify.live import Live
from tests import shared, wait
from tests.conftest import git_env, offline_settings

SLOW = Path(__file__).parents[1] / 'fixtures' / 'progress'
ERASE = '\r\033[K'


class Clock:
    """The time a Live reads: moved by the test, so that what it prints does not depend on how
    busy the machine is."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def ticks(live: Live, clock: Clock, until: float, step: float = 0.25) -> None:
    """What the ticker thread does, at each `step` until `until` (binary fractions: exact)."""
    while clock.now < until:
        clock.now += step
        live.tick()


def test_not_a_terminal_a_plain_line_per_interval_and_none_after_the_end():
    out, clock = io.StringIO(), Clock()
    live = Live(0.5, out, terminal=False, clock=clock, ticking=False)
    job = live.start('check main')
    job.feed('@!@!@STARTMSG 2189:0 @!@!@')
    ticks(live, clock, 0.25)
    assert out.getvalue() == ''  # none in the first interval
    ticks(live, clock, 1.75)
    live.finish(job)
    live.print('  check main: held (1.8 s)')
    ticks(live, clock, 3.0)  # none after the end
    live.close()
    lines = out.getvalue().splitlines()
    assert lines[-1] == '  check main: held (1.8 s)'
    assert len(lines[:-1]) == 3  # one each 0.5 s: at 0.5, 1.0 and 1.5
    assert all(
        re.fullmatch(r'  check main: \d s, computing initial states', line) for line in lines[:-1]
    )
    assert '\033' not in out.getvalue()


def test_not_a_terminal_a_job_that_moved_on_since_its_last_line_gets_one_more_as_it_ends():
    """A check that ends between two plain lines still shows a log its last counts; one that
    did not move on since (the test above) gets none."""
    out, clock = io.StringIO(), Clock()
    live = Live(0.5, out, terminal=False, clock=clock, ticking=False)
    job = live.start('check main')
    for line in (
        '@!@!@STARTMSG 2190:0 @!@!@',
        'Finished computing initial states: 1 distinct state generated at 2026-12-01 19:41:49.',
        '@!@!@ENDMSG 2190 @!@!@',
    ):
        job.feed(line)
    ticks(live, clock, 0.5)
    assert len(out.getvalue().splitlines()) == 1
    for line in (
        '@!@!@STARTMSG 2200:0 @!@!@',
        'Progress(8) at 2026-12-01 19:41:52: 6,901 states generated (6,901 s/min), 3,055 distinct '
        'states found (3,055 ds/min), 0 states left on queue.',
        '@!@!@ENDMSG 2200 @!@!@',
    ):
        job.feed(line)
    clock.now = 0.75
    live.finish(job)  # at once: no tick came between the counts and the end
    live.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2, lines
    assert re.fullmatch(r'  check main: \d s, exploring, 1 distinct state', lines[0])
    assert re.fullmatch(
        r'  check main: \d s, exploring, 3,055 distinct states \([\d,]+/s\), 0 on queue', lines[-1]
    ), lines


def test_showing_finishes_the_job_however_the_block_ends():
    """A job that ends in an exception (Ctrl-C, a bug) leaves no live line behind."""
    out, clock = io.StringIO(), Clock()
    live = Live(0.5, out, terminal=False, clock=clock, ticking=False)
    with pytest.raises(KeyboardInterrupt), live.showing('check main') as job:
        job.feed('@!@!@STARTMSG 2189:0 @!@!@')
        ticks(live, clock, 0.5)
        raise KeyboardInterrupt
    ticks(live, clock, 2.0)  # none after the end: the job was finished
    live.close()
    assert out.getvalue() == '  check main: 0 s, computing initial states\n'


def test_the_ticker_thread_writes_the_plain_lines_on_its_own():
    """The thread a real run has (ticking=True): polled with a deadline, never slept on."""
    out = io.StringIO()
    live = Live(0.05, out, terminal=False)
    job = live.start('check main')
    wait.until(out.getvalue, 'the ticker thread to write a plain line')
    live.finish(job)
    live.close()
    # a busy machine may let the ticker write again before finish: every line is the plain one
    assert re.fullmatch(r'(  check main: \d+ s, starting Java\n)+', out.getvalue()), out.getvalue()


def test_on_a_terminal_the_lines_are_redrawn_in_place_and_erased_at_the_end(monkeypatch):
    monkeypatch.setenv('COLUMNS', '40')
    out, clock = io.StringIO(), Clock()
    live = Live(10.0, out, terminal=True, clock=clock, ticking=False)
    first, second = live.start('check main'), live.start('mutation a-name-that-is-long-enough')
    ticks(live, clock, 1.25)
    live.print('  finding F1: held (0.2 s)')  # a line that stays, above the live ones
    live.finish(first)
    live.finish(second)
    live.close()
    text = out.getvalue()
    drawn = [piece for piece in re.split(r'\r\033\[K|\033\[A|\n', text) if piece]
    assert '  check main: 1 s, starting Java' in drawn
    assert all(len(piece) <= 39 for piece in drawn)  # cut to the width: no wrapped rest
    assert '  finding F1: held (0.2 s)\n' in text
    assert text.endswith(ERASE)  # nothing left on the screen


def _init_slow(folder: Path) -> None:
    """The Slow model and what `execlease init --spec` writes beside it, in a repository of its
    own: the template slow_repo copies."""
    repo = folder / 'repo'
    (repo / 'verification' / 'slow').mkdir(parents=True)
    subprocess.run(('git', 'init', '-q', '-b', 'main'), cwd=repo, env=git_env(), check=True)
    for name in ('Slow.tla', 'Slow.cfg'):
        shutil.copyfile(SLOW / name, repo / 'verification' / 'slow' / name)
    proc = subprocess.run(
        (sys.executable, '-m', 'execlease_hook', 'init', '--spec', 'verification/slow/Slow.tla'),
        cwd=repo,
        env=git_env(),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture
def slow_repo(git_repo, tmp_path_factory):
    """A repository of the test's own holding the Slow model as `execlease init --spec` set it
    up: init is run once for the test run (tests/shared.py, every xdist worker's) and what it
    wrote (the model folder, .gitignore; nothing in .git) is copied into the test's repository,
    which each test may change."""
    template = shared.folder(tmp_path_factory, 'live-slow-repo', _init_slow) / 'repo'
    for entry in template.iterdir():
        if entry.name == '.git':
            continue
        if entry.is_dir():
            shutil.copytree(entry, git_repo.path / entry.name)
        else:
            shutil.copyfile(entry, git_repo.path / entry.name)
    return git_repo


@pytest.fixture
def child_env(jvm_cache, tools_jar) -> dict[str, str]:
    """A child's environment: no COLUMNS (the width is the test's to set), the session's offline
    tools and JVM cache (no download tried, the warm-JVM helper and the archive built once)."""
    environ = {
        k: v for k, v in git_env().items() if k != 'COLUMNS' and not k.startswith('EXECLEASE_')
    }
    return {**environ, **offline_settings(jvm_cache, tools_jar)}


def verify(
    repo, environ: dict[str, str], *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        (sys.executable, '-m', 'execlease_hook', 'verify', '--no-cache', *args),
        cwd=repo.path,
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def quick_repo(slow_repo):
    """slow_repo's model at a size TLC checks at once: starting Java alone outlasts a progress
    interval of 0.05 s, so a run without -q shows progress lines (checked) and -q is judged on
    a run that would have had them, without the minutes of the slow check."""
    cfg = slow_repo.path / 'verification' / 'slow' / 'Slow.cfg'
    cfg.write_text(cfg.read_text().replace('N = 1400', 'N = 20'))
    return slow_repo


@pytest.mark.tlc
def test_a_log_gets_the_state_counts_of_a_long_check_on_stderr_only(quick_repo, child_env):
    # Long for its progress interval: starting Java alone outlasts 0.05 s, so the log gets lines
    # while the check runs, as one of minutes gets them every EXECLEASE_PROGRESS_SECONDS.
    proc = verify(quick_repo, child_env, '--format', 'json', EXECLEASE_PROGRESS_SECONDS='0.05')
    report = json.loads(proc.stdout)  # stdout is the machine format, nothing else
    assert report['models'][0]['jobs'][0]['verdict']['distinct'] == 21 * 21
    live = [
        line
        for line in proc.stderr.splitlines()
        if line.startswith('  check main: ') and not line.startswith('  check main: held')
    ]
    assert live, proc.stderr
    assert all(re.match(r'  check main: \d+ s, ', line) for line in live)
    # TLC 2.15 reports progress about 3 s into the search, then once a minute, and once more as
    # it ends: a check that ends between two lines (this one, and a longer one on a fast machine:
    # seen in CI) gets its counts and rate with the line a job that moved on since its last line
    # gets as it ends.
    assert any(
        re.search(r'(exploring|finishing), [\d,]+ distinct states \([\d,]+/s\)', line)
        for line in live
    ), proc.stderr
    assert all(len(line) <= 80 for line in live)
    assert '\033' not in proc.stderr


@pytest.mark.tlc
def test_quiet_shows_no_progress(quick_repo, child_env):
    shown = verify(quick_repo, child_env, EXECLEASE_PROGRESS_SECONDS='0.05')
    assert any(re.match(r'  check main: \d+ s, ', line) for line in shown.stderr.splitlines()), (
        shown.stderr
    )
    proc = verify(quick_repo, child_env, '-q', EXECLEASE_PROGRESS_SECONDS='0.05')
    assert proc.returncode == shown.returncode, proc.stdout + proc.stderr  # the same verdict
    assert 'check main: ' not in proc.stdout + proc.stderr


def _tlc_jvms(parent: int) -> list[int]:
    """The processes under `parent` (its children, theirs, ...) that run TLC: a job's JVM."""
    children: dict[int, list[int]] = {}
    for entry in Path('/proc').iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / 'stat').read_text().rsplit(') ', 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(children.get(parent, ()))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, ())
        try:
            if b'tlc2.TLC' in Path(f'/proc/{pid}/cmdline').read_bytes().split(bytes(1)):
                found.append(pid)
        except OSError:
            continue
    return found


def _drawn(text: str) -> list[str]:
    """The live lines of check main drawn on the terminal, each piece between two redraws."""
    return [
        piece
        for piece in re.split(r'\r\033\[K|\033\[A|\r?\n', text)
        if piece.startswith('  check main: ')
    ]


@pytest.mark.tlc
def test_a_terminal_gets_one_live_line_per_running_job(slow_repo, child_env):
    # The line is redrawn every second while the job runs. The job's JVM is stopped (SIGSTOP) as
    # soon as it starts and let go once two lines of it have been drawn: the check runs for as
    # long as the test needs it to, whatever the machine's speed, without the CPU a model that
    # lasts seconds of TLC costs (N = 1400: 2 million states, 15 CPU-s). Its size is one that TLC
    # checks in a moment, but the JVM's start alone outlasts the test's 0.02 s polls of it.
    cfg = slow_repo.path / 'verification' / 'slow' / 'Slow.cfg'
    cfg.write_text(cfg.read_text().replace('N = 1400', 'N = 200'))
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        (sys.executable, '-m', 'execlease_hook', 'verify', '--no-cache', '--quick'),
        cwd=slow_repo.path,
        env={**child_env, 'TERM': 'xterm', 'COLUMNS': '60'},
        stdout=subprocess.PIPE,
        stderr=follower,
    )
    os.close(follower)
    chunks: list[bytes] = []

    def read_terminal() -> None:  # all along: a full terminal buffer would stop the child
        try:
            while chunk := os.read(leader, 4096):
                chunks.append(chunk)
        except OSError:  # EIO: the child closed the terminal
            pass

    reader = threading.Thread(target=read_terminal)
    reader.start()
    stopped: list[int] = []

    def two_lines_drawn_while_stopped() -> bool:
        if len(_drawn(b''.join(chunks).decode(errors='replace'))) >= 2:
            return True
        assert proc.poll() is None, 'the run ended before two live lines were drawn'
        if stopped:  # --quick runs one job, and its JVM is held: none other starts until it
            return False  # is let go, so /proc is not walked again at every poll (0.2 CPU-s)
        for pid in _tlc_jvms(proc.pid):
            if pid not in stopped:
                with contextlib.suppress(ProcessLookupError):  # it has just ended
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
        return False

    try:
        wait.until(two_lines_drawn_while_stopped, 'two live lines of the check, its JVM stopped')
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    stdout = proc.communicate(timeout=600)[0].decode()
    reader.join(timeout=60)
    os.close(leader)
    err = b''.join(chunks)
    text = err.decode()
    assert ERASE + '  check main: ' in text
    drawn = _drawn(text)
    assert len(drawn) >= 2 and all(len(piece) <= 59 for piece in drawn)
    assert re.search(r'check +main +passed', stdout) and ERASE not in stdout  # the table, once
    assert all(len(line) <= 60 for line in stdout.splitlines())
