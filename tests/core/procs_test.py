from __future__ import annotations

import subprocess
import sys

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
        assert gone.poll() is None      # removed: not this run's to stop
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
