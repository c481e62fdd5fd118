from __future__ import annotations

import subprocess
import sys

import pytest

from execlease_hook.core import procs


def _group() -> subprocess.Popen[bytes]:
    # A leader and a child of it: cancel_all must kill the whole group, not only the leader.
    code = 'import subprocess, time; subprocess.Popen(["sleep", "60"]); time.sleep(60)'
    return subprocess.Popen((sys.executable, '-c', code), start_new_session=True)


def test_cancel_all_kills_every_live_group_runs_the_hooks_once_and_refuses_until_reset():
    calls = []

    def hook() -> None:
        calls.append(1)

    procs.on_cancel(hook)
    procs.on_cancel(hook)
    a, b, gone = _group(), _group(), _group()
    procs.add(a)
    procs.add(b)
    procs.add(gone)
    procs.remove(gone)
    try:
        assert not procs.cancelled()
        procs.cancel_all()
        assert procs.cancelled()
        assert a.wait(10) == -9 and b.wait(10) == -9
        assert gone.poll() is None  # removed: not this run's to stop
        assert calls == [1]
    finally:
        procs.reset_cancel()
        procs.kill_group(gone)
        gone.wait(10)
        procs.remove(a)
        procs.remove(b)
        procs._hooks.remove(hook)
    assert not procs.cancelled()


def test_killing_a_group_that_is_gone_is_no_error():
    proc = subprocess.Popen(('true',), start_new_session=True)
    proc.wait(10)
    procs.kill_group(proc)


def test_a_group_added_after_cancel_all_is_killed_and_the_caller_stopped():
    """Ctrl-C between a caller's look at `cancelled` and its add: the add kills the group."""
    procs.cancel_all()
    proc = _group()
    try:
        with pytest.raises(KeyboardInterrupt):
            procs.add(proc)
        assert proc.wait(10) == -9
    finally:
        procs.reset_cancel()
        procs.remove(proc)
        procs.kill_group(proc)
        proc.wait(10)


@pytest.mark.timeout(120)
def test_a_trace_command_started_as_ctrl_c_lands_is_stopped(tmp_path, monkeypatch):
    """As tlc/run_test.py's test for TLC, for a trace command (traces/run.py): it would have run
    its 600 s to the end."""
    import types

    from execlease_hook.traces import run as traces

    started: list[subprocess.Popen[bytes]] = []

    def popen(*args, **kwargs):
        proc = subprocess.Popen(*args, **kwargs)
        started.append(proc)
        procs.cancel_all()
        return proc

    monkeypatch.setattr(
        traces, 'subprocess', types.SimpleNamespace(**{**vars(subprocess), 'Popen': popen})
    )
    try:
        with pytest.raises(KeyboardInterrupt):
            traces.run_command(('sleep', '600'), tmp_path, tmp_path, 900.0, 'trace job slow')
    finally:
        procs.reset_cancel()
    (proc,) = started
    assert proc.returncode == -9 and not procs._live
