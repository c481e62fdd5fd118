"""One spelling per path: the guard, `coverage` and `verify` refuse the same spellings the same way.

Before, `./app/lease.py` (or `app//lease.py`, `app/./lease.py`, `App/lease.py`) read the file for
`coverage` and `verify`, while the guard compared it with git's `app/lease.py` as a string, never
checked the entry, and let a covered change be committed (exit 0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import ENTRIES, LEASE_PY, MANIFEST, GitRepo, manifest_json

BODY_EDIT = LEASE_PY.replace('return cur.rowcount == 1', 'return cur.rowcount >= 1')


def run(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def commit_manifest(repo: GitRepo, data: str) -> None:
    repo.write(MANIFEST, data)
    repo.add(MANIFEST)
    repo.commit('manifest spelled another way')


def with_path(path: str) -> str:
    entries: list[dict[str, object]] = [{**ENTRIES[0], 'path': path}, *ENTRIES[1:]]
    return manifest_json(entries)


SPELLINGS = [
    ('dot-slash', './app/lease.py', "write 'app/lease.py'"),
    ('double-slash', 'app//lease.py', "write 'app/lease.py'"),
    ('slash-dot-slash', 'app/./lease.py', "write 'app/lease.py'"),
    ('trailing-slash', 'app/lease.py/', 'ends with "/"'),
    ('dot-dot', 'app/../app/lease.py', 'leaves its folder with ".."'),
    (
        'case-variant',
        'App/lease.py',
        "differs in letter case from the file on disk; write 'app/lease.py'",
    ),
    ('case-variant-file', 'app/LEASE.py', 'differs in letter case'),
    ('nul', 'app/lease.py\0', 'contains a control character'),
    ('newline', 'app/lease.py\n', 'contains a control character'),
]


@pytest.mark.tlc  # it runs verify, which probes Java (java -version)
@pytest.mark.parametrize(
    ('path', 'message'), [s[1:] for s in SPELLINGS], ids=[s[0] for s in SPELLINGS]
)
def test_guard_coverage_and_verify_refuse_the_same_spelling(covered_repo, capsys, path, message):
    commit_manifest(covered_repo, with_path(path))
    covered_repo.write('app/lease.py', BODY_EDIT)
    covered_repo.add('app/lease.py')
    for command in (['guard'], ['guard', '--all'], ['coverage'], ['verify', '--quick']):
        code, out = run(capsys, *command)
        assert code == 2, (command, out)
        assert 'coverage.entries[0].path' in out and message in out, (command, out)
        assert 'Traceback' not in out


@pytest.mark.parametrize('spec', ['./Lease.tla', 'sub/../Lease.tla', 'Lease.tla/', 'lease.tla'])
def test_a_model_path_spelled_another_way_is_refused(covered_repo, capsys, spec):
    # Before, a spec named './Lease.tla' was never compared: a staged spec change passed the guard.
    data = json.loads(manifest_json())
    data['spec'] = spec
    commit_manifest(covered_repo, json.dumps(data))
    covered_repo.write(
        'verification/lease/Lease.tla',
        "---- MODULE Lease ----\nVARIABLE x\nInit == x = 1\nNext == x' = x\n====\n",
    )
    covered_repo.add('verification/lease/Lease.tla')
    code, out = run(capsys, 'guard')
    assert code == 2 and 'spec: ' in out, out


@pytest.fixture
def submodule_repo(covered_repo: GitRepo, tmp_path: Path) -> GitRepo:
    """covered_repo with lib/ a real git submodule holding lease.py, covered by the manifest."""
    lib = GitRepo(tmp_path / 'lib-origin')
    lib.path.mkdir()
    lib.git('init', '-q', '-b', 'main')
    lib.write('lease.py', LEASE_PY)
    lib.add('lease.py')
    lib.commit('lib')
    covered_repo.git(
        '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', str(lib.path), 'lib'
    )
    covered_repo.commit('lib as a submodule')
    return covered_repo


@pytest.mark.tlc  # it runs verify, which probes Java (java -version)
def test_covered_code_in_a_submodule_is_refused(submodule_repo, capsys):
    commit_manifest(submodule_repo, with_path('lib/lease.py'))
    for command in (['guard', '--all'], ['coverage'], ['verify', '--quick']):
        code, out = run(capsys, *command)
        assert code == 2, (command, out)
        assert "coverage.entries[0].path: 'lib/lease.py' is inside lib, a git submodule" in out, out


def test_a_bumped_submodule_with_changed_covered_code_does_not_commit(
    submodule_repo, capsys, tmp_path
):
    # The manifest names the file the way it is in the submodule; the guard's quick filter sees
    # only the gitlink `lib` staged. Before, nothing was checked and the commit passed (exit 0).
    commit_manifest(submodule_repo, with_path('lib/lease.py'))
    inner = GitRepo(submodule_repo.path / 'lib')
    inner.write('lease.py', BODY_EDIT)
    inner.add('lease.py')
    inner.commit('tighten claim')
    submodule_repo.add('lib')
    code, out = run(capsys, 'guard')
    assert code == 2, out
    assert 'lib/lease.py' in out and 'submodule' in out


def test_a_folder_staged_as_a_submodule_above_covered_code_is_refused(covered_repo, capsys):
    # The quick filter's view: a staged path that is a folder above a covered path.
    from execlease_hook.core import paths

    assert paths.touched({'app/lease.py'}, {'app'})
    assert paths.touched({'app/lease.py'}, {'App/Lease.py'})
    assert not paths.touched({'app/lease.py'}, {'app/other.py', 'ap'})
    assert paths.above_covered({'claim': 'app/lease.py'}, {'app'}) and not paths.above_covered(
        {'claim': 'app/lease.py'}, {'app/lease.py'}
    )


@pytest.mark.parametrize('path', ['../outside.py', '../../etc/passwd', 'app/../../x.py'])
def test_a_path_leaving_the_repository_names_the_field_in_the_guard(covered_repo, capsys, path):
    # Before, the guard asked git for the staged blob first and showed git's raw error.
    covered_repo.write(MANIFEST, manifest_json([dict(ENTRIES[0], path=path)]))
    covered_repo.add(MANIFEST)
    code, out = run(capsys, 'guard')
    assert code == 2
    assert 'coverage.entries[0].path' in out and 'leaves its folder with ".."' in out, out
    assert '`git ' not in out
