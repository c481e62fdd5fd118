"""Run a program with bytes in and its output captured: `subprocess.run(argv, input=...,
capture_output=True)` without importing `subprocess`.

Why: git runs through here on every commit, and importing `subprocess` (with `signal`,
`threading`, `selectors` and `locale`) costs the guard about a fifth of what starting Python
does (benchmarks/guard_latency.py). What it does instead is what subprocess does on POSIX:
os.posix_spawnp with the child's standard streams on pipes, SIGPIPE and SIGXFSZ back to their
defaults in the child (Python ignores them), and a poll loop that writes the input while it
reads both outputs, so that neither side can block the other. No working directory is
changed: the caller says where (git's `-C`). Elsewhere than POSIX, subprocess itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

_CHUNK = 1 << 16


class Completed:
    """What subprocess.CompletedProcess holds: the exit code (-N for signal N) and the output."""

    __slots__ = ('args', 'returncode', 'stdout', 'stderr')

    def __init__(self, args: Sequence[str], returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr


def run(
    argv: Sequence[str], stdin: bytes | None = None, env: Mapping[str, str] | None = None
) -> Completed:
    """`stdin` None: the child reads this process's standard input, as subprocess.run's does.
    Raises FileNotFoundError when the program is not on PATH."""
    environment = os.environ if env is None else env
    if os.name != 'posix' or not hasattr(os, 'posix_spawnp'):
        import subprocess

        proc = subprocess.run(argv, input=stdin, capture_output=True, env=dict(environment))
        return Completed(argv, proc.returncode, proc.stdout, proc.stderr)
    import importlib
    import select

    signals = importlib.import_module('_signal')  # `signal` itself builds enums on import
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if stdin is not None else (-1, -1)
    actions = [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    if stdin is not None:
        actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
    try:
        pid = os.posix_spawnp(
            argv[0],
            list(argv),
            environment,
            file_actions=actions,
            setsigdef=(signals.SIGPIPE, signals.SIGXFSZ),
        )
    except BaseException:
        for fd in (out_r, err_r, in_w):
            if fd != -1:
                os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w, in_r):
            if fd != -1:
                os.close(fd)
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    open_fds = {out_r, err_r}
    try:
        poller = select.poll()
        for fd in chunks:
            poller.register(fd, select.POLLIN)
        data, sent = memoryview(stdin or b''), 0
        if in_w != -1:
            if data:
                os.set_blocking(in_w, False)
                poller.register(in_w, select.POLLOUT)
                open_fds.add(in_w)
            else:
                os.close(in_w)
        while open_fds:
            for fd, event in poller.poll():
                if fd == in_w:
                    try:
                        sent += os.write(in_w, data[sent : sent + _CHUNK])
                        done = sent == len(data)
                    except BlockingIOError:
                        done = False
                    except (
                        BrokenPipeError
                    ):  # the child stopped reading: as subprocess, not an error
                        done = True
                    if done:
                        poller.unregister(in_w)
                        os.close(in_w)
                        open_fds.discard(in_w)
                    continue
                chunk = os.read(fd, _CHUNK)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    poller.unregister(fd)
                    os.close(fd)
                    open_fds.discard(fd)
        _, status = os.waitpid(pid, 0)
    except BaseException:  # Ctrl-C, or a bug: leave no child behind
        for fd in open_fds:
            os.close(fd)
        try:
            os.kill(pid, signals.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        raise
    return Completed(
        argv, os.waitstatus_to_exitcode(status), b''.join(chunks[out_r]), b''.join(chunks[err_r])
    )
