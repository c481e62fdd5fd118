"""docs/how-to/ci.md's GitHub workflow, run: the `verify` job's steps executed in order as a
runner would, every `run:` step verbatim in bash and each `uses:` step done as its action does it
(checkout: a clone with full history; setup-python: the venv of `readme_install`; cache: restore
by the exact key before, save after a miss), on a scratch repository laid out as TLA+ projects
are: a wrapper module MCLock.tla over the spec, in `specs/lock/` (not under verification/), and a
library jar served from 127.0.0.1. The upstream TLA+ tools are served from 127.0.0.1 as well
(EXECLEASE_TLA_URL): this machine has no other network. The first run downloads the jars, the
second restores them from the cache and downloads nothing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests import libraries_support as support
from tests import needs
from tests.conftest import GitRepo, git_env

GUIDE = Path(__file__).resolve().parents[2] / 'docs' / 'how-to' / 'ci.md'
LOCK_TLA = """\
---- MODULE Lock ----
EXTENDS Naturals, Limits
CONSTANT N
VARIABLE x
Init == x = 0
Next == x < N /\\ x' = x + 1
TypeOK == InRange(x, N)
====
"""
MC_TLA = '---- MODULE MCLock ----\nEXTENDS Lock\nMCN == 3\n====\n'
MC_CFG = 'CONSTANT N <- MCN\nINIT Init\nNEXT Next\nINVARIANT TypeOK\nCHECK_DEADLOCK FALSE\n'


def verify_job() -> dict:
    text = GUIDE.read_text(encoding='utf-8')
    blocks = [yaml.safe_load(b) for b in re.findall(r'^```yaml\n(.*?)^```$', text, re.M | re.S)]
    (workflow,) = [b for b in blocks if 'jobs' in b]
    return workflow['jobs']['verify']


def expand(text: str, contexts: dict[str, str]) -> str:
    """GitHub's `${{ NAME }}` expressions, each one the test provides (any other fails)."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        assert name in contexts, (
            f'the recipe uses ${{{{ {name} }}}}, which this test does not provide'
        )
        return contexts[name]

    return re.sub(r'\$\{\{\s*(.+?)\s*\}\}', one, text)


@pytest.fixture
def server(lib_jar: Path) -> Iterator[support.Server]:
    files = {
        'dl/Limits-1.0.jar': lib_jar.read_bytes(),
        'dl/tla2tools.jar': Path(needs.tla_jar()).read_bytes(),
    }
    yield from support.serve(files)


@pytest.fixture(scope='module')
def lib_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.limits_jar(tmp_path_factory)


def scratch(repo: GitRepo, server: support.Server, lib_jar: Path) -> None:
    repo.write('specs/lock/Lock.tla', LOCK_TLA)
    repo.write('specs/lock/MCLock.tla', MC_TLA)
    repo.write('specs/lock/MCLock.cfg', MC_CFG)
    repo.write(
        'specs/lock/manifest.json',
        json.dumps(
            {
                'version': 1,
                'spec': 'MCLock.tla',
                'checks': [{'name': 'main', 'config': 'MCLock.cfg'}],
                'libraries': [
                    {
                        'url': support.url(server, 'dl/Limits-1.0.jar'),
                        'sha256': support.sha256(lib_jar),
                        'name': 'Limits',
                    }
                ],
            },
            indent=2,
        )
        + '\n',
    )
    repo.write('.gitignore', '.tmp/\n')
    repo.add('.')
    repo.commit('a lock spec and its model, with a library jar')


def run_job(job: dict, origin: Path, workspace: Path, cache: Path, env: dict[str, str]) -> str:
    """The job's steps on a fresh checkout in `workspace`; the output of its `run:` steps."""
    output = workspace.parent / f'{workspace.name}.github-output'
    output.write_text('')
    env = {**env, 'GITHUB_OUTPUT': str(output)}
    contexts = {'matrix.shard': '1', 'vars.EXECLEASE_GIT': env['EXECLEASE_GIT']}
    env.update({k: expand(str(v), contexts) for k, v in job.get('env', {}).items()})
    log, saves = [], []
    for step in job['steps']:
        uses = step.get('uses', '')
        if 'run' in step:
            proc = subprocess.run(
                ('bash', '-e', '-c', expand(step['run'], contexts)),
                cwd=workspace,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=900,
            )
            log.append(f'$ {step["run"]}\n{proc.stdout}')
            assert proc.returncode == 0, '\n'.join(log)
            if 'id' in step:
                for line in output.read_text().splitlines():
                    name, _, value = line.partition('=')
                    contexts[f'steps.{step["id"]}.outputs.{name}'] = value
        elif uses.startswith('actions/checkout@'):
            assert step['with']['fetch-depth'] == 0
            subprocess.run(('git', 'clone', '-q', str(origin), str(workspace)), check=True, env=env)
        elif uses.startswith('actions/setup-python@'):
            assert step['with']['python-version'] == '3.11'  # the venv's Python is on PATH
        elif uses.startswith('actions/cache@'):
            key, path = expand(step['with']['key'], contexts), step['with']['path']
            assert 'restore-keys' not in step['with']
            stored = cache / key
            if stored.is_dir():
                shutil.copytree(stored, workspace / path)
            else:  # saved when the job ends, as the action's post step does
                saves.append((workspace / path, stored))
            log.append(f'cache {key}: {"hit" if stored.is_dir() else "miss"}')
        elif uses.startswith('actions/upload-artifact@'):
            assert (workspace / expand(step['with']['path'], contexts)).is_file()
        else:
            raise AssertionError(f'the recipe uses {uses}, which this test does not run')
    for folder, stored in saves:
        shutil.copytree(folder, stored)
    return '\n'.join(log)


@pytest.mark.timeout(1200)
def test_the_workflow_runs_on_any_layout_and_caches_every_pinned_jar(
    git_repo, server, lib_jar, readme_install, hook_repo, tmp_path
):
    scratch(git_repo, server, lib_jar)
    java = Path(needs.java())
    env = {k: v for k, v in git_env().items() if not k.startswith(('EXECLEASE_', 'VIRTUAL_ENV'))}
    env.update(
        {
            'PATH': os.pathsep.join((str(readme_install), str(java.parent), env['PATH'])),
            'EXECLEASE_GIT': hook_repo[0].as_uri(),
            'EXECLEASE_JAVA': str(java),
            'EXECLEASE_TLA_URL': support.url(server, 'dl/tla2tools.jar'),
            'XDG_CACHE_HOME': str(tmp_path / 'user-cache'),
            'PRE_COMMIT_COLOR': 'never',
        }
    )
    cache = tmp_path / 'actions-cache'
    job = verify_job()
    first = run_job(job, git_repo.path, tmp_path / 'run-1', cache, env)
    assert re.search(r'^cache execlease-tla-[0-9a-f]{16}: miss$', first, re.M), first
    assert sorted(server.requests) == ['/dl/Limits-1.0.jar', '/dl/tla2tools.jar'], first
    assert 'model specs/lock: TLA+ tools above' in first and 'library Limits: ' in first
    report = json.loads((tmp_path / 'run-1' / 'shard-1.json').read_text())
    assert (
        report['exit_code'] == 0 and report['models'][0]['manifest'] == 'specs/lock/manifest.json'
    )

    server.requests.clear()
    second = run_job(job, git_repo.path, tmp_path / 'run-2', cache, env)
    assert re.search(r'^cache execlease-tla-[0-9a-f]{16}: hit$', second, re.M), second
    assert server.requests == []  # every pinned jar came from the cache
    assert json.loads((tmp_path / 'run-2' / 'shard-1.json').read_text())['exit_code'] == 0


def test_the_key_moves_with_a_pin_and_only_then(git_repo, server, lib_jar, offline_tlc):
    from execlease_hook.commands import tools

    scratch(git_repo, server, lib_jar)
    key = tools.cache_key(git_repo.path, None)
    path = git_repo.path / 'specs/lock/manifest.json'
    data = json.loads(path.read_text())
    data['checks'].append({'name': 'again', 'config': 'MCLock.cfg'})  # not a pin
    path.write_text(json.dumps(data))
    assert tools.cache_key(git_repo.path, None) == key
    data['libraries'][0]['sha256'] = 'f' * 64  # a new pin
    path.write_text(json.dumps(data))
    assert tools.cache_key(git_repo.path, None) != key
