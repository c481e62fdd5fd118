"""The live process groups of a run, in one registry: TLC jobs, warm JVMs, trace commands.

Ctrl-C (or SIGTERM, SIGHUP: core/signals.py) reaches the main thread; `cancel_all` there kills
every group that is running and makes every later start refuse (`cancelled`), so no job of the
pool starts after the run was stopped. A group started between a caller's last look at
`cancelled` and its `add` (Ctrl-C landing while a pool thread starts TLC) is killed by `add`
itself, which then raises KeyboardInterrupt: without that, such a TLC ran on unseen until its
job's timeout, and the run could not exit before it. What else holds processes (the warm JVMs kept between
jobs) adds its own stop with `on_cancel`. `reset_cancel` opens the registry for a new run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable

_live: dict[int, subprocess.Popen[bytes]] = {}
_lock = threading.Lock()
_cancelled = threading.Event()
_hooks: list[Callable[[], None]] = []


def add(proc: subprocess.Popen[bytes]) -> None:
    """A started process group leader (start_new_session=True). After cancel_all the group is
    killed at once and KeyboardInterrupt raised: the caller stops and waits for it as for Ctrl-C.

    cancel_all sets the flag before it takes the lock to list the live groups, so a group is
    either in that list (killed there) or added after it, and then sees the flag here."""
    with _lock:
        _live[proc.pid] = proc
        stopped = _cancelled.is_set()
    if stopped:
        kill_group(proc)
        raise KeyboardInterrupt


def remove(proc: subprocess.Popen[bytes]) -> None:
    with _lock:
        _live.pop(proc.pid, None)


def cancelled() -> bool:
    return _cancelled.is_set()


def on_cancel(hook: Callable[[], None]) -> None:
    """Also run `hook` on every cancel_all (once registered, whatever the number of calls)."""
    with _lock:
        if hook not in _hooks:
            _hooks.append(hook)


def cancel_all() -> None:
    """Stop every live process group and refuse new ones (Ctrl-C)."""
    _cancelled.set()
    with _lock:
        procs = list(_live.values())
        hooks = list(_hooks)
    for proc in procs:
        kill_group(proc)
    for hook in hooks:
        hook()


def reset_cancel() -> None:
    _cancelled.clear()


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
