from __future__ import annotations

import os
import signal
import subprocess
import types

import pytest

from execlease_hook.core import procs

# A leader and a child of it: stopping must kill the whole group, not only the leader.
GROUP = ('sh', '-c', 'sleep 60 & echo started; wait')


def _started(popen_started: list[subprocess.Popen[bytes]], monkeypatch) -> None:
    """Ctrl-C lands right after the process starts, before it is registered."""

    def popen(*args, **kwargs):
        proc = subprocess.Popen(*args, **kwargs)
        popen_started.append(proc)
        procs.cancel_all()
        return proc

    monkeypatch.setattr(
        procs, 'subprocess', types.SimpleNamespace(**{**vars(subprocess), 'Popen': popen})
    )


def test_cancel_all_kills_every_live_group_runs_the_hooks_once_and_refuses_until_reset():
    calls = []

    def hook() -> None:
        calls.append(1)

    procs.on_cancel(hook)
    procs.on_cancel(hook)
    a, b, gone = (procs.start(GROUP, stdout=subprocess.DEVNULL) for _ in range(3))
    procs.forget(gone)
    try:
        assert not procs.cancelled()
        procs.cancel_all()
        assert procs.cancelled()
        assert a.wait(10) == -9 and b.wait(10) == -9
        assert gone.poll() is None  # unregistered: not this run's to stop
        assert calls == [1]
        with pytest.raises(KeyboardInterrupt):
            procs.start(('true',))
    finally:
        procs.reset_cancel()
        procs.stop(gone)
        procs.stop(a)
        procs.stop(b)
        procs._hooks.remove(hook)
    assert not procs.cancelled() and not procs._live


def test_stopping_a_group_kills_its_children_and_one_that_is_gone_is_no_error():
    proc = procs.start(GROUP)
    assert proc.stdout is not None and proc.stdout.readline() == b'started\n'
    procs.stop(proc)
    assert proc.returncode == -9 and not procs._live
    with proc.stdout:
        assert proc.stdout.read() == b''  # the pipe is closed: the sleeping child is gone too
    procs.stop(proc)


def test_cancel_all_leaves_alone_the_id_of_a_group_it_has_reaped():
    """A process that ended and was reaped, but is not yet unregistered (its owner does that
    next): its id may be another process's by then, a group leader of its own, which Ctrl-C
    must not kill. The reuse is played by giving the reaped process the id of a live one; that
    one is then ended by a signal of the test's own, and the signal it died of says whose came
    first (a kill is pending from the moment it is sent)."""
    done = procs.start(('true',), stdout=subprocess.DEVNULL)
    done.wait(10)
    other = subprocess.Popen(('sleep', '60'), start_new_session=True)
    own, done.pid = done.pid, other.pid  # as when the ids wrapped around since it was reaped
    try:
        procs.cancel_all()
        other.terminate()
        assert other.wait(10) == -signal.SIGTERM
    finally:
        procs.reset_cancel()
        done.pid = own  # the key it was registered under
        procs.forget(done)
        other.kill()
        other.wait()


def test_a_group_started_as_cancel_all_lands_is_killed_and_the_caller_stopped(monkeypatch):
    started: list[subprocess.Popen[bytes]] = []
    _started(started, monkeypatch)
    try:
        with pytest.raises(KeyboardInterrupt):
            procs.start(GROUP, stdout=subprocess.DEVNULL)
    finally:
        procs.reset_cancel()
    (proc,) = started
    assert proc.returncode == -9 and not procs._live


def test_running_stops_the_group_when_the_block_raises():
    with pytest.raises(ValueError), procs.running(GROUP, stdout=subprocess.DEVNULL) as proc:
        raise ValueError
    assert proc.returncode == -9 and not procs._live


@pytest.mark.parametrize(
    ('argv', 'timeout', 'expected'),
    [
        (('sh', '-c', 'printf out; printf err >&2; exit 3'), 30.0, (3, b'outerr')),
        (('sh', '-c', 'printf said; exec sleep 60'), 0.5, (None, b'said')),
        (('sh', '-c', 'kill -TERM $$'), 30.0, (-15, b'')),
    ],
    ids=['exit-code-and-output', 'timeout-stops-it-keeping-its-output', 'signal'],
)
def test_run(argv, timeout, expected):
    assert procs.run(argv, timeout) == expected
    assert not procs._live


def test_run_of_a_missing_program():
    with pytest.raises(FileNotFoundError):
        procs.run(('execlease-no-such-program',), 30.0)
    assert not procs._live


def test_wait_ticks_until_the_end_or_the_deadline():
    ticks: list[int] = []
    ends = iter([False, False, True])
    assert procs.wait(lambda seconds: next(ends), 60.0, lambda: ticks.append(1))
    assert ticks == [1, 1, 1]
    seen: list[float] = []

    def never_ends(seconds: float) -> bool:
        seen.append(seconds)
        return False

    assert not procs.wait(never_ends, 0.0)
    assert seen == [0.0]


def test_alive():
    gone = subprocess.Popen(('true',))
    gone.wait()
    assert procs.alive(os.getpid()) and not procs.alive(gone.pid)


@pytest.mark.timeout(120)
def test_a_trace_command_started_as_ctrl_c_lands_is_stopped(tmp_path, monkeypatch):
    """As tlc/job_test.py's test for TLC, for a trace command (traces/validation.py): it would
    have run its 600 s to the end."""
    from execlease_hook.traces import validation

    started: list[subprocess.Popen[bytes]] = []
    _started(started, monkeypatch)
    try:
        with pytest.raises(KeyboardInterrupt):
            validation.run_command(('sleep', '600'), tmp_path, tmp_path, 900.0, 'trace job slow')
    finally:
        procs.reset_cancel()
    (proc,) = started
    assert proc.returncode == -9 and not procs._live
