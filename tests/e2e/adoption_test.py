"""The README's adoption steps, verbatim, on a scratch repository laid out as the getting-started
guide lays it out, with execlease installed by the README's install line into a fresh venv (a
git install, not editable: `readme_install`). The commits go through the real pre-commit and the
hooks `init` wrote, with PATH stripped of the venv (a GUI git client, a shell without the venv)
and with it (a shell with the venv active)."""

from __future__ import annotations

import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.conftest import git_env
from tests.e2e.walkthrough_test import walkthrough_blocks

README = Path(__file__).resolve().parents[2] / 'README.md'
# What a GUI client's hook sees: the system's folders, none of the user's environments.
SYSTEM_PATH = os.pathsep.join(p for p in ('/usr/local/bin', '/usr/bin', '/bin') if Path(p).is_dir())


def adoption_steps() -> list[str]:
    """The `sh` blocks of the README's steps 2 to 5 (step 1 is the install, above them)."""
    section = README.read_text(encoding='utf-8').split('## Start on your own repository', 1)[1]
    section = section.split('\n## ', 1)[0]
    return [
        textwrap.dedent(body)
        for _, body in re.findall(r'^( *)```sh\n(.*?)^\1```$', section, flags=re.M | re.S)
    ]


def test_the_readme_has_the_steps_the_test_runs():
    joined = '\n'.join(adoption_steps())
    for command in (
        'execlease init --spec verification/lock/Lock.tla --write-config',
        'execlease add app/lock.py::acquire --action Acquire',
        'execlease verify --update-coverage',
        'pre-commit install',
        'git commit -m',
    ):
        assert command in joined


def run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ('bash', '-c', 'set -e -o pipefail\n' + script),
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )


@pytest.mark.timeout(1800)
def test_the_readme_steps_from_any_git_client(
    tmp_path, readme_install, hook_repo, pre_commit_home, offline_tlc
):
    from tests import needs

    java = Path(needs.java())
    base = {k: v for k, v in git_env().items() if k not in ('COLUMNS', 'VIRTUAL_ENV')}
    base.update(
        {
            # The session's pre-commit store: the guard's environment for `hook_repo`, named as
            # init names it, is built there once for every test that commits through it
            # (guard_test.hook_config), and the walkthrough's (walkthrough_test.py). An environment
            # built from nothing by a consumer's first commit is packaging_test.py's try-repo test.
            'PRE_COMMIT_HOME': str(pre_commit_home),
            'HOME': str(tmp_path / 'home'),
            'PRE_COMMIT_COLOR': 'never',
        }
    )
    (tmp_path / 'home').mkdir()
    shell = {
        **base,
        'PATH': os.pathsep.join((str(readme_install), str(java.parent), SYSTEM_PATH)),
        'EXECLEASE_JAVA': str(java),
    }
    gui = {**base, 'PATH': SYSTEM_PATH}
    # The scratch repository of the guide (code and spec committed), then the README's steps.
    made = run(walkthrough_blocks()[0], tmp_path, shell)
    assert made.returncode == 0, made.stdout
    repo = tmp_path / 'lock-demo'
    steps = run('\n'.join(adoption_steps()), repo, shell)
    assert steps.returncode == 0, steps.stdout
    assert re.search(r'^execlease guard\.+Passed$', steps.stdout, re.M), steps.stdout

    path, rev = hook_repo
    version = run('execlease --version', repo, shell).stdout
    assert re.fullmatch(rf'execlease \S+ from git\+{re.escape(path.as_uri())}@{rev}\n', version)
    (hooks,) = yaml.safe_load((repo / '.pre-commit-config.yaml').read_text())['repos']
    assert (hooks['repo'], hooks['rev']) == (path.as_uri(), rev)
    assert [h['id'] for h in hooks['hooks']] == ['execlease-guard', 'execlease-verify']

    # From a git client without the venv: blocked, then accepted once the model is synced.
    edit = "perl -pi -e 's/until <= \\?/until < ?/' app/lock.py && git commit -qam 'acquire: expired only'"
    blocked = run(edit, repo, gui)
    assert blocked.returncode == 1, blocked.stdout
    assert re.search(r'^execlease guard\.+Failed$', blocked.stdout, re.M), blocked.stdout
    assert 'acquire: app/lock.py:1  (model action Acquire): covered code changed' in blocked.stdout
    assert 'not found' not in blocked.stdout
    sync = run("execlease verify --update-coverage --reason 'the model has no clock'", repo, shell)
    assert sync.returncode == 0, sync.stdout
    accepted = run("git commit -qam 'acquire: expired only'", repo, gui)
    assert accepted.returncode == 0, accepted.stdout
    # From a shell with the venv active: the same hooks, the same verdicts.
    blocked = run(
        "perl -pi -e 's/until < \\?/until <= ?/' app/lock.py && git commit -qam back", repo, shell
    )
    assert blocked.returncode == 1, blocked.stdout
    assert 'covered code changed' in blocked.stdout
    sync = run("execlease verify --update-coverage --reason 'the model has no clock'", repo, shell)
    assert sync.returncode == 0, sync.stdout
    accepted = run('git commit -qam back', repo, shell)
    assert accepted.returncode == 0, accepted.stdout
    log = run('git log --format=%s', repo, shell).stdout.splitlines()
    assert log == [
        'back',
        'acquire: expired only',
        'execlease: the lock model covers app/lock.py',
        'a lock, and its spec',
    ]


def test_the_hints_of_a_git_install_name_its_url(tmp_path, readme_install, hook_repo):
    """A hint to add an extra spells the install as it was made: `execlease[java]` alone would
    send pip to a package index, where this execlease is not."""
    path, rev = hook_repo
    env = {k: v for k, v in git_env().items() if k != 'VIRTUAL_ENV'}
    env.update(
        PATH=os.pathsep.join((str(readme_install), SYSTEM_PATH)),
        EXECLEASE_JAVA=str(tmp_path / 'no-java'),
        EXECLEASE_TLA_OFFLINE='1',
        COLUMNS='1000',
    )
    subprocess.run(('git', 'init', '-q', str(tmp_path / 'repo')), check=True, env=env)
    proc = subprocess.run(
        ('execlease', 'tools'),
        cwd=tmp_path / 'repo',
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert 'no Java 11+ found' in proc.stderr
    assert (
        f"add the java extra, a JRE through pip: pip install 'execlease[java] @ "
        f"git+{path.as_uri()}@{rev}'"
    ) in proc.stderr
