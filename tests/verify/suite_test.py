from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.tlc import jar
from execlease_hook.verify import pipeline, result
from tests import needs, shared, verify_support, wait
from tests.conftest import GitRepo, git_env, use_offline

FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'tlc'
EXECLEASE = Path(sys.executable).parent / 'execlease'
MODEL = 'verification/counter'

COUNTER_PY = """\
def increment(x, top):
    if x < top:
        return x + 1
    return x


def flip(y):
    return 1 - y
"""
ENTRIES = [
    {'id': 'inc', 'path': 'app/counter.py', 'function': 'increment', 'action': 'Inc'},
    {'id': 'flip', 'path': 'app/counter.py', 'function': 'flip', 'action': 'Flip'},
]
MAIN = {'name': 'main', 'config': 'pass.cfg'}
CAUGHT = {
    'name': 'caught',
    'config': 'pass.cfg',
    'replace': {'from': 'TypeOK == x \\in 0..N', 'to': 'TypeOK == x \\in 0..1'},
    'violates': 'TypeOK',
}
NOT_CAUGHT = {
    'name': 'not-caught',
    'config': 'pass.cfg',
    'replace': {'from': "Flip == y' = 1 - y", 'to': "Flip == y' = y"},
    'violates': 'TypeOK',
}
WRONG = {
    'name': 'wrong',
    'config': 'pass.cfg',
    'replace': {'from': 'Inc == x < N', 'to': 'Inc == x < N + 1'},
    'violates': 'NeverDecreases',
}
MISSING = {
    'name': 'missing',
    'config': 'pass.cfg',
    'replace': {'from': 'no such text', 'to': 'x'},
    'violates': 'TypeOK',
}
DUPLICATED = {
    'name': 'duplicated',
    'config': 'pass.cfg',
    'replace': {'from': 'UNCHANGED', 'to': 'UNCHANGED '},
    'violates': 'TypeOK',
}
F1 = {'id': 'F1', 'config': 'findings/F1.cfg', 'violates': 'XBelowTwo', 'summary': 'x reaches 2'}
F2 = {'id': 'F2', 'config': 'pass.cfg', 'violates': 'TypeOK', 'summary': 'fixed since'}


pytestmark = pytest.mark.usefixtures('offline_tlc')


def write_model(
    repo: GitRepo, checks=(MAIN,), mutations=(), findings=(), entries=ENTRIES, **coverage: Any
) -> Path:
    folder = repo.path / MODEL
    (folder / 'findings').mkdir(parents=True, exist_ok=True)
    # As init leaves it: TLA+ tools, warm JVMs and caches under .tmp/ are never committed (a spare
    # JVM may still be building its folder there while a test runs `git add .`).
    repo.write('.gitignore', '.tmp/\n')
    for name in ('Counter.tla', 'CounterLib.tla', 'pass.cfg'):
        shutil.copyfile(FIXTURES / name, folder / name)
    shutil.copyfile(FIXTURES / 'invariant.cfg', folder / 'findings' / 'F1.cfg')
    shutil.copyfile(FIXTURES / 'invariant.cfg', folder / 'invariant.cfg')
    repo.write('app/counter.py', COUNTER_PY)
    data: dict[str, Any] = {
        'version': 1,
        'spec': 'Counter.tla',
        'checks': list(checks),
        'mutations': list(mutations),
        'findings': list(findings),
        'coverage': {
            'syncCommit': coverage.get('sync'),
            'modelHash': coverage.get('model_hash'),
            'entries': list(entries),
        },
    }
    if not entries:  # a test about TLC alone: no code implements the actions
        data['coverage']['abstract'] = [
            {'action': a, 'reason': 'no code in this test'} for a in ('Inc', 'Flip')
        ]
    path = folder / 'manifest.json'
    path.write_text(json.dumps(data, indent=2) + '\n')
    return path


def sync(repo: GitRepo) -> None:
    """Commit, then record the coverage through --update-coverage itself (must pass)."""
    repo.add('.')
    repo.commit('model and code')
    assert cli.main(['verify', '--update-coverage']) == 0
    repo.add('.')
    repo.commit('sync')


def shared_results(
    factory: pytest.TempPathFactory, repo: GitRepo, name: str = 'tlc-results'
) -> None:
    """The repository's TLC result cache (.git/execlease/cache) made a folder the run's tests
    share, every xdist worker's (tests/shared.py): an entry is keyed by the job's content alone
    (tlc/cache.py), so a job another of them has run is read, not run again. For the tests of
    what verify does with the verdicts, in process, through the console script or a hook (exit
    codes, report formats, shards, what a push judges, coverage and --update-coverage, notes);
    the tests of running TLC and of the cache itself keep their own, or share one `name`d
    apart (tests/verify/libraries_test.py)."""
    folder = shared.folder(factory, name, lambda _: None)
    link = repo.path / '.git' / 'execlease' / 'cache'
    link.parent.mkdir(parents=True, exist_ok=True)
    try:
        link.symlink_to(folder, target_is_directory=True)
    except OSError:  # no symbolic links here (Windows without the right): a cache of its own
        pass


def console(
    repo: GitRepo, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full = git_env()
    full['EXECLEASE_TLA_OFFLINE'] = '1'
    full.update(env or {})
    return subprocess.run(
        (str(EXECLEASE), 'verify', *args),
        cwd=repo.path,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )


# --- one model holding every kind of expectation, run once --------------------------------------


@pytest.fixture(scope='module')
def everything_run(
    tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path
) -> verify_support.Verified:
    """Made once for the test run (tests/shared.py `value`), not once on every worker that runs
    one of the tests below: they read its output, jobs and failures. Its coverage (the code's
    tree-sitter nodes, which do not pickle) is left out. What they judge is what verify does with
    each job's verdict (outcome, message, the order and the worst verdict), so the run reads and
    writes the run's shared results (`shared_results`): its jobs (main, bad, the mutations, F1,
    F2) are those of the formats' and the shards' model (tests/formats/report_test.py,
    tests/verify/plan_test.py) and of the exit-code and coverage tests below, and whichever of
    them comes first runs each job once for all of them; a verdict read back is the one TLC gave."""

    def run() -> verify_support.Verified:
        repo = GitRepo(tmp_path_factory.mktemp('everything'))
        repo.git('init', '-q', '-b', 'main')
        write_model(
            repo,
            checks=(MAIN, {'name': 'bad', 'config': 'invariant.cfg'}),
            mutations=(CAUGHT, NOT_CAUGHT, WRONG, MISSING, DUPLICATED),
            findings=(F1, F2),
        )
        shared_results(tmp_path_factory, repo)
        with pytest.MonkeyPatch.context() as env:
            use_offline(env, jvm_cache, tools_jar)
            ran = verify_support.verify(repo.path, pipeline.Mode(jobs=2))
        return dataclasses.replace(
            ran, models=[dataclasses.replace(m, coverage=[]) for m in ran.models]
        )

    return shared.value(tmp_path_factory, 'verify-everything', run)


@pytest.fixture(scope='module')
def everything(everything_run: verify_support.Verified) -> result.ModelResult:
    (model,) = everything_run.models
    return model


EXPECTED = [
    ('check', 'main', 'held', 'check main passed'),
    (
        'check',
        'bad',
        'did not hold',
        'check bad (invariant.cfg) failed: violated: invariant XBelowTwo',
    ),
    ('mutation', 'caught', 'held', 'mutation caught still fails on TypeOK'),
    (
        'mutation',
        'not-caught',
        'did not hold',
        'mutation not-caught no longer fails: the check has lost the ability to catch it; '
        'fix the model before anything else',
    ),
    (
        'mutation',
        'wrong',
        'did not hold',
        'mutation wrong fails for the wrong reason: expected NeverDecreases, got TypeOK (invariant)',
    ),
    (
        'mutation',
        'missing',
        'could not run',
        'mutation missing: replace.from does not match in Counter.tla (it must match exactly once)',
    ),
    (
        'mutation',
        'duplicated',
        'could not run',
        'mutation duplicated: replace.from matches 3 times in Counter.tla (it must match exactly once)',
    ),
    ('finding', 'F1', 'held', 'finding F1 still reproduces on XBelowTwo'),
    (
        'finding',
        'F2',
        'did not hold',
        'F2 no longer reproduces: move its config into checks in manifest.json and update NOTES.md',
    ),
]


@pytest.mark.parametrize(
    ('kind', 'name', 'outcome', 'message'), EXPECTED, ids=[e[1] for e in EXPECTED]
)
def test_job_outcome(everything, kind, name, outcome, message):
    (result,) = [j for j in everything.jobs if (j.job.kind, j.job.name) == (kind, name)]
    assert result.outcome == outcome
    assert message in result.message


def test_every_failure_is_listed_and_could_not_run_dominates(everything):
    assert [j.job.name for j in everything.jobs] == [e[1] for e in EXPECTED]
    assert len(everything.failures) == 4 + 2  # 4 jobs + 2 coverage entries never synced
    assert len(everything.problems) == 2
    assert everything.exit_code == 2


def test_the_run_prints_every_job_and_ends_with_the_worst_verdict(everything_run):
    assert everything_run.code == 2
    lines = everything_run.out.rstrip().splitlines()
    assert lines[-1] == 'COULD NOT RUN (exit 2 is not a pass)'
    assert 'DID NOT HOLD: mutation not-caught no longer fails' in everything_run.out
    assert 'COULD NOT RUN: mutation missing' in everything_run.out
    assert '  mutation caught: held (' in everything_run.err  # a line per job as it ends


def test_mutation_runs_on_a_copy(everything):
    spec = everything.manifest.folder / 'Counter.tla'
    assert spec.read_bytes() == (FIXTURES / 'Counter.tla').read_bytes()
    (wrong,) = [j for j in everything.jobs if j.job.name == 'wrong']
    assert b'Inc == x < N + 1' in wrong.job.spec_text


# --- the exit code contract, end to end through the console script ------------------------------


@pytest.mark.parametrize(
    ('mutations', 'findings', 'code', 'last'),
    [
        ((CAUGHT,), (F1,), 0, 'PASSED'),
        ((CAUGHT, NOT_CAUGHT), (F1,), 1, 'FAILED (did not hold)'),
        ((CAUGHT,), (F1, F2), 1, 'FAILED (did not hold)'),
        ((CAUGHT, NOT_CAUGHT, MISSING), (F1,), 2, 'COULD NOT RUN (exit 2 is not a pass)'),
    ],
    ids=['all-hold', 'mutation-not-caught', 'finding-fixed', 'bad-anchor-and-not-caught'],
)
def test_exit_codes_through_the_console_script(
    git_repo, tmp_path_factory, mutations, findings, code, last
):
    write_model(git_repo, mutations=mutations, findings=findings)
    shared_results(tmp_path_factory, git_repo)
    sync_ok = code == 0
    git_repo.add('.')
    git_repo.commit('model')
    if sync_ok:
        assert console(git_repo, '--update-coverage').returncode == 0
    proc = console(git_repo)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().splitlines()[-1] == last
    if code == 2:  # every did-not-hold failure is still printed
        assert 'DID NOT HOLD: mutation not-caught no longer fails' in proc.stdout
        assert 'COULD NOT RUN: mutation missing' in proc.stdout


def test_no_java_exits_2(git_repo, tmp_path):
    write_model(git_repo)
    proc = console(git_repo, env={'EXECLEASE_JAVA': str(tmp_path / 'no-java')})
    assert proc.returncode == 2
    assert 'no Java 11+ found' in proc.stderr
    assert 'PASSED' not in proc.stdout


def test_no_model_exits_2(git_repo):
    proc = console(git_repo)
    assert proc.returncode == 2 and 'no model found' in proc.stderr


@pytest.mark.parametrize(
    ('name', 'value', 'message'),
    (
        (
            'EXECLEASE_TLC_TIMEOUT',
            'soon',
            "EXECLEASE_TLC_TIMEOUT='soon' is not a number of seconds",
        ),
        ('EXECLEASE_TLC_TIMEOUT', '-1', "EXECLEASE_TLC_TIMEOUT='-1' must be more than 0 seconds"),
        (
            'EXECLEASE_TLC_WORKERS',
            '0',
            "EXECLEASE_TLC_WORKERS='0': give a whole number from 1 to 256",
        ),
        (
            'EXECLEASE_TLC_WORKERS',
            'auto',
            "EXECLEASE_TLC_WORKERS='auto': give a whole number from 1 to 256",
        ),
    ),
)
def test_bad_environment_override_exits_2_naming_it(git_repo, name, value, message):
    write_model(git_repo)
    proc = console(git_repo, env={name: value})
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert 'Traceback' not in proc.stderr


# --- cache ---------------------------------------------------------------------------------------


def cached_column(out: str) -> dict[str, str]:
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] in ('check', 'mutation', 'finding'):
            rows[parts[1]] = parts[-1]
    return rows


def test_cache_hit_no_cache_and_corrupt_entry(git_repo, capsys):
    write_model(git_repo, mutations=(CAUGHT,), findings=(F1,), entries=())
    assert cli.main(['verify']) == 0
    assert set(cached_column(capsys.readouterr().out).values()) == {'no'}
    assert cli.main(['verify']) == 0
    assert cached_column(capsys.readouterr().out) == {'main': 'yes', 'caught': 'yes', 'F1': 'yes'}
    entries = sorted((git_repo.path / '.git/execlease/cache').glob('*.json'))
    assert len(entries) == 3
    entries[0].write_text('{"format": 1, "key": "tru')
    assert cli.main(['verify']) == 0
    assert list(cached_column(capsys.readouterr().out).values()).count('no') == 1
    assert json.loads(entries[0].read_text())['key'] == entries[0].stem  # rewritten, valid
    assert cli.main(['verify', '--no-cache']) == 0
    assert set(cached_column(capsys.readouterr().out).values()) == {'no'}


def test_two_runs_at_once_on_an_empty_cache(git_repo, tools_in_repo):
    write_model(git_repo, mutations=(CAUGHT,), findings=(F1,), entries=())
    env = git_env()
    env['EXECLEASE_TLA_OFFLINE'] = '1'
    # No class-data archive: one built for this repository's jar would be read by no other run
    # (runs building one at once: verify/fault_test.py).
    env['EXECLEASE_JVM_CDS'] = '0'
    procs = [
        subprocess.Popen(
            (str(EXECLEASE), 'verify', '--jobs', '1'),
            cwd=git_repo.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    folder = git_repo.path / '.tmp/tla'
    assert jar.file_sha256(folder / 'tla2tools.jar') in jar.KNOWN_JARS
    results = git_repo.path / '.git/execlease/cache'
    assert not list(folder.glob('*.part')) and not list(results.glob('.*.tmp'))
    assert len(list(results.glob('*.json'))) == 3


# --- coverage and --update-coverage --------------------------------------------------------------


def test_update_coverage_refuses_on_a_failing_model(git_repo, tmp_path_factory, capsys):
    path = write_model(git_repo, mutations=(CAUGHT, NOT_CAUGHT))
    shared_results(tmp_path_factory, git_repo)  # what --update-coverage does with the verdicts
    git_repo.add('.')
    git_repo.commit('model')
    before = path.read_bytes()
    assert cli.main(['verify', '--update-coverage']) == 1
    out = capsys.readouterr().out
    assert 'not updating coverage' in out and 'nothing was changed' in out
    assert path.read_bytes() == before


def test_update_coverage_rewrites_only_what_it_should(git_repo, tmp_path_factory, capsys):
    path = write_model(git_repo, mutations=(CAUGHT,), findings=(F1,))
    shared_results(tmp_path_factory, git_repo)  # what --update-coverage does with the verdicts
    git_repo.add('.')
    head = git_repo.commit('model')
    before = json.loads(path.read_text())
    assert cli.main(['verify']) == 1  # never synced
    out = capsys.readouterr().out
    assert (
        'covered code never synced: entry inc at app/counter.py:1, action Inc: no hash recorded '
        'yet;'
    ) in ' '.join(out.split())
    assert 'covered code changed' not in out
    assert cli.main(['verify', '--update-coverage']) == 0
    out = capsys.readouterr().out
    assert 'coverage updated in' in out and f'syncCommit: none -> {head}' in out
    assert 'check main states: none -> 8' in out
    after = json.loads(path.read_text())
    assert after['coverage']['syncCommit'] == head
    assert after['coverage']['modelHash']['scheme'] == 'tla1'
    # The spec, its cfgs and CounterLib.tla, which Counter.tla EXTENDS beside it.
    assert set(after['coverage']['modelHash']['files']) == {
        'Counter.tla',
        'CounterLib.tla',
        'pass.cfg',
        'findings/F1.cfg',
    }
    assert all(e['hash'].startswith('ts2:sha256:') for e in after['coverage']['entries'])
    assert after['checks'] == [{**MAIN, 'states': 8}]
    # Everything else is exactly as it was.
    for key in ('spec', 'mutations', 'findings'):
        assert after[key] == before[key]
    strip = [
        {k: v for k, v in e.items() if k not in ('hash', 'syncedBlob')}
        for e in after['coverage']['entries']
    ]
    blob = git_repo.git('hash-object', 'app/counter.py').strip()
    assert {e['syncedBlob'] for e in after['coverage']['entries']} == {blob}
    assert strip == before['coverage']['entries']
    assert cli.main(['verify']) == 0
    assert 'note:' not in capsys.readouterr().out
    # A comment is no change of the model; a definition's edit is a note for verify (the guard is
    # the one that blocks it).
    spec = git_repo.path / MODEL / 'Counter.tla'
    spec.write_text(spec.read_text().replace('====', '\\* a comment\n===='))
    assert cli.main(['verify', '--quick']) == 0
    assert 'note:' not in capsys.readouterr().out
    spec.write_text(spec.read_text().replace('YIsOne == y = 1', 'YIsOne == y = 1 /\\ x >= 0'))
    assert cli.main(['verify', '--quick']) == 0
    assert (
        'note: the model (spec or a cfg) changed since the last sync (definition YIsOne changed '
        '(Counter.tla:26) since the sync)'
    ) in capsys.readouterr().out
    assert cli.main(['verify', '--update-coverage']) == 0
    assert (
        'modelHash: definition YIsOne changed (Counter.tla:26) since the sync'
        in capsys.readouterr().out
    )
    # A second update with nothing moved rewrites nothing.
    text = path.read_text()
    assert cli.main(['verify', '--update-coverage']) == 0
    assert 'coverage updated' not in capsys.readouterr().out
    assert path.read_text() == text


@pytest.mark.parametrize(
    ('edit', 'code', 'message'),
    [
        (
            lambda s: s.replace('return 1 - y', 'return y ^ 1'),
            1,
            'covered code changed: entry flip at app/counter.py:7, action Flip',
        ),
        (lambda s: s.replace('return 1 - y', 'return 1 - y  # comment only'), 0, 'PASSED'),
        (
            lambda s: s.replace('def flip', 'def flop'),
            2,
            'COULD NOT RUN: coverage entry flip (Flip)',
        ),
    ],
    ids=['changed', 'comment-only', 'function-gone'],
)
def test_coverage_in_the_suite(git_repo, tmp_path_factory, capsys, edit, code, message):
    write_model(git_repo)
    shared_results(tmp_path_factory, git_repo)  # what is judged here is the code, not TLC's run
    sync(git_repo)
    capsys.readouterr()
    git_repo.write('app/counter.py', edit(COUNTER_PY))
    assert cli.main(['verify', '--quick']) == code
    out = capsys.readouterr().out
    assert message in out
    if code == 2:
        assert 'update the anchors' in out


def test_update_coverage_refuses_when_an_anchor_is_gone(git_repo, tmp_path_factory, capsys):
    path = write_model(git_repo)
    shared_results(tmp_path_factory, git_repo)  # what is judged here is the code, not TLC's run
    sync(git_repo)
    git_repo.write('app/counter.py', COUNTER_PY.replace('def flip', 'def flop'))
    before = path.read_bytes()
    assert cli.main(['verify', '--update-coverage']) == 2
    assert path.read_bytes() == before


def test_states_drift_is_a_note_not_a_failure(git_repo, tmp_path_factory, capsys):
    write_model(git_repo, checks=({**MAIN, 'states': 7},), entries=())
    # The recorded states are no part of the job: its verdict is main's, shared (see above).
    shared_results(tmp_path_factory, git_repo)
    assert cli.main(['verify', '--quick']) == 0
    out = capsys.readouterr().out
    assert (
        "note: check main: 8 distinct states, 7 recorded at the last sync: the model's meaning changed?"
        in out
    )


def test_quick_runs_checks_only_and_json(git_repo, tmp_path, tmp_path_factory):
    write_model(git_repo, mutations=(CAUGHT,), findings=(F1,), entries=())
    shared_results(tmp_path_factory, git_repo)  # what --quick leaves out and the JSON it writes
    out = tmp_path / 'out.json'
    assert cli.main(['verify', '--quick', '--json', str(out)]) == 0
    data = json.loads(out.read_text())
    assert data['exit_code'] == 0 and data['result'] == 'PASSED' and data['quick'] is True
    assert data['tools']['sha256'] in jar.KNOWN_JARS and data['tools']['verified'] is True
    assert data['java']['major'] >= 11
    (model,) = data['models']
    assert [(j['kind'], j['name'], j['outcome']) for j in model['jobs']] == [
        ('check', 'main', 'held')
    ]
    assert model['jobs'][0]['verdict']['distinct'] == 8


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def test_a_json_report_names_every_path_relative_to_the_repository(
    git_repo, tools_in_repo, tmp_path_factory, capsys
):
    """A report is meant to be shared: the jar is named relative to the repository, a Java outside
    it by its name alone, and no path of the checkout (or anything absolute) appears in it."""
    write_model(git_repo, entries=())
    shared_results(tmp_path_factory, git_repo)  # the paths in the report, not TLC's run
    assert cli.main(['verify', '--quick', '--format', 'json']) == 0
    text = capsys.readouterr().out
    data = json.loads(text)
    assert data['tools']['jar'] == '.tmp/tla/tla2tools.jar'
    java = data['java']['path']
    assert java == 'outside the repository: java' or not os.path.isabs(java)
    assert data['models'][0]['manifest'] == f'{MODEL}/manifest.json'
    assert str(git_repo.path) not in text
    assert [s for s in _strings(data) if os.path.isabs(s)] == []


def test_json_never_keeps_an_earlier_pass_after_a_run_that_could_not_run(
    git_repo, tmp_path, tmp_path_factory, capsys
):
    path = write_model(git_repo, entries=())
    shared_results(tmp_path_factory, git_repo)  # the report a refused model leaves, not TLC's run
    out = tmp_path / 'out.json'
    assert cli.main(['verify', '--quick', '--json', str(out)]) == 0
    assert json.loads(out.read_text())['exit_code'] == 0
    data = json.loads(path.read_text())
    data['checks'] = [{'name': 'main', 'config': 'gone.cfg'}]
    path.write_text(json.dumps(data))
    assert cli.main(['verify', '--quick', '--json', str(out)]) == 2
    after = json.loads(out.read_text())
    assert after['exit_code'] == 2 and after['result'] == 'COULD NOT RUN (exit 2 is not a pass)'
    (model,) = after['models']  # the model's own refusal: the report is whole
    assert (
        model['refused']
        and 'gone.cfg: cannot read the config of check main' in model['could_not_run'][0]
    )
    assert 'gone.cfg' in capsys.readouterr().out


def test_json_into_a_missing_folder_exits_2_before_running(git_repo, tmp_path, capsys):
    write_model(git_repo, entries=())
    assert cli.main(['verify', '--quick', '--json', str(tmp_path / 'no' / 'out.json')]) == 2
    captured = capsys.readouterr()
    assert 'out.json: cannot write it' in captured.err and 'TLA+ tools' not in captured.out


def test_an_unwritable_result_cache_costs_speed_only(git_repo, capsys):
    write_model(git_repo, entries=())
    git_repo.write('.git/execlease/cache', 'a file where the cache folder should be')
    assert cli.main(['verify', '--quick']) == 0
    out = capsys.readouterr().out
    assert 'note: results were not cached: cannot write' in out and 'make ' in out
    assert out.rstrip().splitlines()[-1].startswith('PASSED (--quick: checks and coverage only;')


def test_one_tlc_error_shared_by_every_job_is_detailed_once(git_repo, capsys):
    write_model(
        git_repo,
        checks=({'name': 'a', 'config': 'config.cfg'}, {'name': 'b', 'config': 'config.cfg'}),
        entries=(),
    )
    shutil.copyfile(FIXTURES / 'config.cfg', git_repo.path / MODEL / 'config.cfg')
    assert cli.main(['verify', '--quick']) == 2
    out = capsys.readouterr().out
    assert out.count('last lines of TLC output:') == 1
    assert 'check b (config.cfg): could not run: the same error as check a' in out
    assert out.count('COULD NOT RUN: check') == 2  # both are still listed
    assert 'fix the cfg' in out


def test_update_coverage_with_quick_is_refused(git_repo, capsys):
    write_model(git_repo)
    assert cli.main(['verify', '--quick', '--update-coverage']) == 2
    assert 'drop --quick' in capsys.readouterr().err


def test_unverified_jar_is_stated_loudly(git_repo, capsys, monkeypatch, tmp_path):
    jar = tmp_path / 'other.jar'
    jar.write_bytes(needs.tla_jar().read_bytes() + b'\0')  # still a valid zip, other hash
    monkeypatch.setenv('EXECLEASE_TLA_JAR', str(jar))
    monkeypatch.setenv('EXECLEASE_TLA_JAR_UNVERIFIED', '1')
    # No class-data archive: one built for this jar of the test's own would be read by no other run.
    monkeypatch.setenv('EXECLEASE_JVM_CDS', '0')
    write_model(git_repo, entries=())
    assert cli.main(['verify', '--quick']) == 0
    captured = capsys.readouterr()
    assert 'UNVERIFIED TLA+ TOOLS' in captured.err
    assert captured.out.count('UNVERIFIED TLA+ TOOLS') == 1


def test_ctrl_c_stops_tlc_and_leaves_no_temp_folders(git_repo, tmp_path):
    import signal

    from tests.tlc.job_test import BIG_SPEC

    write_model(git_repo, entries=())
    git_repo.write(f'{MODEL}/Big.tla', BIG_SPEC)
    git_repo.write(f'{MODEL}/Big.cfg', 'INIT Init\nNEXT Next\n')
    data = json.loads((git_repo.path / MODEL / 'manifest.json').read_text())
    data['spec'] = 'Big.tla'
    data['checks'] = [
        {'name': 'big-1', 'config': 'Big.cfg'},
        {'name': 'big-2', 'config': 'Big.cfg', 'deadlock': False},  # not big-1's job
    ]
    (git_repo.path / MODEL / 'manifest.json').write_text(json.dumps(data))
    temp = tmp_path / 'temp'
    temp.mkdir()
    env = git_env()
    env.update(EXECLEASE_TLA_OFFLINE='1', TMPDIR=str(temp))
    report = tmp_path / 'out.json'
    report.write_text('{"exit_code": 0, "result": "PASSED"}')  # left by an earlier run
    proc = subprocess.Popen(
        (str(EXECLEASE), 'verify', '--jobs', '2', '--json', str(report)),
        cwd=git_repo.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # TLC makes its -metadir's dated folder as it starts: both checks are running TLC.
    wait.until(
        lambda: len(list(temp.glob('execlease-check-*/meta/*'))) >= 2,
        'both checks to start TLC',
        timeout=60,
    )
    assert len(list(temp.glob('execlease-check-*'))) == 2
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert 'interrupted' in err and 'PASSED' not in out
    assert list(temp.iterdir()) == []
    assert json.loads(report.read_text())['exit_code'] == 130
    ps = subprocess.run(('ps', '-eo', 'args'), capture_output=True, text=True).stdout
    assert str(temp) not in ps  # no TLC left running with its tmpdir in there
