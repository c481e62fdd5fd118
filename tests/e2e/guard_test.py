"""End to end through the real pre-commit framework.

A consumer repository whose .pre-commit-config.yaml uses this repository's `execlease-guard`
hook; pre-commit clones it and pip-installs it (non-editable) into its own environment, exactly
as a user's machine does. The hook repository is a commit of this working tree's package, so the
test judges the code under test rather than whatever HEAD holds. The hook environment is built
once per session (PRE_COMMIT_HOME in a session temp folder): that install is the slow part.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import shared
from tests.conftest import LEASE_PY, MANIFEST, NOTES, GitRepo, cover, git_env, sync_coverage

BODY_EDIT = LEASE_PY.replace('return cur.rowcount == 1', 'return cur.rowcount >= 1')


def run(repo: GitRepo, home: Path, *argv: str) -> tuple[int, str]:
    env = git_env()
    env['PRE_COMMIT_HOME'] = str(home)
    env['PRE_COMMIT_COLOR'] = 'never'
    proc = subprocess.run(argv, cwd=repo.path, env=env, capture_output=True, text=True, timeout=900)
    return proc.returncode, proc.stdout + proc.stderr


def hook_config(hook_repo: tuple[Path, str]) -> str:
    """A .pre-commit-config.yaml using the hook repository's `execlease-guard`, named by its
    file URL as `execlease init` names it (the URL it was installed from): pre-commit keeps one
    clone and one environment per spelling of a repository in its store, and the tests sharing
    `pre_commit_home` (the README's adoption steps among them) then build that environment once."""
    path, rev = hook_repo
    return (
        f'repos:\n-   repo: {path.as_uri()}\n    rev: {rev}\n    hooks:\n'
        '    -   id: execlease-guard\n'
    )


def install_hooks(repo: GitRepo, home: Path) -> None:
    pre_commit = (sys.executable, '-m', 'pre_commit')
    for command in ('install', 'install-hooks'):
        code, out = run(repo, home, *pre_commit, command)
        assert code == 0, out


def installed_copy(
    factory: pytest.TempPathFactory, name: str, build: Callable[[GitRepo], None], repo: GitRepo
) -> Path:
    """`repo` made a copy of the repository `build` makes in a new git repository (its files,
    commits and installed hooks), which is built once for the test run, every xdist worker's
    (tests/shared.py): the tests of a module then commit through the same real pre-commit each
    from its own copy, instead of each building it and running `pre-commit install` and
    `install-hooks` again. pre-commit's hook scripts find the config from the working tree, so
    they run as they are from any copy. Returns the built repository: what `build` kept beside
    it (its parent folder) is there to read."""

    def make(folder: Path) -> None:
        template = GitRepo(folder / 'repo')
        template.path.mkdir()
        template.git('init', '-q', '-b', 'main')
        build(template)

    template = shared.folder(factory, name, make) / 'repo'
    shutil.rmtree(repo.path / '.git')
    shutil.copytree(template, repo.path, symlinks=True, dirs_exist_ok=True)
    return template


@pytest.fixture
def consumer(
    git_repo: GitRepo,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> GitRepo:
    """`covered_repo` using the guard's hook, installed: a copy of the one built for the test
    run (`installed_copy`)."""

    def build(repo: GitRepo) -> None:
        cover(repo)
        repo.write('.pre-commit-config.yaml', hook_config(hook_repo))
        repo.add('.pre-commit-config.yaml')
        repo.commit('use the execlease hook')
        install_hooks(repo, pre_commit_home)

    installed_copy(tmp_path_factory, 'guard-consumer', build, git_repo)
    return git_repo


@pytest.mark.timeout(900)
def test_commit_blocked_then_accepted_after_sync(consumer, pre_commit_home):
    consumer.write('app/lease.py', BODY_EDIT)
    consumer.add('app/lease.py')
    code, out = run(consumer, pre_commit_home, 'git', 'commit', '-m', 'change claim')
    assert code == 1, out
    assert re.search(r'execlease guard\.+Failed', out), out
    assert '- exit code: 1' in out
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out
    assert '-    return cur.rowcount == 1' in out and '+    return cur.rowcount >= 1' in out
    assert (
        '4. Only once the model describes the new code, run `execlease verify --update-coverage`'
        in out
    )
    assert (
        consumer.git('diff', '--cached', '--name-only').strip() == 'app/lease.py'
    )  # nothing committed

    # The model now describes the new code (here: by fiat); the sync records the new hashes.
    sync_coverage(consumer.path)
    consumer.add(MANIFEST, NOTES)
    code, out = run(consumer, pre_commit_home, 'git', 'commit', '-m', 'change claim, synced')
    assert code == 0, out
    assert re.search(r'execlease guard\.+Passed', out), out
    assert consumer.git('log', '-1', '--format=%s').strip() == 'change claim, synced'


@pytest.mark.timeout(900)
def test_deleting_a_covered_file_is_blocked(consumer, pre_commit_home):
    consumer.git('rm', '-q', 'app/lease.py')
    code, out = run(consumer, pre_commit_home, 'git', 'commit', '-m', 'drop lease')
    assert code == 1, out
    assert '- exit code: 2' in out
    assert 'app/lease.py is deleted in this commit' in out


@pytest.mark.timeout(900)
def test_run_all_files(consumer, pre_commit_home):
    pre_commit = (sys.executable, '-m', 'pre_commit')
    code, out = run(consumer, pre_commit_home, *pre_commit, 'run', '--all-files')
    assert code == 0, out
    # A covered change committed past the hook is caught by `pre-commit run --all-files` (CI).
    consumer.write('app/lease.py', BODY_EDIT)
    consumer.add('app/lease.py')
    consumer.commit('bypass the hook')  # --no-verify
    code, out = run(consumer, pre_commit_home, *pre_commit, 'run', '--all-files')
    assert code == 1, out
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out
    assert os.path.exists(consumer.path / '.git' / 'hooks' / 'pre-commit')


@pytest.mark.timeout(900)
def test_commit_all_uses_the_temporary_index(consumer, pre_commit_home):
    # `git commit -a` hands the hook a temporary index (GIT_INDEX_FILE); nothing was `git add`ed.
    consumer.write('app/lease.py', BODY_EDIT)
    code, out = run(consumer, pre_commit_home, 'git', 'commit', '-a', '-m', 'change claim')
    assert code == 1, out
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out


@pytest.mark.timeout(900)
def test_line_drift_is_fixed_and_the_commit_run_again(consumer, pre_commit_home):
    consumer.write(
        'app/lease.py', LEASE_PY.replace('import sqlite3\n', 'import sqlite3\nimport os\n')
    )
    consumer.add('app/lease.py')
    code, out = run(consumer, pre_commit_home, 'git', 'commit', '-m', 'import os')
    assert code == 1, out
    assert (
        f'{NOTES}: the code-to-action table was out of date (nothing covered changed); '
        'rewritten in the working tree and the index:' in out
    )
    assert 'files were modified by this hook' not in out  # index and working tree agree
    assert sorted(consumer.git('diff', '--cached', '--name-only').split()) == [
        'app/lease.py',
        NOTES,
    ]
    code, out = run(consumer, pre_commit_home, 'git', 'commit', '-m', 'import os')
    assert code == 0, out
    assert consumer.git('status', '--porcelain').strip() == ''
    assert '[app/lease.py:5]' in consumer.git('show', f'HEAD:{NOTES}')
