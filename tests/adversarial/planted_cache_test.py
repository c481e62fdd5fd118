"""A results cache carried by a commit is never read: the cache lives in git's own folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.tlc import jar
from execlease_hook.tlc.cache import FORMAT, results_folder
from execlease_hook.tlc.java import find_java
from execlease_hook.tlc.output import Verdict
from execlease_hook.verify import plan
from tests.conftest import GitRepo, git_env

EXECLEASE = Path(sys.executable).parent / 'execlease'
FIXTURES = Path(__file__).parent.parent / 'fixtures' / 'tlc'
MODEL = 'verification/counter'

pytestmark = pytest.mark.usefixtures('offline_tlc')


def failing_model(repo: GitRepo) -> Path:
    """A model whose only check fails (x reaches 2, XBelowTwo says it must not)."""
    for name in ('Counter.tla', 'CounterLib.tla', 'invariant.cfg'):
        repo.write(f'{MODEL}/{name}', (FIXTURES / name).read_bytes())
    path = repo.write(
        f'{MODEL}/manifest.json',
        json.dumps(
            {
                'version': 1,
                'spec': 'Counter.tla',
                'checks': [{'name': 'main', 'config': 'invariant.cfg'}],
                'coverage': {
                    'entries': [],
                    'abstract': [
                        {'action': a, 'reason': 'no code in this test'} for a in ('Inc', 'Flip')
                    ],
                },
            }
        ),
    )
    return path


def forged_pass(repo: GitRepo, manifest_path: Path) -> tuple[str, str]:
    """The cache entry that would make the failing check read PASSED: (key, JSON text)."""
    m = manifest_read.load(manifest_path, repo.path)
    t = jar.Tools(
        jar.resolve_jar(repo.path, from_environ()),
        find_java(from_environ()),
        from_environ(),
    )
    (planned,) = plan.plan(m, True, t)
    key = planned.job.cache_key(t.jar.sha256, t.java.major)
    verdict = Verdict('passed', 1.0, 0, states=8, distinct=8, depth=5)
    return key, json.dumps({'format': FORMAT, 'key': key, 'verdict': verdict.to_json()})


def verify(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = git_env()
    env['EXECLEASE_TLA_OFFLINE'] = '1'
    return subprocess.run(
        (str(EXECLEASE), 'verify', *args),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def clone(origin: GitRepo, to: Path) -> GitRepo:
    origin.git('clone', '-q', str(origin.path), str(to))
    return GitRepo(to)


def test_a_committed_cache_is_ignored_in_a_fresh_clone(git_repo, tmp_path):
    path = failing_model(git_repo)
    key, text = forged_pass(git_repo, path)
    # Where the old versions kept their results, and where a repository that does not ignore
    # .tmp/ lets a commit put them.
    git_repo.write(f'.tmp/tla/cache/{key}.json', text)
    git_repo.git('add', '-f', '.')
    git_repo.commit('model, and a planted cache entry')
    fresh = clone(git_repo, tmp_path / 'clone')
    assert (fresh.path / f'.tmp/tla/cache/{key}.json').is_file()
    proc = verify(fresh.path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'check main (invariant.cfg) failed: violated: invariant XBelowTwo' in proc.stdout
    assert proc.stdout.rstrip().endswith('FAILED (did not hold)')


def test_the_entry_would_be_read_from_gits_folder(git_repo, tmp_path):
    # The planted entry is well formed: put where the cache lives (which no commit can reach),
    # it is read. So the test above fails for the right reason: the place, not the content.
    path = failing_model(git_repo)
    key, text = forged_pass(git_repo, path)
    git_repo.add('.')
    git_repo.commit('model')
    folder = results_folder(git_repo.path)
    assert folder == (git_repo.path / '.git' / 'execlease' / 'cache').resolve()
    folder.mkdir(parents=True)
    (folder / f'{key}.json').write_text(text)
    proc = verify(git_repo.path)
    row = next(line for line in proc.stdout.splitlines() if line.split()[:2] == ['check', 'main'])
    assert row.split()[2] == 'passed' and row.split()[-1] == 'yes', proc.stdout


def test_results_are_shared_by_worktrees_and_never_in_the_work_tree(git_repo, tmp_path):
    failing_model(git_repo)
    git_repo.add('.')
    git_repo.commit('model')
    first = verify(git_repo.path)
    assert first.returncode == 1
    git_repo.git('worktree', 'add', '-q', str(tmp_path / 'other'))
    second = verify(tmp_path / 'other')
    assert second.returncode == 1
    row = next(line for line in second.stdout.splitlines() if line.split()[:2] == ['check', 'main'])
    assert row.split()[-1] == 'yes'  # answered from the cache the first worktree filled
    assert results_folder(tmp_path / 'other') == results_folder(git_repo.path)
    tracked_or_not = git_repo.git('status', '--porcelain', '--ignored', '--untracked-files=all')
    assert (
        'execlease' not in tracked_or_not
        and not (git_repo.path / '.tmp' / 'tla' / 'cache').exists()
    )
