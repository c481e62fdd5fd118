"""The one life of every child process a run starts: TLC jobs, warm JVMs, trace commands, javac.

Each starts in a process group of its own (`start`: a timeout or Ctrl-C kills it with every
process it started, a fault-injection run's workers, TLC's forks), is registered while it runs,
is waited for with a deadline (`wait`), and is stopped as a group (`stop`: kill, reap,
unregister). `running` puts the four together for a process that lives as long as a block.

Ctrl-C (or SIGTERM, SIGHUP: core/signals.py) reaches the main thread; `cancel_all` there kills
every group that is running and makes every later start refuse (`cancelled`), so no job of the
pool starts after the run was stopped. A group started between a caller's last look at
`cancelled` and its registration (Ctrl-C landing while a pool thread starts TLC) is killed by
`start` itself, which then raises KeyboardInterrupt: without that, such a TLC ran on unseen until
its job's timeout, and the run could not exit before it. What holds processes between jobs (the
warm JVMs' folders) adds its own cleanup with `on_cancel`. `reset_cancel` opens it for a new run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from execlease_hook.core import scratch

# Process-wide on purpose: Ctrl-C arrives once, in the main thread, and must reach every group
# any thread of the process started, whichever job, model or warm JVM it belongs to.
_live: dict[int, subprocess.Popen[bytes]] = {}
_lock = threading.Lock()
_cancelled = threading.Event()
_hooks: list[Callable[[], None]] = []

Output = int | IO[bytes] | None  # what subprocess takes for stdout: PIPE, DEVNULL, a file


def start(
    argv: tuple[str, ...],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: Output = subprocess.DEVNULL,
    stdout: Output = subprocess.PIPE,
    stderr: Output = subprocess.STDOUT,
    folder: Path | None = None,
) -> subprocess.Popen[bytes]:
    """`argv` started in a process group of its own and registered. `folder`: the scratch
    folder (core/scratch.py) it works in, so that a sweep after this process was killed
    outright stops it first. Raises OSError as Popen does, and KeyboardInterrupt (the group
    killed) once the run is cancelled.

    cancel_all sets the flag before it takes the lock to list the live groups, so a group is
    either in that list (killed there) or registered after it, and then sees the flag here."""
    if cancelled():
        raise KeyboardInterrupt
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=True
    )
    if folder is not None:
        scratch.started(folder, proc.pid)
    with _lock:
        _live[proc.pid] = proc
        stopped = _cancelled.is_set()
    if stopped:
        stop(proc)
        close(proc)
        raise KeyboardInterrupt
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process's whole group, reap the process, and unregister it. Once it was reaped
    its id may be another's: nothing is killed then."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):  # gone already
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    forget(proc)


def forget(proc: subprocess.Popen[bytes]) -> None:
    """Unregister a process that has ended by itself."""
    with _lock:
        _live.pop(proc.pid, None)


def close(proc: subprocess.Popen[bytes]) -> None:
    """Close the pipes to and from a process that has ended."""
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):  # what was left to write has nowhere to go
                stream.close()


@contextmanager
def running(argv: tuple[str, ...], **how: Any) -> Iterator[subprocess.Popen[bytes]]:
    """`start(argv, **how)` for the block: if the block raises (Ctrl-C, a bug), the group is
    stopped before the exception goes on; at the end it is unregistered and its pipes closed,
    and KeyboardInterrupt raised if the run was cancelled meanwhile."""
    proc = start(argv, **how)
    try:
        yield proc
    except BaseException:
        stop(proc)
        raise
    finally:
        forget(proc)
        close(proc)
    if cancelled():
        raise KeyboardInterrupt


def wait(
    ended: Callable[[float], bool], timeout: float, tick: Callable[[], None] | None = None
) -> bool:
    """Call `ended(seconds)` (it waits up to that long and says whether the thing has ended)
    until it says so, or `timeout` seconds have passed: False. `tick` runs twice a second and
    once at the end (following an output file as it grows)."""
    deadline = time.monotonic() + timeout
    while True:
        left = max(0.0, deadline - time.monotonic())
        done = ended(left if tick is None else min(0.5, left))
        if tick is not None:
            tick()
        if done:
            return True
        if time.monotonic() >= deadline:
            return False


def exited(proc: subprocess.Popen[bytes]) -> Callable[[float], bool]:
    """For `wait`: whether the process has exited, after waiting up to the seconds given."""

    def ended(seconds: float) -> bool:
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return False
        return True

    return ended


def run(argv: tuple[str, ...], timeout: float, **how: Any) -> tuple[int | None, bytes]:
    """Run `argv` to its end with its stdout and stderr captured together: (exit code, output),
    the code None when it ran past `timeout` seconds and was stopped (the output: what it had
    printed by then)."""
    with running(argv, **how) as proc:
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(proc)
            out, _ = proc.communicate()
            return None, out or b''
        return proc.returncode, out or b''


def alive(pid: int) -> bool:
    """A process with this id exists (whoever's it is)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, but is not ours to signal
    return True


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
        # Reaped already (its owner unregisters it next): its id may be another's by now, as in
        # `stop`. Gone but not reaped: its id is still its own, and the kill finds nothing.
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
    for hook in hooks:
        hook()


def reset_cancel() -> None:
    _cancelled.clear()
