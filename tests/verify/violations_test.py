"""Every outcome kind a manifest can name, judged by `execlease verify` with the real TLC 2.15
on tests/fixtures/kinds/Kinds.tla: deadlock as TLC defines it (the cfg's CHECK_DEADLOCK, the
manifest's key, TLC's default), assumptions by name, expression or location, failed Asserts by
message or location, temporal properties named when a cfg lists several, the cfg keywords TLC
2.15 has and those it lacks; in a model that covers no code and has findings beside its checks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import output
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.output import Verdict
from execlease_hook.verify import violations
from tests import needs, shared
from tests.conftest import GitRepo, git_env, offline_settings
from tests.verify.suite_test import shared_results

FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'kinds'
EXECLEASE = Path(sys.executable).parent / 'execlease'
ASSERT_AT = 'line 10, col 12 to line 10, col 43 of module Kinds'
ASSUME_AT = 'line 7, col 8 to line 7, col 14 of module Kinds'

# A model of no code ("coverage" left out) whose every job holds.
HOLDS: dict[str, Any] = {
    'version': 1,
    'spec': 'Kinds.tla',
    'checks': [
        {'name': 'main', 'config': 'pass.cfg'},
        {'name': 'view', 'config': 'view.cfg'},
        {'name': 'constraint', 'config': 'constraint.cfg'},
        {'name': 'action-constraint', 'config': 'actconstraint.cfg'},
    ],
    'mutations': [
        {
            'name': 'stuck',
            'config': 'pass.cfg',
            'replace': {'from': "x' = x + 1", 'to': "x' = x"},
            'violates': 'Term',
        },
    ],
    'findings': [
        {'id': 'dead', 'config': 'deadlock.cfg', 'violates': 'deadlock'},
        {'id': 'dead-by-cfg', 'config': 'checked.cfg', 'violates': 'deadlock'},
        {'id': 'dead-by-key', 'config': 'pass.cfg', 'violates': 'deadlock', 'deadlock': True},
        {'id': 'small', 'config': 'small.cfg', 'violates': 'Small', 'deadlock': False},
        {'id': 'named-assume', 'config': 'zero.cfg', 'violates': 'Positive'},
        {'id': 'expr-assume', 'config': 'big.cfg', 'violates': 'N  <  100'},
        {'id': 'where-assume', 'config': 'big.cfg', 'violates': ASSUME_AT},
        {'id': 'assert-message', 'config': 'seven.cfg', 'violates': 'assert: x reached seven'},
        {'id': 'assert-any', 'config': 'seven.cfg', 'violates': 'assert'},
        {'id': 'assert-where', 'config': 'seven.cfg', 'violates': f'assert: {ASSERT_AT}'},
        {'id': 'beyond', 'config': 'beyond.cfg', 'violates': 'Beyond'},
    ],
}
# What does not hold, and what cannot run on TLC 2.15.
FAILS: dict[str, Any] = {
    'version': 1,
    'spec': 'Kinds.tla',
    'checks': [
        {'name': 'stops', 'config': 'deadlock.cfg'},
        {'name': 'beyond', 'config': 'beyond.cfg'},
        {'name': 'alias', 'config': 'alias.cfg'},
        {'name': 'post', 'config': 'post.cfg'},
    ],
    'findings': [
        {'id': 'wrong-kind', 'config': 'seven.cfg', 'violates': 'Positive'},
        {'id': 'wrong-message', 'config': 'seven.cfg', 'violates': 'assert: x reached eight'},
        {'id': 'dead-off', 'config': 'pass.cfg', 'violates': 'deadlock'},
    ],
}


def _verify(
    factory: pytest.TempPathFactory,
    settings: dict[str, str],
    name: str,
    data: dict[str, Any],
    *args: str,
) -> tuple[int, dict[str, Any], str, Path]:
    repo = factory.mktemp(name) / 'repo'
    folder = repo / 'verification' / 'kinds'
    shutil.copytree(FIXTURES, folder)
    (folder / 'manifest.json').write_text(json.dumps(data, indent=2) + '\n')
    env = {k: v for k, v in git_env().items() if not k.startswith('EXECLEASE_')}
    env.update(settings, COLUMNS='1000')
    subprocess.run(('git', 'init', '-q', '-b', 'main'), cwd=repo, env=env, check=True)
    shared_results(factory, GitRepo(repo))
    proc = subprocess.run(
        (str(EXECLEASE), 'verify', '--jobs', '2', '--json', str(repo / 'report.json'), *args),
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = json.loads((repo / 'report.json').read_text())
    return proc.returncode, report, proc.stdout + proc.stderr, folder


# Each of the two runs is made once for the test run (tests/shared.py `value`), not once on
# every worker that runs one of the tests reading it: they read its report, output and folder.
# What they judge is how verify names and matches TLC's verdicts, so both read and write the
# run's shared results (suite_test.shared_results): the failing run comes after the holding one
# and reads the verdicts of the jobs the two have in common (deadlock.cfg, beyond.cfg, seven.cfg).
@pytest.fixture(scope='module')
def held(
    tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path
) -> tuple[int, dict[str, Any], str, Path]:
    needs.java()
    needs.tla_jar()
    return shared.value(
        tmp_path_factory,
        'violations-held',
        lambda: _verify(
            tmp_path_factory,
            offline_settings(jvm_cache, tools_jar),
            'held',
            HOLDS,
            '--update-coverage',
        ),
    )


@pytest.fixture(scope='module')
def failed(
    tmp_path_factory: pytest.TempPathFactory,
    jvm_cache: Path,
    tools_jar: Path,
    held: tuple[int, dict[str, Any], str, Path],
) -> tuple[int, dict[str, Any], str, Path]:
    needs.java()
    needs.tla_jar()
    return shared.value(
        tmp_path_factory,
        'violations-failed',
        lambda: _verify(tmp_path_factory, offline_settings(jvm_cache, tools_jar), 'failed', FAILS),
    )


def _jobs(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {j['name']: j for j in report['models'][0]['jobs']}


def test_every_kind_is_nameable_and_holds(held):
    code, report, output, _ = held
    jobs = _jobs(report)
    assert code == 0, output
    assert {name: j['outcome'] for name, j in jobs.items()} == {
        name: 'held'
        for name in (
            'main',
            'view',
            'constraint',
            'action-constraint',
            'stuck',
            *(f['id'] for f in HOLDS['findings']),
        )
    }
    kinds = {name: (j['verdict']['kind'], j['verdict']['property']) for name, j in jobs.items()}
    assert kinds['dead'] == kinds['dead-by-cfg'] == kinds['dead-by-key'] == ('deadlock', 'deadlock')
    assert kinds['named-assume'] == ('assumption', 'Positive')
    assert kinds['expr-assume'] == ('assumption', 'N < 100')
    assert jobs['expr-assume']['verdict']['location'] == ASSUME_AT
    assert kinds['assert-message'] == ('assert', 'x reached seven')
    assert jobs['assert-where']['verdict']['location'] == ASSERT_AT
    assert kinds['stuck'] == ('property', 'Term')  # one PROPERTY kept of two
    assert kinds['beyond'] == ('property', 'Beyond')


def test_state_counts_of_the_cfg_keywords_tlc_215_has(held):
    """VIEW, CONSTRAINT and ACTION_CONSTRAINT reach TLC unchanged: its counts show them."""
    jobs = _jobs(held[1])
    distinct = {
        name: jobs[name]['verdict']['distinct']
        for name in ('main', 'view', 'constraint', 'action-constraint')
    }
    assert distinct == {'main': 4, 'view': 2, 'constraint': 3, 'action-constraint': 3}


def test_check_deadlock_is_translated_for_tlc_215_with_one_note(held):
    output = held[2]
    assert (
        'CHECK_DEADLOCK in actconstraint.cfg, beyond.cfg, checked.cfg, constraint.cfg, pass.cfg, seven.cfg, '
        'view.cfg is given to TLC 2.15'
    ) in output
    assert output.count('CHECK_DEADLOCK in') == 1


def test_a_model_of_no_code_syncs_its_states_only(held):
    folder = held[3]
    written = json.loads((folder / 'manifest.json').read_text())
    assert 'coverage' not in written
    assert [c.get('states') for c in written['checks']] == [4, 2, 3, 3]
    # The guard has nothing to judge in it, also with the model staged.
    env = {k: v for k, v in git_env().items() if not k.startswith('EXECLEASE_')}
    repo = folder.parent.parent
    subprocess.run(('git', 'add', '-A'), cwd=repo, env=env, check=True)
    guard = subprocess.run(
        (str(EXECLEASE), 'guard', '--all'), cwd=repo, env=env, capture_output=True, text=True
    )
    assert guard.returncode == 0, guard.stdout + guard.stderr
    listed = subprocess.run(
        (str(EXECLEASE), 'coverage'), cwd=repo, env=env, capture_output=True, text=True
    )
    assert listed.returncode == 0 and 'covers no code' in listed.stdout, (
        listed.stdout + listed.stderr
    )


def test_what_does_not_hold_is_named(failed):
    code, report, output, _ = failed
    jobs = _jobs(report)
    assert code == 2
    assert jobs['stops']['outcome'] == 'did not hold'
    assert jobs['beyond']['outcome'] == 'did not hold'
    assert 'violated: property Beyond' in jobs['beyond']['message']  # named by one run per property
    assert jobs['wrong-kind']['message'] == (
        'finding wrong-kind fails for the wrong reason: expected Positive, got assert: x reached '
        f'seven (at {ASSERT_AT})'
    )
    assert jobs['wrong-message']['outcome'] == 'did not hold'


def test_what_tlc_215_lacks_is_refused_with_the_reason(failed):
    jobs = _jobs(failed[1])
    for name, keyword in (('alias', 'ALIAS'), ('post', 'POSTCONDITION')):
        assert jobs[name]['outcome'] == 'could not run'
        assert f'the cfg uses {keyword}, which TLC 2.15' in jobs[name]['message']
        assert 'the pinned TLA+ tools, TLC 2.19' in jobs[name]['message']
    assert (
        'dead-off (pass.cfg) must fail on a deadlock, but CHECK_DEADLOCK FALSE in the cfg'
        in jobs['dead-off']['message']
    )


def test_a_deadlock_from_the_new_default_is_explained_once(failed):
    output = failed[2]
    assert output.count('deadlock checking follows TLC now') == 1
    assert 'A deadlock with neither: check stops (deadlock.cfg).' in output


def _job(config: bytes = b'INIT Init\nNEXT Next\n') -> TlcJob:
    return TlcJob(
        kind='finding',
        name='f',
        spec='Kinds.tla',
        spec_text=(FIXTURES / 'Kinds.tla').read_bytes(),
        config='k.cfg',
        config_text=config,
        settings=from_environ(),
    )


def _violated(kind: str, prop: str | None, location: str | None = None) -> Verdict:
    return Verdict('violated', 1.0, 10, kind=kind, property=prop, location=location)


@pytest.mark.parametrize(
    ('verdict', 'expected', 'match'),
    [
        (_violated('deadlock', 'deadlock'), 'deadlock', True),
        (_violated('deadlock', 'deadlock'), 'Deadlock', True),
        (_violated('invariant', 'deadlock'), 'deadlock', False),  # an invariant named "deadlock"
        (_violated('deadlock', 'deadlock'), 'Inv', False),
        (_violated('assert', 'x reached seven', ASSERT_AT), 'assert', True),
        (_violated('assert', 'x reached seven', ASSERT_AT), 'assert:x reached seven', True),
        (
            _violated('assert', 'x reached seven', ASSERT_AT),
            'assert: line 10, col 12 to line 10, col 43 of module Kinds',
            True,
        ),
        (
            _violated('assert', 'x reached seven', ASSERT_AT),
            'assert: line 10, col 12 to line 10, col 44 of module Kinds',
            False,
        ),
        (_violated('assert', 'x reached seven', ASSERT_AT), 'x reached seven', False),
        (_violated('invariant', 'assert'), 'assert', False),
        (
            _violated('assumption', 'N < 100', ASSUME_AT),
            'N<100',
            False,
        ),  # spaces between words only
        (_violated('assumption', 'N < 100', ASSUME_AT), 'N < 100', True),
        (_violated('assumption', 'N < 100', ASSUME_AT), ' N <\n 100 ', True),
        (_violated('property', 'Term, Beyond'), 'Beyond', True),
        (_violated('property', 'Term, Beyond'), 'Term, Beyond', False),
        (_violated('property', None), 'Term', False),
    ],
    ids=lambda v: v if isinstance(v, str) else '',
)
def test_matches(verdict, expected, match):
    assert violations.matches(_job(), verdict, expected) is match


def test_an_assumption_is_named_from_the_spec():
    job = _job()
    named = violations.assumption(
        job, _violated('assumption', 'line 6, col 20 to line 6, col 24 of module Kinds')
    )
    assert (named.property, named.location) == (
        'Positive',
        'line 6, col 20 to line 6, col 24 of module Kinds',
    )
    # A location in no module of the job is kept as TLC said it.
    other = _violated('assumption', 'line 6, col 20 to line 6, col 24 of module Other')
    assert violations.assumption(job, other) == other


def test_temporal_properties_are_named_by_one_run_each():
    cfg = b'SPECIFICATION Spec\nPROPERTIES Term Beyond\n\\* a comment\nPROPERTY Up\n'
    seen: list[bytes] = []

    def run(sub: TlcJob) -> Verdict:
        seen.append(sub.config_text)
        fails = b'Beyond' in sub.config_text or b'Up' in sub.config_text
        return _violated('property', None) if fails else Verdict('passed', 1.0, 0)

    named = violations.name_temporal(_job(cfg), _violated('property', None), run)
    assert named.property == 'Beyond, Up'
    assert len(seen) == 3 and all(len(text) == len(cfg) for text in seen)  # blanked, not cut
    assert b'PROPERTY Up' not in seen[0] and b'Beyond' not in seen[0] and b'Term' in seen[0]
    # An error in one of the runs: the verdict stays unnamed (nothing is guessed).
    unnamed = violations.name_temporal(
        _job(cfg), _violated('property', None), lambda sub: Verdict('error', 1.0, 255, reason='x')
    )
    assert unnamed.property is None


def test_assert_messages_are_read_as_tla_values():
    assert output.tla_string('"x reached \\"seven\\""') == 'x reached "seven"'
    assert output.tla_string('<<"no", 1>>') == '<<"no", 1>>'
    assert output.tla_string('"a" \\o "b"') == '"a" \\o "b"'
