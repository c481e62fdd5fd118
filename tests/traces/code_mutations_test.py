from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import from_environ
from execlease_hook.manifest.model import CodeMutation, Replace
from execlease_hook.tlc import jar
from execlease_hook.tlc.java import find_java
from execlease_hook.traces import code_mutations
from execlease_hook.traces.code_mutations import mutated_copy
from tests.conftest import GitRepo


def mutation(start: str, to: str = 'return 2') -> CodeMutation:
    return CodeMutation('m', 'app/a.py', Replace(start, to))


def test_copy_is_mutated_working_tree_is_not(git_repo: GitRepo):
    git_repo.write('app/a.py', 'def f():\n    return 1\n')
    git_repo.write('.gitignore', 'ignored/\n')
    git_repo.write('ignored/big.bin', 'x')
    git_repo.add('app/a.py', '.gitignore')
    git_repo.write('notes.txt', 'untracked, not ignored')
    with mutated_copy(git_repo.path, mutation('return 1')) as copy:
        assert (copy / 'app/a.py').read_text() == 'def f():\n    return 2\n'
        assert (copy / 'notes.txt').exists() and not (copy / 'ignored').exists()
        held = sorted(p.relative_to(copy).as_posix() for p in copy.rglob('*') if p.is_file())
        assert held == ['.gitignore', 'app/a.py', 'notes.txt']
    assert not copy.exists()
    assert git_repo.read('app/a.py') == 'def f():\n    return 1\n'


def test_a_link_into_the_repository_points_into_the_copy(git_repo: GitRepo, tmp_path):
    """An absolute symbolic link into the repository is pointed at the copy's file (the mutated
    bytes, when it links the mutated file); a relative link and a link elsewhere are copied as
    they are; the ids of the copy are those of the repository, links as git stores them."""
    root = git_repo.path
    git_repo.write('app/a.py', 'def f():\n    return 1\n')
    git_repo.write('specs/Foo.tla', '---- MODULE Foo ----\n====\n')
    (tmp_path / 'Elsewhere.tla').write_text('elsewhere')
    (root / 'model').mkdir()
    (root / 'model/Foo.tla').symlink_to(root / 'specs/Foo.tla')
    (root / 'model/a.py').symlink_to(root / 'app/a.py')
    (root / 'model/Near.tla').symlink_to('../specs/Foo.tla')
    (root / 'model/Elsewhere.tla').symlink_to(tmp_path / 'Elsewhere.tla')
    git_repo.add('.')
    planned = code_mutations.mutated(root, mutation('return 1'))
    with mutated_copy(root, mutation('return 1'), planned.files) as copy:
        assert (copy / 'model/Foo.tla').readlink() == copy / 'specs/Foo.tla'
        assert (copy / 'model/a.py').read_text() == 'def f():\n    return 2\n'
        assert (copy / 'model/Near.tla').readlink() == Path('../specs/Foo.tla')
        assert (copy / 'model/Elsewhere.tla').readlink() == tmp_path / 'Elsewhere.tla'
        assert code_mutations.in_copy(copy, planned).ids == planned.ids


@pytest.mark.parametrize(
    ('start', 'found'),
    [('nothing like it', 'does not match'), ('return', 'matches 2 times')],
    ids=['missing', 'twice'],
)
def test_anchor_must_match_once(git_repo: GitRepo, start, found):
    git_repo.write('app/a.py', 'def f():\n    return 1\n\ndef g():\n    return 1\n')
    with pytest.raises(CannotRun, match=f'code mutation m: replace.from {found} in app/a.py'):
        with mutated_copy(git_repo.path, mutation(start)):
            pass


@pytest.mark.tlc  # the key names the Java: a probe starts it
def test_the_key_without_the_copy_is_the_key_in_the_copy(git_repo: GitRepo, monkeypatch):
    """traces/cache.cache_key of a code mutation, from code_mutations.Mutated, equals the key
    computed in the real mutated copy: ignored files left out, untracked ones in, the mutated
    file's bytes (CRLF line ends read as text, as the copy writes them)."""
    from execlease_hook.manifest import read as manifest_read
    from execlease_hook.tlc.jar import resolve_jar
    from execlease_hook.traces import cache as trace_cache
    from tests.traces.suite_test import APP, UNBOUNDED, write_model

    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    path = write_model(git_repo, [APP], [UNBOUNDED])
    git_repo.write('.gitignore', '*.log\n')
    git_repo.write('app/run.log', 'ignored, beside the covered code')
    git_repo.write('app/helper.py', b'X = 1\r\n')  # untracked, not ignored
    git_repo.write('app/counter_app.py', git_repo.read('app/counter_app.py').replace('\n', '\r\n'))
    git_repo.add('.gitignore', 'verification')
    m = manifest_read.load(path, git_repo.path)
    t = jar.Tools(
        resolve_jar(git_repo.path, from_environ()),
        find_java(from_environ()),
        from_environ(),
    )
    (job,) = m.traces
    (mutation,) = m.code_mutations
    planned = code_mutations.mutated(m.root, mutation)
    without = trace_cache.cache_key(m, job, m.root, t, planned)
    with mutated_copy(m.root, mutation, planned.files) as copy:
        inside = code_mutations.in_copy(copy, planned)
        assert inside.data == planned.data and b'\r' not in planned.data
        assert trace_cache.cache_key(m, job, copy, t, inside) == without
    # Different from the unmutated job's key, and from a key that read the ignored file too.
    assert without != trace_cache.cache_key(m, job, m.root, t)


@pytest.mark.tlc  # its key holds the Java it would use (java -version)
def test_a_mutation_outside_the_covered_folders_has_a_key_of_its_own(
    git_repo: GitRepo, monkeypatch
):
    from execlease_hook.manifest import read as manifest_read
    from execlease_hook.manifest.model import CodeMutation, Replace
    from execlease_hook.tlc import jar
    from execlease_hook.traces import cache as trace_cache
    from tests.traces.suite_test import APP, write_model

    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    path = write_model(git_repo, [APP], [])
    git_repo.write('lib/util.py', 'def f():\n    return 1\n')
    m = manifest_read.load(path, git_repo.path)
    t = jar.Tools(
        jar.resolve_jar(git_repo.path, from_environ()),
        find_java(from_environ()),
        from_environ(),
    )
    (job,) = m.traces
    outside = CodeMutation('outside', 'lib/util.py', Replace('return 1', 'return 2'))
    planned = code_mutations.mutated(m.root, outside)
    # The covered folder (app/) is the same; the key must still not be the unmutated job's.
    assert trace_cache.cache_key(m, job, m.root, t, planned) != trace_cache.cache_key(
        m, job, m.root, t
    )
