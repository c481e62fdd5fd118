"""A trace job's verdict never goes stale: its cache key covers everything its command can read
in the repository (every file git tracks or would track), its argv and the variables it is given.
The command here is a log adapter outside the folders of covered code, as real projects have
one: it imports a helper module and reads a data file. Real git, real TLC."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest.model import CodeMutation, Manifest, Replace
from execlease_hook.tlc import jar
from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.java import find_java
from execlease_hook.traces import cache as trace_cache
from execlease_hook.traces import code_mutations
from execlease_hook.traces import suite as trace_suite
from tests import shared
from tests.conftest import GitRepo, git_identity, use_offline
from tests.traces.suite_test import MODEL, write_model

pytestmark = pytest.mark.usefixtures('offline_tlc')

ADAPTER = """import json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from shape import lines

with open('data/program.json') as f:
    program = json.load(f)
with open(os.path.join(os.environ['EXECLEASE_TRACE_DIR'], 'run.ndjson'), 'w') as out:
    for line in lines(program):
        out.write(json.dumps(line) + '\\n')
"""
SHAPE = """def lines(program):
    x = y = 0
    for op in program:
        if op == 'inc':
            x += 1
        else:
            y = 1 - y
        yield {'action': 'Inc' if op == 'inc' else 'Flip', 'x': x, 'y': y}
"""
JOB = {
    'name': 'adapter',
    'spec': 'TraceCounter.tla',
    'config': 'TraceCounter.cfg',
    'command': ['python', 'tools/adapter.py'],
}


def model(repo: GitRepo, job: dict[str, Any] = JOB) -> Manifest:
    path = write_model(repo, [job], [])
    repo.write('tools/adapter.py', ADAPTER)
    repo.write('tools/shape.py', SHAPE)
    repo.write('data/program.json', json.dumps(['inc', 'flip']))
    repo.write('.gitignore', '__pycache__/\n')  # what Python writes when the adapter imports
    repo.add('.')
    repo.commit('model')
    return manifest_read.load(path, repo.path)


def run(m: Manifest, cache: ResultCache) -> trace_suite.TraceRun:
    t = jar.Tools(
        jar.resolve_jar(m.root, from_environ()), find_java(from_environ()), from_environ()
    )
    return trace_suite.run_trace_job(m, m.traces[0], m.root, t, cache)


@pytest.fixture(scope='module')
def first_run(tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path) -> Path:
    """The model's repository (`repo`) and its result cache (`cache`) after the job's first run,
    which ran TLC (accepted, not from the cache): made once for the test run (tests/shared.py),
    not once in every test below; each test edits a copy of them (`from_first_run`). Every
    test's first run was the same job in the same files: the edit after it is what each tests."""

    def build(folder: Path) -> None:
        with pytest.MonkeyPatch.context() as env:
            git_identity(env)
            use_offline(env, jvm_cache, tools_jar)
            (folder / 'repo').mkdir()
            repo = GitRepo((folder / 'repo').resolve())
            repo.git('init', '-q', '-b', 'main')
            env.chdir(repo.path)
            first = run(model(repo), ResultCache(folder / 'cache'))
            assert (first.verdict.outcome, first.cached) == ('accepted', False)

    return shared.folder(tmp_path_factory, 'trace-cache-first-run', build)


def from_first_run(
    first_run: Path, repo: GitRepo, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> Manifest:
    """`first_run`'s repository copied over `repo` (a fresh one, the test's working directory:
    it is again) and its cache to `cache`."""
    shutil.rmtree(repo.path)
    shutil.copytree(first_run / 'repo', repo.path, symlinks=True)
    monkeypatch.chdir(repo.path)
    shutil.copytree(first_run / 'cache', cache)
    return manifest_read.load(repo.path / MODEL / 'manifest.json', repo.path)


@pytest.mark.parametrize(
    ('path', 'edit', 'outcome'),
    [
        (
            'tools/adapter.py',
            lambda s: s.replace("'Inc'", "'Inc'") + '# the adapter changed\n',
            'accepted',
        ),
        ('tools/shape.py', lambda s: s.replace('x += 1', 'x += 2'), 'rejected'),
        (
            'data/program.json',
            lambda s: json.dumps(['inc', 'flip', 'inc', 'inc', 'inc']),
            'rejected',
        ),
    ],
    ids=['its-own-script', 'a-module-it-imports', 'a-data-file-it-reads'],
)
def test_an_edit_to_what_the_command_reads_runs_the_job_again(
    first_run: Path,
    git_repo: GitRepo,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    path,
    edit,
    outcome,
):
    # the first run (TLC ran: accepted, not cached) is `first_run`'s, in a copy of its files
    m = from_first_run(first_run, git_repo, tmp_path / 'cache', monkeypatch)
    cache = ResultCache(tmp_path / 'cache')
    assert run(m, cache).cached  # nothing changed: answered by the cache
    git_repo.write(path, edit(git_repo.read(path)))  # in the working tree only, not staged
    again = run(m, cache)
    assert (again.verdict.outcome, again.cached) == (outcome, False)
    git_repo.add(path)  # staged: the same bytes, the same key
    assert run(m, cache).cached


def test_a_new_file_a_deleted_file_and_the_variables_change_the_key(git_repo: GitRepo):
    m = model(git_repo)
    t = jar.Tools(
        jar.resolve_jar(m.root, from_environ()), find_java(from_environ()), from_environ()
    )
    job = m.traces[0]
    key = trace_cache.cache_key(m, job, m.root, t)
    git_repo.write('tools/extra.py', 'X = 1\n')  # untracked, not ignored: the command can import it
    with_new = trace_cache.cache_key(m, job, m.root, t)
    (git_repo.path / 'tools/extra.py').unlink()
    assert trace_cache.cache_key(m, job, m.root, t) == key
    (git_repo.path / 'data/program.json').unlink()  # deleted, still in the index
    deleted = trace_cache.cache_key(m, job, m.root, t)
    git_repo.git('checkout', '--', 'data/program.json')
    assert trace_cache.cache_key(m, job, m.root, t) == key
    git_repo.write('.gitignore', '__pycache__/\nbuild/\n')
    ignoring = trace_cache.cache_key(m, job, m.root, t)
    git_repo.write('build/out.bin', 'ignored')  # what git ignores is not in the key (documented)
    assert trace_cache.cache_key(m, job, m.root, t) == ignoring != key
    env_job = type(job)(job.name, job.spec, job.config, command=job.command, env=(('SEED', '7'),))
    assert (
        len({key, with_new, deleted, ignoring, trace_cache.cache_key(m, env_job, m.root, t)}) == 5
    )


def test_the_variables_reach_the_command_and_an_env_change_runs_it_again(
    git_repo: GitRepo, tmp_path: Path
):
    job = {**JOB, 'env': {'PROGRAM': 'data/other.json'}}
    m = model(git_repo, job)
    git_repo.write(
        'tools/adapter.py', ADAPTER.replace("'data/program.json'", "os.environ['PROGRAM']")
    )
    git_repo.write('data/other.json', json.dumps(['inc', 'inc', 'inc', 'inc']))
    cache = ResultCache(tmp_path / 'cache')
    assert run(m, cache).verdict.outcome == 'rejected'  # x reaches 4 > N = 3
    path = m.path
    data = json.loads(path.read_text())
    data['traces'][0]['env'] = {'PROGRAM': 'data/program.json'}
    path.write_text(json.dumps(data))
    again = run(manifest_read.load(path, m.root), cache)
    assert (again.verdict.outcome, again.cached) == ('accepted', False)


def test_a_code_mutation_key_follows_the_files_of_its_copy(git_repo: GitRepo):
    m = model(git_repo)
    t = jar.Tools(
        jar.resolve_jar(m.root, from_environ()), find_java(from_environ()), from_environ()
    )
    helper = CodeMutation('helper', 'tools/shape.py', Replace('x += 1', 'x += 2'))
    before = trace_cache.cache_key(
        m, m.traces[0], m.root, t, code_mutations.mutated(m.root, helper)
    )
    git_repo.write('data/program.json', json.dumps(['flip']))  # another file of the copy
    after = trace_cache.cache_key(m, m.traces[0], m.root, t, code_mutations.mutated(m.root, helper))
    assert before != after
    with code_mutations.mutated_copy(m.root, helper) as copy:
        inside = code_mutations.in_copy(copy, code_mutations.mutated(m.root, helper))
        assert trace_cache.cache_key(m, m.traces[0], copy, t, inside) == after
