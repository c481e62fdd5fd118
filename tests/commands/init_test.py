from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from execlease_hook.cli import main as cli
from execlease_hook.commands import init as init_cmd
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest import notes_table as notes_map
from tests.conftest import git_env

SPEC = '---- MODULE Lock ----\nVARIABLE x\nInit == x = 0\nNext == x\' = x\nInv == x = 0\n====\n'
CFG = 'INIT Init\nNEXT Next\nINVARIANT Inv\n'


@pytest.fixture
def spec_repo(git_repo):
    git_repo.write('verification/lock/Lock.tla', SPEC)
    git_repo.write('verification/lock/Lock.cfg', CFG)
    git_repo.write('verification/lock/LockBig.cfg', CFG)
    return git_repo


def snapshot(repo):
    return {p.relative_to(repo.path).as_posix(): p.read_bytes()
            for p in repo.path.rglob('*') if p.is_file() and '.git' not in p.parts}


def test_scaffolds_a_model_that_every_command_accepts(spec_repo, capsys):
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla', '--write-config']) == 0
    out = capsys.readouterr().out
    m = manifest_read.load(spec_repo.path / 'verification/lock/manifest.json', spec_repo.path)
    assert m.spec == 'Lock.tla'
    assert [(c.name, c.config) for c in m.checks] == [('main', 'Lock.cfg'), ('LockBig', 'LockBig.cfg')]
    assert m.coverage.entries == () and m.coverage.sync_commit is None
    notes = spec_repo.read('verification/lock/NOTES.md')
    for heading in ('Assumptions', 'Bounds', 'Outside the model', 'Results', 'Findings',
                    'Code-to-action map'):
        assert f'\n## {heading}\n' in notes
    assert notes_map.has_markers(notes)
    # The generated table is what --write-map writes: nothing to rewrite (exit 1: never synced).
    assert cli.main(['coverage', '--write-map']) == 1
    listing = capsys.readouterr().out
    assert 'code-to-action table already current' in listing and 'model never synced' in listing
    assert spec_repo.git('check-ignore', '.tmp/tla/tla2tools.jar').strip() == '.tmp/tla/tla2tools.jar'
    config = yaml.safe_load(spec_repo.read('.pre-commit-config.yaml'))
    hooks = {h['id']: h for h in config['repos'][0]['hooks']}
    assert hooks['execlease-coverage']['entry'] == 'execlease guard'
    assert hooks['execlease-tlc']['entry'] == 'execlease verify --pushed'
    assert hooks['execlease-coverage']['stages'] == ['pre-commit', 'pre-merge-commit']
    proc = subprocess.run((sys.executable, '-m', 'pre_commit', 'validate-config', '.pre-commit-config.yaml'),
                          cwd=spec_repo.path, env=git_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for created in ('created verification/lock/manifest.json', 'created verification/lock/NOTES.md',
                    'added .tmp/ to .gitignore', 'created .pre-commit-config.yaml'):
        assert created in out


def test_the_manifest_names_a_schema_copy_that_validates_it(spec_repo, capsys):
    """The package is installed outside this scratch repository: "$schema" names a copy beside
    the manifest (a path into a venv differs between machines), and the copy validates it."""
    import json

    import jsonschema

    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla']) == 0
    out = capsys.readouterr().out
    data = json.loads(spec_repo.read('verification/lock/manifest.json'))
    assert list(data)[0] == '$schema' and data['$schema'] == 'manifest.schema.json'
    copy = spec_repo.path / 'verification/lock/manifest.schema.json'
    assert copy.read_bytes() == init_cmd.SHIPPED_SCHEMA.read_bytes()
    jsonschema.Draft7Validator(json.loads(copy.read_text())).validate(data)
    assert 'created verification/lock/manifest.schema.json' in out
    # An older copy (an upgrade since) is brought up to date; a file of the user's is not touched.
    copy.write_text(json.dumps({'title': json.loads(copy.read_text())['title'], 'old': True}))
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla']) == 0
    assert copy.read_bytes() == init_cmd.SHIPPED_SCHEMA.read_bytes()
    assert 'updated verification/lock/manifest.schema.json' in capsys.readouterr().out
    copy.write_text('{"mine": 1}\n')
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla']) == 0
    assert copy.read_text() == '{"mine": 1}\n'
    assert 'is not execlease\'s manifest schema' in capsys.readouterr().out


def test_inside_the_execlease_repository_it_names_the_shipped_schema():
    """Where git tracks the shipped schema (this repository), "$schema" names it directly."""
    root = init_cmd.SHIPPED_SCHEMA.parents[2]
    p = init_cmd.ModelPlan(root, root / 'verification' / 'execution-lease', 'ExecutionLease.tla', ())
    assert init_cmd.schema_ref(p) == '../../execlease_hook/schemas/manifest.schema.json'
    assert (p.folder / init_cmd.schema_ref(p)).resolve() == init_cmd.SHIPPED_SCHEMA


def test_running_again_leaves_every_file_alone(spec_repo, capsys):
    argv = ['init', '--spec', 'verification/lock/Lock.tla', '--write-config']
    assert cli.main(argv) == 0
    spec_repo.write('verification/lock/NOTES.md', '# my notes\n')     # the user's own
    before = snapshot(spec_repo)
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert snapshot(spec_repo) == before
    out = capsys.readouterr().out
    assert 'left alone: verification/lock/manifest.json exists' in out
    assert 'left alone: verification/lock/NOTES.md exists; it has no code-to-action markers' in out
    assert 'left alone: .gitignore already ignores .tmp/' in out
    assert 'left alone: .pre-commit-config.yaml exists; add these hooks' in out
    assert '    -   id: execlease-coverage' in out


def test_an_existing_gitignore_and_config_keep_their_lines(spec_repo, capsys):
    spec_repo.write('.gitignore', 'build/')          # no newline at the end
    spec_repo.write('.pre-commit-config.yaml', 'repos: []\n')
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla', '--write-config']) == 0
    assert spec_repo.read('.gitignore').startswith('build/\n')
    assert spec_repo.read('.gitignore').endswith('\n.tmp/\n')
    assert spec_repo.read('.pre-commit-config.yaml') == 'repos: []\n'
    assert 'add these hooks under its `repos:`' in capsys.readouterr().out


def test_without_write_config_the_config_is_printed(spec_repo, capsys):
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla']) == 0
    out = capsys.readouterr().out
    assert not (spec_repo.path / '.pre-commit-config.yaml').exists()
    assert 'no .pre-commit-config.yaml: write this one' in out
    printed = '\n'.join(line[4:] for line in out.splitlines() if line.startswith('    '))
    assert yaml.safe_load(printed)['default_install_hook_types'] == ['pre-commit', 'pre-merge-commit', 'pre-push']


def test_cfg_and_a_folder_outside_verification(git_repo, capsys):
    git_repo.write('specs/lock/Lock.tla', SPEC)
    git_repo.write('specs/lock/Lock.cfg', CFG)
    git_repo.write('specs/lock/Other.cfg', CFG)
    assert cli.main(['init', '--model', 'specs/lock', '--cfg', 'specs/lock/Other.cfg']) == 0
    out = capsys.readouterr().out
    m = manifest_read.load(git_repo.path / 'specs/lock/manifest.json', git_repo.path)
    assert [(c.name, c.config) for c in m.checks] == [('Other', 'Other.cfg')]
    assert 'entry: execlease guard --model specs/lock' in out      # not found by default
    assert 'execlease verify --update-coverage --model specs/lock' in out


@pytest.mark.parametrize(
    ('files', 'argv', 'message'),
    (
        ({}, ['init'], 'name the spec'),
        ({}, ['init', '--spec', 'verification/lock/Nope.tla'], 'no such .tla file'),
        ({'verification/lock/Lock.tla': SPEC}, ['init', '--spec', 'verification/lock/Lock.tla'],
         'no .cfg beside'),
        ({'verification/lock/Lock.tla': SPEC, 'verification/lock/B.tla': SPEC,
          'verification/lock/Lock.cfg': CFG}, ['init', '--model', 'verification/lock'],
         '2 .tla files (B.tla, Lock.tla); name the one TLC checks with --spec'),
        ({'verification/lock/Lock.tla': SPEC, 'other/Lock.cfg': CFG},
         ['init', '--spec', 'verification/lock/Lock.tla', '--cfg', 'other/Lock.cfg'],
         'is not inside the model folder'),
        ({'elsewhere/Lock.tla': SPEC, 'verification/lock/Lock.cfg': CFG},
         ['init', '--spec', 'elsewhere/Lock.tla', '--model', 'verification/lock'],
         'is not inside the model folder'),
        ({'verification/lock/Lock.tla': SPEC}, ['init', '--spec', '../outside.tla'],
         'outside the repository'),
        ({}, ['init', '--model', 'verification/none'], 'no such folder'),
    ),
    ids=('no-spec', 'spec-missing', 'no-cfg', 'two-specs', 'cfg-outside', 'spec-outside-model',
         'outside-repo', 'no-folder'),
)
def test_refusals_exit_2_and_write_nothing(git_repo, capsys, files, argv, message):
    for rel, text in files.items():
        git_repo.write(rel, text)
    before = snapshot(git_repo)
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert snapshot(git_repo) == before
