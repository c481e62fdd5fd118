from __future__ import annotations

import os
from pathlib import Path

import pytest

from execlease_hook.core import spawn


def sh(
    script: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> spawn.Completed:
    return spawn.run(('sh', '-c', script), stdin=stdin, env=env)


def test_exit_code_and_both_outputs():
    proc = sh('printf out; printf err >&2; exit 3')
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, b'out', b'err')


def test_megabytes_both_ways_do_not_block():
    # Far more than a pipe holds, in and out at once (and on stderr): a naive write-then-read deadlocks.
    data = os.urandom(3 << 20)
    proc = sh('tee /dev/stderr', stdin=data)
    assert proc.returncode == 0 and proc.stdout == data and proc.stderr == data


def test_a_child_that_does_not_read_its_input():
    proc = sh('printf done', stdin=b'x' * (4 << 20))
    assert (proc.returncode, proc.stdout) == (0, b'done')


def test_empty_input_is_end_of_file():
    assert sh('cat', stdin=b'').stdout == b''


def test_a_signal_is_minus_its_number():
    assert sh('kill -TERM $$').returncode == -15


def test_the_environment_is_the_one_given():
    env = {'PATH': os.environ['PATH'], 'ONLY_HERE': 'yes'}
    assert sh('printf %s "$ONLY_HERE:$HOME"', env=env).stdout == b'yes:'


def test_a_missing_program():
    with pytest.raises(FileNotFoundError):
        spawn.run(('execlease-no-such-program',))


@pytest.mark.skipif(not Path('/proc/self/status').exists(), reason='reads /proc (Linux)')
def test_sigpipe_is_not_ignored_in_the_child():
    # Python ignores SIGPIPE; a child inheriting that would not stop when its reader goes away.
    line = next(
        row
        for row in sh('cat /proc/$$/status').stdout.decode().splitlines()
        if row.startswith('SigIgn:')
    )
    assert not int(line.split()[1], 16) & (1 << (13 - 1))


def test_elsewhere_subprocess_does_it(monkeypatch):
    monkeypatch.setattr(spawn.os, 'name', 'nt')
    proc = sh('printf out; printf err >&2; exit 3', stdin=b'')
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, b'out', b'err')
