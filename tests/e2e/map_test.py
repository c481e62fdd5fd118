"""The shipped model and its code, copied into a fresh repository, through git and the real
pre-commit: uncovered protocol code blocks the commit, a comment-only spec edit does not, an
action's edit does (named), and a renamed action without a manifest update exits 2.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import HERE, GitRepo
from tests.e2e.guard_test import hook_config, install_hooks, installed_copy, run

MODEL = 'verification/execution-lease'
SPEC = f'{MODEL}/ExecutionLease.tla'
MANIFEST = f'{MODEL}/manifest.json'
ADMIN = 'examples/agent_runtime/admin.py'
ADMIN_PY = '''\
"""Operator tools for stuck turns."""
from __future__ import annotations

import sqlite3

from examples.agent_runtime import schema


# An operator frees a turn whose worker is gone, without waiting for the lease to expire.


def force_release(conn: sqlite3.Connection, turn_id: str) -> None:
    with schema.immediate(conn):
        conn.execute(
            'UPDATE agent_turns SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ?',
            (turn_id,),
        )
'''


@pytest.fixture
def shipped(
    git_repo: GitRepo,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> GitRepo:
    """The shipped model and its code, committed, using the guard's hook, installed: a copy of
    the one built for the test run (guard_test.installed_copy)."""

    def build(repo: GitRepo) -> None:
        for folder in ('examples/agent_runtime', MODEL):
            shutil.copytree(
                HERE / folder,
                repo.path / folder,
                ignore=shutil.ignore_patterns('__pycache__', '.tmp'),
            )
        repo.write('.pre-commit-config.yaml', hook_config(hook_repo))
        repo.add('.')
        repo.commit('the shipped model and its code')
        install_hooks(repo, pre_commit_home)

    installed_copy(tmp_path_factory, 'map-shipped', build, git_repo)
    return git_repo


def commit(repo: GitRepo, home: Path, message: str) -> tuple[int, str]:
    return run(repo, home, 'git', 'commit', '-m', message)


@pytest.mark.timeout(900)
def test_uncovered_protocol_code_blocks_the_commit_until_ignored(shipped, pre_commit_home):
    shipped.write(ADMIN, ADMIN_PY)
    shipped.add(ADMIN)
    code, out = commit(shipped, pre_commit_home, 'an operator tool')
    assert code == 1, out
    assert '- exit code: 1' in out
    assert (
        'uncovered protocol code: examples/agent_runtime/admin.py:12 force_release writes agent_turns; '
        'cover it (and model it) or ignore it with a reason'
    ) in out
    assert shipped.git('diff', '--cached', '--name-only').strip() == ADMIN  # nothing committed
    data = json.loads(shipped.read(MANIFEST))
    data['coverage']['ignored'].append(
        {
            'path': ADMIN,
            'function': 'force_release',
            'reason': 'run by a person only once every worker of the turn is stopped',
        }
    )
    shipped.write(MANIFEST, json.dumps(data, indent=2, ensure_ascii=False) + '\n')
    shipped.add(MANIFEST)
    code, out = commit(shipped, pre_commit_home, 'an operator tool, ignored with a reason')
    assert code == 0, out


@pytest.mark.timeout(900)
def test_comment_only_spec_edit_commits_and_an_action_edit_is_named(shipped, pre_commit_home):
    text = shipped.read(SPEC)
    reworded = text.replace(
        '(* Time is abstract: Expire is enabled whenever the lease is live (clocks  *)',
        '(* Time is abstract: Expire may happen whenever the lease is live (clocks *)',
    )
    reworded = reworded.replace(
        '\\* model bound, not code', '\\* a bound of the model, not of the code'
    )
    assert reworded != text
    shipped.write(SPEC, reworded)
    shipped.add(SPEC)
    code, out = commit(shipped, pre_commit_home, 'reword two comments')
    assert code == 0, out
    shipped.write(SPEC, reworded.replace('/\\ gen < MaxGen ', '/\\ gen <= MaxGen'))
    shipped.add(SPEC)
    code, out = commit(shipped, pre_commit_home, 'one more claim')
    assert code == 1, out
    assert 'action Claim changed (ExecutionLease.tla:134-147) since the sync' in out


@pytest.mark.timeout(900)
def test_renamed_action_without_manifest_update_exits_2(shipped, pre_commit_home):
    text = shipped.read(SPEC)
    shipped.write(
        SPEC,
        text.replace('Claim(r) ==', 'ClaimLease(r) ==').replace(
            '\\/ Claim(r)', '\\/ ClaimLease(r)'
        ),
    )
    shipped.add(SPEC)
    code, out = commit(shipped, pre_commit_home, 'rename Claim')
    assert code == 1, out
    assert '- exit code: 2' in out
    assert (
        "coverage.entries[0] (claim): action 'Claim' is not defined in ExecutionLease.tla "
        '(did you mean: ClaimLease (ExecutionLease.tla:134-147)'
    ) in out
