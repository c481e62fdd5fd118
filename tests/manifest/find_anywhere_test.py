"""Models wherever they live: every execlease manifest.json git tracks (or would track) is a
model, found by its content; verification/<name>/manifest.json always is; a web app's
manifest.json is not; --model narrows. The guard and the suite find them the same way."""

from __future__ import annotations

import json

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.find import find_models, is_manifest
from tests.conftest import LEASE_PY, LEASE_TLA, GitRepo, manifest_json, sync_coverage

WEB = json.dumps({'name': 'app', 'short_name': 'app', 'icons': [], 'version': '1.0'})
TINY = {'version': 1, 'spec': 'Tiny.tla', 'checks': [{'name': 'main', 'config': 'Tiny.cfg'}]}


@pytest.mark.parametrize(
    ('data', 'expected'),
    (
        (TINY, True),
        ({'$schema': '../../execlease_hook/schemas/manifest.schema.json', 'spec': 'X.tla'}, True),
        ({'$schema': 'manifest.schema.json'}, True),
        ({'name': 'app', 'version': '1.0'}, False),
        ({'version': 1, 'spec': 'main.js'}, False),
        ([TINY], False),
    ),
)
def test_a_manifest_is_told_by_its_content(data, expected):
    assert is_manifest(json.dumps(data).encode()) is expected


def test_broken_json_is_no_manifest():
    assert not is_manifest(b'{"spec": "X.tla", ')
    assert not is_manifest(None)


def test_models_anywhere_in_the_repository_and_nothing_else(git_repo: GitRepo):
    git_repo.write('specs/raft/manifest.json', json.dumps(TINY))
    git_repo.write('public/manifest.json', WEB)  # a web app's: not a model
    git_repo.write('verification/old/manifest.json', '{}')  # the usual place: always a model
    git_repo.write('new/model/manifest.json', json.dumps(TINY))  # not yet added: still found
    git_repo.write('build/out/manifest.json', json.dumps(TINY))  # ignored by git: not found
    git_repo.write('.gitignore', 'build/\n')
    git_repo.add('specs', 'public', 'verification', '.gitignore')
    root = git_repo.path
    assert find_models(root, None) == [
        root / 'new/model/manifest.json',
        root / 'specs/raft/manifest.json',
        root / 'verification/old/manifest.json',
    ]
    assert find_models(root, 'specs/raft') == [root / 'specs/raft/manifest.json']


def test_a_folder_outside_git_is_walked(tmp_path):
    (tmp_path / 'a' / 'b').mkdir(parents=True)
    (tmp_path / 'a' / 'b' / 'manifest.json').write_text(json.dumps(TINY))
    (tmp_path / 'node_modules' / 'x').mkdir(parents=True)
    (tmp_path / 'node_modules' / 'x' / 'manifest.json').write_text(json.dumps(TINY))
    (tmp_path / 'web').mkdir()
    (tmp_path / 'web' / 'manifest.json').write_text(WEB)
    assert find_models(tmp_path, None) == [tmp_path / 'a' / 'b' / 'manifest.json']


def test_no_model_anywhere_says_what_it_looked_for(git_repo: GitRepo):
    git_repo.write('public/manifest.json', WEB)
    git_repo.add('public')
    with pytest.raises(
        CannotRun,
        match=r'no model found: expected verification/<name>/manifest.json, or an '
        r'execlease manifest.json \("version" and a "spec" \.tla file\) anywhere',
    ):
        find_models(git_repo.path, None)


MODEL = 'models/lease'


@pytest.fixture
def elsewhere(git_repo: GitRepo) -> GitRepo:
    """The conftest lease model, kept in models/lease/ instead of verification/, synced."""
    git_repo.write('app/lease.py', LEASE_PY)
    # Bounded, so that TLC can check it (the conftest spec counts forever).
    git_repo.write(
        f'{MODEL}/Lease.tla',
        LEASE_TLA.replace('VARIABLE x', 'EXTENDS Naturals\nVARIABLE x').replace(
            "Claim == x' = x + 1", "Claim == x' = (x + 1) % 3"
        ),
    )
    git_repo.write(f'{MODEL}/Lease.cfg', 'INIT Init\nNEXT Next\n')
    git_repo.write(f'{MODEL}/manifest.json', manifest_json())
    git_repo.write('public/manifest.json', WEB)
    git_repo.add('.')
    git_repo.commit('code and model')
    sync_coverage(git_repo.path, f'{MODEL}/manifest.json')
    git_repo.add('.')
    git_repo.commit('sync')
    return git_repo


def guard(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(['guard', *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_the_guard_judges_a_model_outside_verification(elsewhere, capsys):
    elsewhere.write('app/lease.py', LEASE_PY.replace('rowcount == 1', 'rowcount >= 1'))
    elsewhere.add('app/lease.py')
    code, out = guard(capsys, 'app/lease.py')
    assert code == 1, out
    assert f'execlease guard: {MODEL}/manifest.json: the commit is blocked' in out


def test_the_guard_leaves_a_web_manifest_alone(elsewhere, capsys):
    elsewhere.write('public/manifest.json', WEB.replace('1.0', '1.1'))
    elsewhere.add('public/manifest.json')
    code, out = guard(capsys, '--verbose', 'public/manifest.json')
    assert code == 0, out


def test_a_pushed_range_judges_a_model_outside_verification(elsewhere, capsys):
    base = elsewhere.head()
    elsewhere.write('app/lease.py', LEASE_PY.replace('rowcount == 1', 'rowcount >= 1'))
    elsewhere.add('app/lease.py')
    elsewhere.commit('change covered code')
    code, out = guard(capsys, '--range', f'{base}..HEAD')
    assert code == 1, out
    assert 'claim-lease' in out


def test_coverage_reads_a_model_outside_verification(elsewhere, capsys):
    assert cli.main(['coverage']) == 0, capsys.readouterr()
    assert MODEL in capsys.readouterr().out


@pytest.mark.usefixtures('offline_tlc')
def test_verify_runs_a_model_outside_verification(elsewhere, capsys):
    code = cli.main(['verify', '--quick'])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f'model {MODEL}:' in out and 'public' not in out
