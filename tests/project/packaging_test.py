"""The packaging itself: hook manifest, README promises, CI, dogfooding config, wheel contents."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
HOOKS = yaml.safe_load((ROOT / '.pre-commit-hooks.yaml').read_text())
RENAMED = {'execlease-coverage': 'execlease-guard', 'execlease-tlc': 'execlease-verify'}
CURRENT = [h for h in HOOKS if h['id'] not in RENAMED]
README = (ROOT / 'README.md').read_text()
PYPROJECT = tomllib.loads((ROOT / 'pyproject.toml').read_text())


def quick_start_commands() -> list[str]:
    section = README.split('## Quick start', 1)[1].split('\n## ', 1)[0]
    return re.findall(r'^```sh\n(.+?)\n```$', section, re.M | re.S)


@pytest.mark.parametrize('hook_id', [h['id'] for h in CURRENT])
def test_every_hook_id_is_in_readme(hook_id):
    assert f'`{hook_id}`' in README


def test_each_hook_id_is_the_command_it_runs():
    assert [(h['id'], h['entry'].split()[:2]) for h in CURRENT] == [
        ('execlease-guard', ['execlease', 'guard']),
        ('execlease-verify', ['execlease', 'verify']),
    ]


@pytest.mark.parametrize(('old', 'new'), RENAMED.items())
def test_a_renamed_id_runs_the_same_hook_and_says_so(old, new):
    """For one release the old id is the new hook, shown even when it passes (verbose: true, else
    pre-commit hides a passing hook's output) with the note of what to change."""
    from execlease_hook.commands import init_hooks

    assert init_hooks.RENAMED == RENAMED
    (hook,) = (h for h in HOOKS if h['id'] == old)
    (current,) = (h for h in HOOKS if h['id'] == new)
    assert hook['entry'] == f'{current["entry"]} --renamed-hook {old}'
    assert hook['verbose'] is True
    same = {
        k: v for k, v in hook.items() if k not in ('id', 'name', 'description', 'entry', 'verbose')
    }
    assert same == {
        k: v for k, v in current.items() if k not in ('id', 'name', 'description', 'entry')
    }
    upgrading = (ROOT / 'docs' / 'upgrading.md').read_text()
    changelog = (ROOT / 'CHANGELOG.md').read_text()
    assert f'`{old}`' in upgrading and f'`{new}`' in upgrading
    assert f'`{old}`' in changelog


@pytest.mark.e2e
def test_validate_manifest():
    subprocess.run(
        (sys.executable, '-m', 'pre_commit', 'validate-manifest', '.pre-commit-hooks.yaml'),
        cwd=ROOT,
        check=True,
    )


@pytest.mark.e2e
def test_validate_own_config():
    subprocess.run(
        (sys.executable, '-m', 'pre_commit', 'validate-config', '.pre-commit-config.yaml'),
        cwd=ROOT,
        check=True,
    )


def test_hook_entries_are_console_scripts():
    scripts = PYPROJECT['project']['scripts']
    for hook in HOOKS:
        assert hook['entry'].split()[0] in scripts
        assert hook['language'] == 'python'
        assert hook['minimum_pre_commit_version'] == '3.2.0'


def test_fast_hook_runs_on_deletions():
    (fast,) = (h for h in HOOKS if h['id'] == 'execlease-guard')
    assert fast['always_run'] is True
    assert fast['stages'] == [
        'pre-commit',
        'pre-merge-commit',
    ]  # a clean merge runs only the latter


def test_slow_hook_is_manual_and_pre_push():
    (slow,) = (h for h in HOOKS if h['id'] == 'execlease-verify')
    assert slow['stages'] == ['manual', 'pre-push']
    assert (
        slow['entry'] == 'execlease verify --pushed'
    )  # judges the pushed commits, not the working tree
    assert slow['pass_filenames'] is False
    assert slow['require_serial'] is True


def test_readme_has_exactly_two_quick_start_commands():
    commands = quick_start_commands()
    assert len(commands) == 2, commands
    main_cmd, test_cmd = commands
    assert main_cmd.endswith('execlease verify')
    assert test_cmd.endswith('python -m pytest -n auto')


def test_ci_runs_the_readme_commands_verbatim():
    ci = (ROOT / '.ci' / 'run').read_text()
    assert ci.startswith('#!/usr/bin/env bash\n')
    assert 'set -euo pipefail' in ci
    lines = ci.splitlines()
    for command in quick_start_commands():
        assert command in lines, f'.ci/run does not run the README command: {command}'


def test_dogfood_config_runs_the_published_hooks():
    """This repository's own hooks are the published ones run from the working tree: each key
    equal but the entry (`python -m ` before it) and the dependencies, one list for both hooks:
    pyproject's runtime dependencies and the bundled-tlc extra."""
    config = yaml.safe_load((ROOT / '.pre-commit-config.yaml').read_text())
    (local, gates) = config['repos']
    assert local['repo'] == gates['repo'] == 'local'
    wanted = (
        PYPROJECT['project']['dependencies']
        + PYPROJECT['project']['optional-dependencies']['bundled-tlc']
    )
    for hook, published in zip(local['hooks'], CURRENT, strict=True):
        assert hook.pop('additional_dependencies') == wanted, hook['id']
        assert hook.pop('entry') == f'python -m {published["entry"]}'
        assert hook == {k: v for k, v in published.items() if k != 'entry'}
    # The gates CI runs use the tools of the `test` extra, as a contributor's venv has them.
    assert {h['id'] for h in gates['hooks']} == {'ruff-check', 'ruff-format', 'mypy'}
    assert {h['language'] for h in gates['hooks']} == {'system'}


def test_wheel_ships_only_the_package(wheel_names):
    names = wheel_names  # built from a copy of the tree (tests/project/conftest.py)
    tops = {n.split('/')[0] for n in names}
    assert 'execlease_hook' in tops
    assert not tops & {'examples', 'tests', 'benchmarks', 'verification'}, tops
    assert 'execlease_hook/cli/main.py' in names


@pytest.mark.e2e
@pytest.mark.timeout(900)
def test_try_repo_installs_and_runs_the_fast_hook(covered_repo, tmp_path):
    """From a scratch consumer repository, the real pre-commit installs this package and runs it."""
    # One of the slowest tests, on purpose: pre-commit builds the hook's environment from nothing
    # (a venv, pip installing the working tree and its grammar wheels), which is what a consumer's
    # first commit does. try-repo snapshots the working tree as a new commit, so no store shared
    # with the other end-to-end tests could hold that environment already.
    from tests.conftest import git_env

    env = git_env()
    env['PRE_COMMIT_HOME'] = str(tmp_path / 'pre-commit-home')
    env['PRE_COMMIT_COLOR'] = 'never'
    # Every hook of the commit stage: the guard, and the guard under its old id (one environment).
    proc = subprocess.run(
        (sys.executable, '-m', 'pre_commit', 'try-repo', str(ROOT), '--all-files'),
        cwd=covered_repo.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r'execlease guard\.+Passed', out), out
    assert re.search(r'execlease guard \(old hook id, use execlease-guard\)\.+Passed', out), out
    assert '- hook id: execlease-coverage' in out
    assert 'execlease: the hook id execlease-coverage is renamed execlease-guard' in out
    assert '\n  id: execlease-guard\n' in out
