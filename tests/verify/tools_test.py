"""Two models in one repository with different TLA+ tools, real TLC 2.15 and Java: each runs with
its own (the second pins a jar of its own, downloaded from a local server), the report and
`execlease tools` name each, the verdicts agree, and a result cached for one jar never answers
for another."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from tests import libraries_support as support
from tests import needs
from tests.conftest import GitRepo
from tests.tlc.pin_test import other_jar  # noqa: F401 - the fixture: TLC 2.15 with one more file
from tests.verify.suite_test import shared_results

pytestmark = pytest.mark.usefixtures('offline_tlc')

COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 5 /\\ x' = x + 1
TypeOK == x \\in 0..5
====
"""


def write_model(repo: GitRepo, name: str, tools: dict[str, str] | None, top: int = 5) -> None:
    folder = f'verification/{name}'
    repo.write(f'{folder}/Counter.tla', COUNTER.replace('x < 5', f'x < {top}'))
    repo.write(
        f'{folder}/Counter.cfg', 'INIT Init\nNEXT Next\nINVARIANT TypeOK\nCHECK_DEADLOCK FALSE\n'
    )
    data: dict[str, object] = {'version': 1, 'spec': 'Counter.tla'}
    if tools is not None:
        data['tools'] = tools
    data['checks'] = [{'name': 'main', 'config': 'Counter.cfg'}]
    repo.write(f'{folder}/manifest.json', json.dumps(data, indent=2) + '\n')


def run(tmp_path: Path) -> tuple[int, dict]:
    report = tmp_path / 'report.json'
    code = cli.main(['verify', '--json', str(report)])
    return code, json.loads(report.read_text())


@pytest.fixture
def repo(
    git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> GitRepo:
    """Downloads allowed (for the pinned jar), the default tools already in the cache. The TLC
    result cache is one folder these tests share (suite_test.shared_results, named apart): the
    plain model's job on the default jar is both tests' own, run once for both. What is asserted
    of the cache holds whichever runs first: the job pinned to the default jar, whose entry only
    the first test's second run writes, is not answered by the other jar's, which only its first
    run writes; the plain model's is answered, whoever wrote it."""
    monkeypatch.delenv('EXECLEASE_TLA_OFFLINE')
    monkeypatch.setenv('EXECLEASE_TLA_URL', 'http://127.0.0.1:9/unused')
    (git_repo.path / '.tmp' / 'tla').mkdir(parents=True)
    shutil.copyfile(needs.tla_jar(), git_repo.path / '.tmp' / 'tla' / 'tla2tools.jar')
    shared_results(tmp_path_factory, git_repo, 'tools-results')
    return git_repo


def test_two_models_run_each_with_their_own_tools(repo, other_jar, tmp_path, capsys):  # noqa: F811
    own = support.sha256(other_jar)
    default = support.sha256(needs.tla_jar())
    for srv in support.serve({'mirror/tla2tools.jar': other_jar.read_bytes()}):
        write_model(repo, 'plain', None)
        write_model(
            repo,
            'pinned',
            {'url': support.url(srv, 'mirror/tla2tools.jar'), 'sha256': own, 'minTlc': '2.15'},
            top=4,
        )
        code, data = run(tmp_path)
        out = capsys.readouterr().out
        assert code == 0, out
        assert data['tools']['sha256'] == default
        plain, pinned = sorted(data['models'], key=lambda m: m['manifest'])[::-1]
        assert 'tools' not in plain and pinned['tools']['sha256'] == own
        assert (pinned['tools']['source'], pinned['tools']['minTlc']) == ('download', '2.15')
        assert pinned['tools']['jar'] == f'.tmp/tla/{own}/tla2tools.jar'
        assert [j['verdict']['distinct'] for j in plain['jobs']] == [6]
        assert [j['verdict']['distinct'] for j in pinned['jobs']] == [5]  # x runs 0..4
        assert (
            f"  TLA+ tools (the manifest's): TLC 2.15 (rev d5b5a7f), sha256 {own[:16]}... (download); at least TLC 2.15"
            in out
        )
        assert srv.requests == ['/mirror/tla2tools.jar']

        assert cli.main(['tools']) == 0
        lines = capsys.readouterr().out.splitlines()
        assert 'model verification/plain: TLA+ tools above, no libraries' in lines
        assert (
            f'model verification/pinned: TLA+ tools {repo.path / ".tmp" / "tla" / own / "tla2tools.jar"}  '
            f'(TLC 2.15 (rev d5b5a7f), sha256 {own}, cache, at least TLC 2.15), no libraries'
        ) in lines

    # The same spec and cfg pinned to the default jar: the result cached for the other jar does
    # not answer for it (the cache key holds each job's jar); the plain model's result still does.
    write_model(repo, 'pinned', {'sha256': default}, top=4)
    code, data = run(tmp_path)
    assert code == 0
    cached = {m['manifest'].split('/')[-2]: m['jobs'][0]['cached'] for m in data['models']}
    assert cached == {'plain': True, 'pinned': False}
    capsys.readouterr()


def test_a_model_whose_tools_are_too_old_is_refused_naming_its_manifest(repo, tmp_path, capsys):
    write_model(repo, 'plain', None)
    write_model(repo, 'newer', {'minTlc': '2.19'})
    assert cli.main(['verify']) == 2
    captured = capsys.readouterr()
    assert (
        'verification/newer/manifest.json: not run: tools.minTlc is 2.19, but the TLA+ tools in use '
        'are TLC 2.15'
    ) in captured.out
    assert 'model verification/plain:' in captured.out  # the other model ran
