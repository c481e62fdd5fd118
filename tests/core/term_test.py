from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys

import pytest

from execlease_hook.core import term
from tests.conftest import git_env


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ('text', 'columns', 'expected'),
    (
        ('short line', 80, 'short line'),
        (
            'DID NOT HOLD: mutation m no longer fails: the check has lost the ability',
            40,
            'DID NOT HOLD: mutation m no longer\n'
            '              fails: the check has lost\n'
            '              the ability',
        ),
        (
            '  1. Find the action in the code-to-action map and re-read both.',
            40,
            '  1. Find the action in the\n     code-to-action map and re-read\n     both.',
        ),
        (
            'a very-long-hyphenated-word-that-does-not-fit-anywhere-at-all here',
            40,
            'a\n  very-long-hyphenated-word-that-does-not-fit-anywhere-at-all\n  here',
        ),
        (
            'head\n  --- a.py @ 1234 (sync)\n  +++ a.py (staged)\n'
            '  -    x = compute(alpha, beta, gamma, delta, epsilon, zeta, eta, theta)\n'
            'after the diff comes prose that is long enough to be wrapped here',
            40,
            'head\n  --- a.py @ 1234 (sync)\n  +++ a.py (staged)\n'
            '  -    x = compute(alpha, beta, gamma, delta, epsilon, zeta, eta, theta)\n'
            'after the diff comes prose that is long\n  enough to be wrapped here',
        ),
        (
            '  2. If the protocol changed, change it: one action per real\n'
            '     transaction, the guard equal to the WHERE clause.\n  3. Run it.',
            40,
            '  2. If the protocol changed, change it:\n     one action per real transaction,\n'
            '     the guard equal to the WHERE\n     clause.\n  3. Run it.',
        ),
    ),
    ids=('fits', 'label-hangs', 'numbered-step', 'long-word-whole', 'diff-verbatim', 'rejoined'),
)
def test_wrap(text, columns, expected):
    assert term.wrap(text, columns) == expected


def test_width_columns_then_tty_then_80(monkeypatch):
    monkeypatch.setenv('COLUMNS', '120')
    assert term.width(io.StringIO()) == 120
    monkeypatch.delenv('COLUMNS')
    assert term.width(io.StringIO()) == 80  # a pipe, a file, a CI log
    monkeypatch.setenv('COLUMNS', '10')
    assert term.width(io.StringIO()) == term.MIN_WIDTH


@pytest.mark.parametrize(
    ('env', 'stream', 'coloured'),
    (
        ({}, Tty(), True),
        ({}, io.StringIO(), False),
        ({'NO_COLOR': '1'}, Tty(), False),
        ({'NO_COLOR': ''}, Tty(), True),  # no-color.org: set and not empty
        ({'TERM': 'dumb'}, Tty(), False),
    ),
    ids=('tty', 'pipe', 'no-color', 'no-color-empty', 'dumb'),
)
def test_colour_only_on_a_terminal(monkeypatch, env, stream, coloured):
    monkeypatch.delenv('NO_COLOR', raising=False)
    monkeypatch.setenv('TERM', 'xterm')
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    painted = term.paint('PASSED', 'green', stream)
    assert (painted != 'PASSED') is coloured
    assert 'PASSED' in painted


def _execlease(*args: str, cwd, **kwargs) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        (sys.executable, '-m', 'execlease_hook', *args),
        cwd=cwd,
        env={**git_env(), **kwargs.pop('env', {})},
        **kwargs,
    )


@pytest.mark.parametrize(
    ('args', 'change', 'code'),
    (
        (('coverage',), False, 0),
        (('coverage',), True, 1),
        (('guard', '--all'), True, 1),
        (('--help',), False, 0),
    ),
    ids=('coverage-held', 'coverage-changed', 'guard-blocked', 'help'),
)
def test_closed_stdout_ends_quietly_with_the_commands_own_code(covered_repo, args, change, code):
    if change:  # a covered function changed and staged: output to write, exit 1
        text = covered_repo.read('app/lease.py').replace('expires_at < ?', 'expires_at <= ?')
        covered_repo.write('app/lease.py', text)
        covered_repo.add('app/lease.py')
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte, as `| head -0`
    try:
        proc = _execlease(*args, cwd=covered_repo.path, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert proc.stderr.decode() == ''
    assert proc.returncode == code


def test_head_closes_the_pipe_midway(covered_repo):
    text = covered_repo.read('app/lease.py').replace('expires_at < ?', 'expires_at <= ?')
    covered_repo.write('app/lease.py', text)
    covered_repo.add('app/lease.py')
    script = (
        f'{sys.executable} -m execlease_hook guard --all | head -1; echo "exit ${{PIPESTATUS[0]}}"'
    )
    proc = subprocess.run(
        ('bash', '-c', script), cwd=covered_repo.path, env=git_env(), capture_output=True, text=True
    )
    assert proc.stderr == ''
    first, last = proc.stdout.splitlines()
    assert first.startswith('execlease guard: ') and last == 'exit 1'


def test_coverage_colours_its_status_on_a_terminal_only(covered_repo):
    def run(env: dict[str, str], tty: bool) -> str:
        if not tty:
            return _execlease(
                'coverage', cwd=covered_repo.path, env=env, capture_output=True
            ).stdout.decode()
        leader, follower = pty.openpty()
        proc = _execlease(
            'coverage',
            cwd=covered_repo.path,
            env={'TERM': 'xterm', **env},
            stdout=follower,
            stderr=subprocess.DEVNULL,
        )
        os.close(follower)
        out = b''
        try:
            while chunk := os.read(leader, 4096):
                out += chunk
        except OSError:  # EIO: the child closed the terminal
            pass
        os.close(leader)
        assert proc.returncode == 0
        return out.decode()

    assert '\033[32munchanged' in run({}, tty=True)
    assert '\033[' not in run({'NO_COLOR': '1'}, tty=True)
    assert '\033[' not in run({}, tty=False)


def test_no_line_of_a_blocked_commit_is_wider_than_80_in_a_pipe(covered_repo):
    text = covered_repo.read('app/lease.py').replace('expires_at < ?', 'expires_at <= ?')
    text = text.replace('def renew(', 'def renew_lease(')  # missing: exit 2, with a hint
    covered_repo.write('app/lease.py', text)
    covered_repo.add('app/lease.py')
    env = {k: v for k, v in git_env().items() if k != 'COLUMNS'}
    proc = subprocess.run(
        (sys.executable, '-m', 'execlease_hook', 'guard', '--all'),
        cwd=covered_repo.path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (1, 2)
    lines = (proc.stdout + proc.stderr).splitlines()
    assert len(lines) > 5
    # Diff lines are code: kept whole, as the guard's diff shows them.
    wide = [line for line in lines if len(line) > 80 and not re.match(r'  [-+ @]', line)]
    assert wide == []
