"""`execlease tools` lists each model and the libraries it uses: jars fetched and verified,
folders read; a repository without a model lists none."""

from __future__ import annotations

import pytest

from execlease_hook.cli import main as cli
from tests import libraries_support as support

pytestmark = pytest.mark.usefixtures('offline_tlc')


def test_tools_lists_every_model_and_its_libraries(git_repo, tmp_path, capsys, monkeypatch):
    jar = support.build_jar(tmp_path / 'jar', {'Limits.tla': support.LIMITS_TLA})
    monkeypatch.setenv('EXECLEASE_LIBRARY_PATH', str(jar.parent))
    support.write_repo(
        git_repo.path,
        [
            {
                'name': 'Limits',
                'url': 'https://example.invalid/Limits.jar',
                'sha256': support.sha256(jar),
            },
            {'folder': support.LIB},
        ],
    )
    assert cli.main(['tools']) == 0
    out = capsys.readouterr().out
    assert f'model {support.MODEL}: TLA+ tools above\n' in out
    assert (
        f'  library Limits: {jar.resolve()}  (sha256 {support.sha256(jar)}, EXECLEASE_LIBRARY_PATH)'
        in out
    )
    assert f'  library {support.LIB}: 1 module (Steps.tla)' in out


def test_tools_without_a_model_lists_none(git_repo, capsys):
    assert cli.main(['tools']) == 0
    assert 'model ' not in capsys.readouterr().out


def test_tools_stops_on_a_library_it_cannot_get(git_repo, capsys):
    support.write_repo(
        git_repo.path, [{'url': 'https://example.invalid/Limits.jar', 'sha256': 'd' * 64}]
    )
    assert cli.main(['tools']) == 2
    assert 'libraries[0] (Limits.jar): the jar is not in the cache' in capsys.readouterr().err
