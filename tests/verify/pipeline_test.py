"""verify/pipeline.py: every way `execlease verify` runs does a run's housekeeping, through the
console script on the real TLC: the sweep of what a killed run left, the notes of the JVM's
caches that could not be written, the verdict line; where the Java probe's memo is kept."""

from __future__ import annotations

import pytest

from execlease_hook.core import scratch
from execlease_hook.tlc.java import PROBES_FILE
from tests.conftest import GitRepo
from tests.verify.suite_test import MAIN, console, write_model

pytestmark = pytest.mark.usefixtures('offline_tlc')

MODES = {
    'plain': ('--quick',),
    'deep': ('--deep',),
    'simulate': ('--simulate', '--traces', '20', '--seed', '3'),
    'rev': ('--rev', 'HEAD', '--quick'),
}


@pytest.mark.parametrize('args', MODES.values(), ids=list(MODES))
def test_every_mode_sweeps_a_killed_runs_folders_and_says_the_jvms_notes(git_repo, tmp_path, args):
    write_model(git_repo, checks=({**MAIN, 'deep': {'constants': {'N': 4}}},), entries=())
    git_repo.add('.')
    git_repo.commit('model')
    temp = tmp_path / 'temp'
    stale = temp / 'execlease-check-stale'
    stale.mkdir(parents=True)
    (stale / scratch.MARK).touch()  # marked, and no process holds the mark: its maker is gone
    (tmp_path / 'a-file').write_text('')  # where the JVM's caches are asked to go: no folder
    proc = console(
        git_repo,
        *args,
        '--no-cache',
        env={'TMPDIR': str(temp), 'EXECLEASE_JVM_CACHE': str(tmp_path / 'a-file' / 'jvm')},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not stale.exists()
    assert list(temp.iterdir()) == []  # nor anything of this run's own
    out = ' '.join(proc.stdout.split())
    assert 'note: the class-data archive was not built: cannot use' in out
    assert proc.stdout.rstrip().splitlines()[-1].startswith('PASSED')


def test_repositories_sharing_a_jvm_cache_share_what_each_java_is(git_repo, tmp_path):
    """With EXECLEASE_JVM_CACHE set, `java -version`'s answer is kept there, not in the
    repository: a second repository that shares the folder reads it and writes no probe of its
    own (a probe rewrites the memo: a new file)."""
    cache = tmp_path / 'jvm'
    second = GitRepo(tmp_path / 'second')
    second.path.mkdir()
    second.git('init', '-q', '-b', 'main')
    for repo in (git_repo, second):
        write_model(repo, entries=())
        repo.add('.')
        repo.commit('model')
    memo = cache / PROBES_FILE
    proc = console(git_repo, '--quick', env={'EXECLEASE_JVM_CACHE': str(cache)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert memo.is_file()
    assert not list(git_repo.path.glob(f'.git/**/{PROBES_FILE}'))
    before = memo.stat()
    proc = console(second, '--quick', env={'EXECLEASE_JVM_CACHE': str(cache)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = memo.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert not list(second.path.glob(f'.git/**/{PROBES_FILE}'))
