"""A covered function renamed, end to end: the real pre-commit blocks the commit and names an
edit and a command; doing exactly that (the real TLC runs the sync) lets the commit through.

The consumer is set up with execlease's own commands (init, add, verify --update-coverage), and
its hook is this working tree's package, installed by pre-commit (conftest.hook_repo).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GitRepo, git_env
from tests.e2e.guard_test import hook_config

LOCK_PY = """\
def acquire(db, owner, now):
    cur = db.execute('UPDATE lock SET owner = ? WHERE owner IS NULL', (owner,))
    return cur.rowcount == 1


def release(db, owner):
    db.execute('UPDATE lock SET owner = NULL WHERE owner = ?', (owner,))
"""
SPEC = """\
---- MODULE Lock ----
EXTENDS Naturals, FiniteSets
CONSTANT Procs
VARIABLE holders
Init == holders = {}
Acquire(p) == holders = {} /\\ holders' = holders \\cup {p}
Release(p) == p \\in holders /\\ holders' = holders \\ {p}
Next == \\E p \\in Procs : Acquire(p) \\/ Release(p)
Mutex == Cardinality(holders) <= 1
====
"""
CFG = 'CONSTANT Procs = {p1, p2}\nINIT Init\nNEXT Next\nINVARIANT Mutex\n'


def run(repo: GitRepo, home: Path, *argv: str) -> tuple[int, str]:
    env = git_env()
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR='never', EXECLEASE_TLA_OFFLINE='1')
    proc = subprocess.run(argv, cwd=repo.path, env=env, capture_output=True, text=True, timeout=900)
    return proc.returncode, proc.stdout + proc.stderr


def execlease(repo: GitRepo, home: Path, *argv: str) -> str:
    code, out = run(repo, home, sys.executable, '-m', 'execlease_hook', *argv)
    assert code == 0, out
    return out


@pytest.mark.timeout(900)
def test_a_renamed_function_is_repaired_by_what_the_blocked_commit_names(
    git_repo, hook_repo, pre_commit_home, offline_tlc
):
    git_repo.write('app/lock.py', LOCK_PY)
    git_repo.write('verification/lock/Lock.tla', SPEC)
    git_repo.write('verification/lock/Lock.cfg', CFG)
    execlease(git_repo, pre_commit_home, 'init', '--spec', 'verification/lock/Lock.tla')
    execlease(git_repo, pre_commit_home, 'add', 'app/lock.py::acquire', '--action', 'Acquire')
    execlease(git_repo, pre_commit_home, 'add', 'app/lock.py::release', '--action', 'Release')
    execlease(git_repo, pre_commit_home, 'verify', '--update-coverage')
    git_repo.write('.pre-commit-config.yaml', hook_config(hook_repo))
    for step in (('install',), ('install-hooks',)):
        code, out = run(git_repo, pre_commit_home, sys.executable, '-m', 'pre_commit', *step)
        assert code == 0, out
    git_repo.add('.')
    code, out = run(git_repo, pre_commit_home, 'git', 'commit', '-m', 'the lock, covered')
    assert code == 0, out

    git_repo.write('app/lock.py', LOCK_PY.replace('def acquire(', 'def take_lock('))
    git_repo.add('app/lock.py')
    code, out = run(git_repo, pre_commit_home, 'git', 'commit', '-m', 'acquire is take_lock')
    assert code == 1 and '- exit code: 2' in out, out
    assert (
        'app/lock.py:1 defines take_lock: renamed from acquire? (with the code it had at the sync)'
        in out
    )
    edit = re.search(
        r'(\S+manifest\.json):(\d+): change "function": "acquire" to "function": "take_lock"', out
    )
    command = re.search(r'then `(execlease verify --update-coverage [^`]+)`', out)
    assert edit and command, out

    # Exactly what the message says: the edit at the line it names, then its command.
    manifest = git_repo.path / edit.group(1)
    lines = manifest.read_text().splitlines(keepends=True)
    at = next(
        i for i in range(int(edit.group(2)) - 1, len(lines)) if '"function": "acquire"' in lines[i]
    )
    assert at - (int(edit.group(2)) - 1) <= 3  # the entry's own lines, not another entry's
    lines[at] = lines[at].replace('"acquire"', '"take_lock"')
    manifest.write_text(''.join(lines))
    execlease(git_repo, pre_commit_home, *shlex.split(command.group(1))[1:])
    git_repo.add('verification/lock')
    code, out = run(git_repo, pre_commit_home, 'git', 'commit', '-m', 'acquire is take_lock')
    assert code == 0, out
    assert re.search(r'execlease guard.*\.+Passed', out), out
