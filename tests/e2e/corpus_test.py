"""Public models, expressed as a TLA+ user would, judged by `execlease verify` with the real TLC
2.15: each verdict and each distinct-state count must be the one their authors published.

The models are from the public tlaplus/Examples repository (MIT licence, see
tests/fixtures/corpus/LICENSE.md), copied unchanged, at commit
32a32c7b0b97562da2dd4b2e55b7f81cd6fea2b9; EXPECTED is what its manifest.json files record for
them (`result`, `distinctStates`). None of them covers code: each manifest leaves out
`coverage`, and a model that only fails has findings and no check. Between them they use
CHECK_DEADLOCK FALSE (translated for TLC 2.15), TLC's default deadlock checking, SYMMETRY,
CONSTRAINT, several PROPERTY entries, and fail on an invariant, on a property listed as the
only one, and on a liveness property. The kinds the corpus does not record (deadlock,
assumption, Assert) are in tests/verify/violations_test.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import needs, shared
from tests.conftest import git_env, offline_settings

CORPUS = Path(__file__).parents[1] / 'fixtures' / 'corpus'
EXECLEASE = Path(sys.executable).parent / 'execlease'

# model folder: (fixture folder, files, spec, cfg, published result, published distinct states,
# what a finding names)
EXPECTED: dict[str, tuple[str, tuple[str, ...], str, str, str, int | None, str | None]] = {
    'diehard': (
        'DieHard',
        ('DieHard.tla', 'DieHard.cfg'),
        'DieHard.tla',
        'DieHard.cfg',
        'safety failure',
        None,
        'NotSolved',
    ),
    'acp-nb': (
        'acp',
        ('ACP_SB.tla', 'ACP_NB.tla', 'ACP_NB_TLC.tla', 'ACP_NB_TLC.cfg'),
        'ACP_NB_TLC.tla',
        'ACP_NB_TLC.cfg',
        'success',
        4284,
        None,
    ),
    'acp-nb-wrong': (
        'acp',
        ('ACP_SB.tla', 'ACP_NB_WRONG_TLC.tla', 'ACP_NB_WRONG_TLC.cfg'),
        'ACP_NB_WRONG_TLC.tla',
        'ACP_NB_WRONG_TLC.cfg',
        'safety failure',
        None,
        'AC1',
    ),
    'alternating-bit': (
        'AlternatingBit',
        ('MCAlternatingBit.tla', 'MCAlternatingBit.cfg', 'AlternatingBit.tla', 'ABCorrectness.tla'),
        'MCAlternatingBit.tla',
        'MCAlternatingBit.cfg',
        'success',
        240,
        None,
    ),
    'realtime-hour-clock': (
        'RealTimeHourClock',
        ('MCRealTimeHourClock.tla', 'MCRealTimeHourClock.cfg', 'HourClock.tla'),
        'MCRealTimeHourClock.tla',
        'MCRealTimeHourClock.cfg',
        'liveness failure',
        None,
        'ErrorTemporal',
    ),
    'cigarette-smokers': (
        'CigaretteSmokers',
        ('CigaretteSmokers.tla', 'CigaretteSmokers.cfg'),
        'CigaretteSmokers.tla',
        'CigaretteSmokers.cfg',
        'success',
        6,
        None,
    ),
    'paxos': (
        'SimplifiedFastPaxos',
        ('Paxos.tla', 'Paxos.cfg'),
        'Paxos.tla',
        'Paxos.cfg',
        'success',
        1207,
        None,
    ),
}
# TLC's violation kind for each published failure result.
KINDS = {'safety failure': ('invariant', 'property'), 'liveness failure': ('property',)}


def _manifest(
    spec: str, cfg: str, result: str, states: int | None, violates: str | None
) -> dict[str, Any]:
    if result == 'success':
        check: dict[str, Any] = {'name': 'published', 'config': cfg}
        if states is not None:
            check['states'] = states
        return {'version': 1, 'spec': spec, 'checks': [check]}
    return {
        'version': 1,
        'spec': spec,
        'findings': [
            {
                'id': 'published',
                'config': cfg,
                'violates': violates,
                'summary': f'published result: {result}',
            }
        ],
    }


@pytest.fixture(scope='module')
def report(
    tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path
) -> tuple[int, dict[str, Any], str]:
    """One `execlease verify` of the corpus for the test run, every xdist worker's
    (tests/shared.py): the tests only read its report, and a module split between the workers
    ran every model twice, its largest for about 12 CPU-s each time."""
    needs.java()
    needs.tla_jar()

    def run() -> tuple[int, dict[str, Any], str]:
        repo = tmp_path_factory.mktemp('corpus') / 'repo'
        for model, (source, files, spec, cfg, result, states, violates) in EXPECTED.items():
            target = repo / 'verification' / model
            target.mkdir(parents=True)
            for name in files:
                shutil.copyfile(CORPUS / source / name, target / name)
            (target / 'manifest.json').write_text(
                json.dumps(_manifest(spec, cfg, result, states, violates), indent=2) + '\n'
            )
        env = {k: v for k, v in git_env().items() if not k.startswith('EXECLEASE_')}
        env.update(offline_settings(jvm_cache, tools_jar), COLUMNS='1000')
        subprocess.run(('git', 'init', '-q', '-b', 'main'), cwd=repo, env=env, check=True)
        proc = subprocess.run(
            (str(EXECLEASE), 'verify', '--jobs', '2', '--json', str(repo / 'report.json')),
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        return (
            proc.returncode,
            json.loads((repo / 'report.json').read_text()),
            proc.stdout + proc.stderr,
        )

    return shared.value(tmp_path_factory, 'corpus-report', run)


def test_every_published_result_holds(report):
    code, data, output = report
    assert code == 0, output
    assert sorted(Path(m['manifest']).parent.name for m in data['models']) == sorted(EXPECTED)


@pytest.mark.parametrize('model', sorted(EXPECTED))
def test_verdict_and_distinct_states_are_the_published_ones(report, model):
    _, data, output = report
    found = next(m for m in data['models'] if Path(m['manifest']).parent.name == model)
    (job,) = found['jobs']
    *_, result, states, violates = EXPECTED[model]
    verdict = job['verdict']
    assert job['outcome'] == 'held', job['message']
    if result == 'success':
        assert verdict['outcome'] == 'passed'
        assert verdict['distinct'] == states
    else:
        assert verdict['outcome'] == 'violated'
        assert verdict['kind'] in KINDS[result]
        assert verdict['property'] == violates
    assert found['could_not_run'] == [] and found['did_not_hold'] == []
