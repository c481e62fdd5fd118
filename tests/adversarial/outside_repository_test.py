"""Every file TLC reads, and the manifest itself, must be inside the repository.

Before, a `.tla` module beside the spec that was a symlink to a file elsewhere was read and given
to TLC (a token of the outside file showed in its parse error), and a manifest.json that was such
a symlink judged the repository by rules nobody committed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import GitRepo

MODEL = 'verification/counter'
SPEC = (
    "---- MODULE Counter ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x < 3 /\\ x' = x + 1\n"
    'TypeOK == x \\in 0..3\n====\n'
)
TOKEN = 'OUTSIDE_SECRET_TOKEN_7f3a'


def run(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def model(repo: GitRepo) -> Path:
    repo.write(f'{MODEL}/Counter.tla', SPEC)
    repo.write(f'{MODEL}/Counter.cfg', 'INIT Init\nNEXT Next\nINVARIANT TypeOK\n')
    return repo.write(
        f'{MODEL}/manifest.json',
        json.dumps(
            {
                'version': 1,
                'spec': 'Counter.tla',
                'checks': [{'name': 'main', 'config': 'Counter.cfg'}],
                'coverage': {
                    'entries': [],
                    'abstract': [{'action': 'Next', 'reason': 'no code in this test'}],
                },
            }
        ),
    )


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / 'elsewhere'
    folder.mkdir()
    return folder


@pytest.mark.usefixtures('offline_tlc')
def test_a_module_beside_the_spec_linking_outside_is_refused(git_repo, capsys, outside):
    model(git_repo)
    (outside / 'Secret.tla').write_text(f'---- MODULE Secret ----\n{TOKEN} ==== broken\n')
    os.symlink(outside / 'Secret.tla', git_repo.path / MODEL / 'Secret.tla')
    code, out = run(capsys, 'verify', '--quick', '--no-cache')
    assert code == 2, out
    assert (
        f'{git_repo.path / MODEL / "Secret.tla"} resolves to {outside / "Secret.tla"}, outside the repository'
        in out
    )
    assert TOKEN not in out


@pytest.mark.tlc  # it runs verify, which probes Java (java -version)
@pytest.mark.parametrize('field', ['spec', 'config'])
def test_a_spec_or_cfg_linking_outside_is_refused(git_repo, capsys, outside, field):
    path = model(git_repo)
    name = 'Counter.tla' if field == 'spec' else 'Counter.cfg'
    (outside / name).write_bytes((git_repo.path / MODEL / name).read_bytes())
    (git_repo.path / MODEL / name).unlink()
    os.symlink(outside / name, git_repo.path / MODEL / name)
    for command in (['verify', '--quick'], ['coverage']):
        code, out = run(capsys, *command)
        assert (
            code == 2 and 'outside the' in out and path.relative_to(git_repo.path).as_posix() in out
        ), out


def test_a_manifest_linking_outside_is_refused(git_repo, capsys, outside):
    path = model(git_repo)
    (outside / 'manifest.json').write_bytes(path.read_bytes())
    path.unlink()
    os.symlink(outside / 'manifest.json', path)
    git_repo.add('.')
    for command in (['coverage'], ['verify', '--quick']):
        code, out = run(capsys, *command)
        assert code == 2, (command, out)
        assert f'{path} resolves to {outside / "manifest.json"}, outside the repository' in out, (
            command,
            out,
        )
    # The guard reads the manifest from the index, where a symlink is its target's name, not JSON.
    for command in (['guard', '--all'], ['guard']):
        code, out = run(capsys, *command)
        assert code == 2 and str(path) in out, (command, out)


def test_a_model_folder_outside_the_repository_is_refused(git_repo, capsys, outside):
    model(git_repo)
    for name in ('Counter.tla', 'Counter.cfg', 'manifest.json'):
        (outside / name).write_bytes((git_repo.path / MODEL / name).read_bytes())
    code, out = run(capsys, 'verify', '--quick', '--model', str(outside))
    assert code == 2 and 'outside the repository' in out, out
