"""Trace jobs and code mutations in `execlease verify`, on a second, small model: the Counter
fixture and a counter program that records its trace (tests/fixtures/traces/), real TLC."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.verify import pipeline, result
from tests import shared, verify_support
from tests.conftest import GitRepo, use_offline
from tests.verify.suite_test import shared_results

TLC_FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'tlc'
FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'traces'
MODEL = 'verification/counter'

APP = {
    'name': 'app',
    'spec': 'TraceCounter.tla',
    'config': 'TraceCounter.cfg',
    'command': ['python', 'app/counter_app.py'],
}
REJECTED = {
    'name': 'recorded',
    'spec': 'TraceCounter.tla',
    'config': 'TraceCounter.cfg',
    'files': ['traces/*.ndjson'],
}
BROKEN = {
    'name': 'broken',
    'spec': 'TraceCounter.tla',
    'config': 'TraceCounter.cfg',
    'command': ['python', '-c', 'import sys; print("no traces today"); sys.exit(3)'],
}
COPIED = {
    'name': 'copied',
    'spec': 'TraceCounter.tla',
    'config': 'TraceCounter.cfg',
    'command': [
        'python',
        '-c',
        'import os, shutil; print("seed=42"); shutil.copy('
        '"verification/counter/traces/rejected.ndjson", os.environ["EXECLEASE_TRACE_DIR"])',
    ],
}
SILENT = {
    'name': 'silent',
    'spec': 'TraceCounter.tla',
    'config': 'TraceCounter.cfg',
    'command': ['python', '-c', 'pass'],
}
UNBOUNDED = {
    'name': 'unbounded',
    'path': 'app/counter_app.py',
    'replace': {'from': '    if x < top:', 'to': '    if True:'},
    'traces': ['app'],
}
HARMLESS = {
    'name': 'harmless',
    'path': 'app/counter_app.py',
    'replace': {'from': 'return 1 - y', 'to': 'return (1 - y)'},
    'traces': ['app'],
}
GONE = {
    'name': 'gone',
    'path': 'app/counter_app.py',
    'replace': {'from': 'no such text', 'to': 'x'},
    'traces': ['app'],
}
ENTRIES = [
    {'id': 'inc', 'path': 'app/counter_app.py', 'function': 'increment', 'action': 'Inc'},
    {'id': 'flip', 'path': 'app/counter_app.py', 'function': 'flip', 'action': 'Flip'},
]

pytestmark = pytest.mark.usefixtures('offline_tlc')


def write_model(
    repo: GitRepo, traces: list[dict[str, Any]], code_mutations: list[dict[str, Any]]
) -> Path:
    folder = repo.path / MODEL
    (folder / 'traces').mkdir(parents=True, exist_ok=True)
    for name in ('Counter.tla', 'CounterLib.tla', 'pass.cfg'):
        shutil.copyfile(TLC_FIXTURES / name, folder / name)
    for name in ('TraceCounter.tla', 'TraceCounter.cfg'):
        shutil.copyfile(FIXTURES / name, folder / name)
    shutil.copyfile(FIXTURES / 'rejected.ndjson', folder / 'traces' / 'rejected.ndjson')
    repo.write('app/counter_app.py', (FIXTURES / 'counter_app.py').read_text())
    data = {
        'version': 1,
        'spec': 'Counter.tla',
        'checks': [{'name': 'main', 'config': 'pass.cfg'}],
        'traces': traces,
        'codeMutations': code_mutations,
        'coverage': {'syncCommit': None, 'modelHash': None, 'entries': ENTRIES},
    }
    path = folder / 'manifest.json'
    path.write_text(json.dumps(data, indent=2) + '\n')
    return path


@pytest.fixture(scope='module')
def everything(
    tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path
) -> result.ModelResult:
    """One run of every trace job and code mutation, made once for the test run (tests/shared.py
    `value`), not once on every worker that runs one of the tests below: they read its jobs and
    failures. Its coverage (the code's tree-sitter nodes, which do not pickle) is left out.
    It runs every job (no cache read) and writes their results where the tests of what verify
    does with the verdicts read them (`shared_verdicts`): the check, the trace job app and the
    code mutations unbounded and harmless there are these, in a repository of the same files.
    One job at a time (`--jobs 1`): the jobs after the first then run in one warm JVM; with two at
    once, more JVMs started and warmed up for the same six TLC runs (1.8 CPU-s more, measured:
    7.3-8.2 CPU-s against 5.5-6.2 for the fixture, alone). The tests read verdicts and messages,
    which do not depend on how many jobs ran at once."""

    def run() -> result.ModelResult:
        repo = GitRepo(tmp_path_factory.mktemp('traces'))
        repo.git('init', '-q', '-b', 'main')
        shared_results(tmp_path_factory, repo)
        write_model(repo, [APP, REJECTED, COPIED, BROKEN, SILENT], [UNBOUNDED, HARMLESS, GONE])
        with pytest.MonkeyPatch.context() as env:
            use_offline(env, jvm_cache, tools_jar)
            ran = verify_support.verify(repo.path, pipeline.Mode(jobs=1, cache=False))
        # The code mutations leave the code untouched.
        assert repo.read('app/counter_app.py') == (FIXTURES / 'counter_app.py').read_text()
        (model,) = ran.models
        return dataclasses.replace(model, coverage=[])

    return shared.value(tmp_path_factory, 'traces-everything', run)


@pytest.fixture
def shared_verdicts(tmp_path_factory: pytest.TempPathFactory, git_repo: GitRepo) -> None:
    """For the tests of what verify does with the verdicts (the jobs --quick and --only pick, a
    sync that a failing code mutation blocks, what trace lines leave out, action coverage): a
    job's verdict comes from the run's shared results (suite_test.shared_results) once a test
    has run that job. The tests of running trace jobs (their cache, a mutated copy, a command
    that fails) keep their own."""
    shared_results(tmp_path_factory, git_repo)


EXPECTED = [
    ('traces', 'app', 'held', 'trace job app: 2 traces, 7 lines accepted'),
    (
        'traces',
        'recorded',
        'did not hold',
        'trace job recorded: the code did something the model does not allow: '
        'trace traces/rejected.ndjson is rejected at line 3: no step of the model matches it\n'
        '    event: {"action": "Inc", "x": 3, "y": 1, "where": "app/counter_app.py:30"}\n'
        '    emitted by: app/counter_app.py:30\n'
        '    model action: Inc (spec: Counter.tla:13-13)\n'
        '    code: app/counter_app.py:14-17  increment  [inc]\n'
        '    last state reached (lines 1-2 matched; TLC does not name the failing conjunct):\n',
    ),
    (
        'traces',
        'copied',
        'did not hold',
        '    the trace command said (replay it with the same settings):\n      | seed=42\n',
    ),
    (
        'traces',
        'broken',
        'could not run',
        'trace job broken: the command python -c import sys; print("no traces today"); sys.exit(3) '
        'exited 3; fix it so that it writes its traces and exits 0\n    | no traces today',
    ),
    ('traces', 'silent', 'could not run', 'trace job silent: no *.ndjson trace in'),
    (
        'code-mutation',
        'unbounded',
        'held',
        'code mutation unbounded (app/counter_app.py) is caught: trace job app rejects to-the-top.ndjson '
        'at line 4 (Inc by ?, counter_app.py:34): no step of the model matches it',
    ),
    (
        'code-mutation',
        'harmless',
        'did not hold',
        'code mutation harmless is not caught: trace job app accepts the code with app/counter_app.py broken',
    ),
    (
        'code-mutation',
        'gone',
        'could not run',
        'code mutation gone: replace.from does not match in app/counter_app.py (it must match exactly once)',
    ),
]


@pytest.mark.parametrize(
    ('kind', 'name', 'outcome', 'message'), EXPECTED, ids=[e[1] for e in EXPECTED]
)
def test_trace_job_outcome(everything, kind, name, outcome, message):
    (result,) = [j for j in everything.jobs if (j.job.kind, j.job.name) == (kind, name)]
    assert result.outcome == outcome
    assert message in result.message


def test_rejection_shows_the_last_matched_state(everything):
    (result,) = [j for j in everything.jobs if j.job.name == 'recorded']
    print(result.message)
    assert '      x = 1\n' in result.message and '      y = 1\n' in result.message
    assert everything.exit_code == 2  # could not run dominates; every failure still listed
    assert sum('trace job recorded' in f for f in everything.failures) == 1
    assert 'the trace command said' not in result.message  # files: no command


def test_no_action_coverage_verdict_while_a_trace_job_fails(everything):
    assert not [j for j in everything.jobs if j.job.name == 'action-coverage']


def test_verify_runs_traces_caches_them_and_reports_action_coverage(
    git_repo: GitRepo, capsys, monkeypatch
):
    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    write_model(git_repo, [APP], [UNBOUNDED])
    git_repo.add('.')
    git_repo.commit('model')
    assert cli.main(['verify', '--update-coverage']) == 0
    first = capsys.readouterr().out
    assert 'every action of the covered code is reached by the traces: Flip 2, Inc 5' in first
    assert 'PASSED' in first
    assert cli.main(['verify']) == 0
    out = capsys.readouterr().out
    rows = [
        line.split()
        for line in out.splitlines()
        if line.strip().startswith(('traces', 'code-mutation'))
    ]
    assert [r[0:2] + r[-1:] for r in rows if r[1] in ('app', 'unbounded')] == [
        ['traces', 'app', 'yes'],
        ['code-mutation', 'unbounded', 'yes'],
    ]


@pytest.mark.usefixtures('shared_verdicts')
def test_quick_skips_trace_jobs(git_repo: GitRepo, capsys, monkeypatch):
    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    write_model(git_repo, [BROKEN], [])
    assert cli.main(['verify', '--quick']) == 1  # never synced coverage; the broken job not run
    assert 'broken' not in capsys.readouterr().out


@pytest.mark.usefixtures('shared_verdicts')
def test_a_failing_code_mutation_blocks_update_coverage(git_repo: GitRepo, capsys, monkeypatch):
    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    path = write_model(git_repo, [APP], [HARMLESS])
    git_repo.add('.')
    git_repo.commit('model')
    before = path.read_text()
    assert cli.main(['verify', '--update-coverage']) == 1
    assert path.read_text() == before
    assert 'code mutation harmless is not caught' in capsys.readouterr().out


def test_a_model_module_linked_absolutely_is_read_in_the_mutated_copy(
    git_repo: GitRepo, capsys, tmp_path
):
    """A model module that is an absolute symbolic link into the repository (specs/ shared by
    the model folders): the trace job in the mutated copy reads the copy's file, and rejects the
    mutation; a link out of the repository is refused, in the repository as in a copy."""
    write_model(git_repo, [APP], [UNBOUNDED])
    lib = git_repo.path / MODEL / 'CounterLib.tla'
    git_repo.write('specs/CounterLib.tla', lib.read_text())
    lib.unlink()
    lib.symlink_to(git_repo.path / 'specs/CounterLib.tla')
    assert cli.main(['verify', '-v', '--only', 'code-mutation:unbounded']) == 0
    out = capsys.readouterr().out
    assert 'code mutation unbounded (app/counter_app.py) is caught: trace job app rejects' in out
    assert 'outside the repository' not in out
    lib.unlink()
    lib.symlink_to(shutil.copy(git_repo.path / 'specs/CounterLib.tla', tmp_path))
    assert cli.main(['verify', '--only', 'app']) == 2
    assert f'resolves to {tmp_path / "CounterLib.tla"}, outside the repository' in ' '.join(
        capsys.readouterr().out.split()
    )


def test_a_failing_command_catches_a_code_mutation_a_refused_model_file_does_not(
    git_repo: GitRepo, capsys
):
    """The mutated program breaks its own trace command: caught, by the command. The copy lacks
    a file of the model (git ignores the trace cfg, so it is not copied): the trace job is
    refused there, and that is no catch but a job that could not run."""
    crashes = {**UNBOUNDED, 'name': 'crashes', 'replace': {'from': 'return 1 - y', 'to': '1 // 0'}}
    write_model(git_repo, [APP], [crashes, UNBOUNDED])
    assert cli.main(['verify', '-v', '--only', 'code-mutation:crashes']) == 0
    out = ' '.join(capsys.readouterr().out.split())
    assert 'code mutation crashes is caught by the trace command of app' in out
    git_repo.write('.gitignore', f'{MODEL}/TraceCounter.cfg\n')
    assert cli.main(['verify', '-v', '--only', 'code-mutation:unbounded']) == 2
    out = ' '.join(capsys.readouterr().out.split())
    assert 'code mutation unbounded: trace job app: trace job app: cannot read' in out
    assert 'caught' not in out


@pytest.mark.usefixtures('shared_verdicts')
def test_only_names_trace_jobs_and_code_mutations(git_repo: GitRepo, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    path = write_model(git_repo, [APP], [UNBOUNDED])
    data = json.loads(path.read_text())  # a spec mutation of the same name as the code mutation
    data['mutations'] = [
        {
            'name': 'unbounded',
            'config': 'pass.cfg',
            'violates': 'TypeOK',
            'replace': {'from': 'x < N /\\', 'to': 'TRUE /\\'},
        }
    ]
    path.write_text(json.dumps(data))
    out = tmp_path / 'only.json'

    def ran(*only: str) -> list[tuple[str, str]]:
        assert cli.main(['verify', '--only', *only, '--format', 'json', '--output', str(out)]) in (
            0,
            1,
        )
        (model,) = json.loads(out.read_text())['models']
        return [(j['kind'], j['name']) for j in model['jobs']]

    assert ran('app') == [('traces', 'app')]  # no check, no action coverage
    assert ran('code-mutation:unbounded') == [('code-mutation', 'unbounded')]
    assert ran('mutation:unbounded', 'main') == [('check', 'main'), ('mutation', 'unbounded')]
    assert cli.main(['verify', '--only', 'unbounded']) == 2
    err = capsys.readouterr().err
    assert (
        '--only unbounded: a code-mutation and a mutation share that name in manifest.json; '
        'say which: code-mutation:unbounded or mutation:unbounded'
    ) in err
    assert cli.main(['verify', '--only', 'nope']) == 2
    assert (
        '--only nope: no such job in manifest.json (jobs: app, main, unbounded;'
        in capsys.readouterr().err
    )
    assert cli.main(['verify', '--quick', '--only', 'app']) == 2  # --quick runs no trace job
    assert '--only app: no such job' in capsys.readouterr().err


MESSY = [  # as a program's logger writes them: timestamps, empty objects, nulls, nested arrays
    {
        'action': 'Inc',
        'x': 1,
        'y': 0,
        'ts': 1712329729.6024537,
        'ctx': {},
        'err': None,
        'spans': [[1, 2], []],
        'tags': ['a', None],
        'trace-id': 'f00',
    },
    {
        'action': 'Flip',
        'x': 1,
        'y': 1,
        'ts': 1712329729.7,
        'ctx': {'attempt': 2},
        'err': None,
        'spans': [[3]],
        'nanos': 1712329729602453700,
    },
]


@pytest.mark.usefixtures('shared_verdicts')
def test_logs_as_programs_write_them_are_accepted_and_what_was_left_out_is_named(
    git_repo: GitRepo, capsys, monkeypatch
):
    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    job = {
        'name': 'messy',
        'spec': 'TraceCounter.tla',
        'config': 'TraceCounter.cfg',
        'files': ['logs/*.ndjson'],
    }
    path = write_model(git_repo, [job], [])
    logs = path.parent / 'logs'
    logs.mkdir()
    (logs / 'run.ndjson').write_text(''.join(json.dumps(line) + '\n' for line in MESSY))
    git_repo.add('.')
    git_repo.commit('model')
    assert cli.main(['verify', '--only', 'messy']) == 0
    out = capsys.readouterr().out
    assert 'trace job messy: 1 traces, 2 lines accepted' in out
    assert (
        '2 fields of trace lines have no TLA+ form and were left out (list a field under the '
        'job\'s "fields": {"drop": [...]} to leave it out on purpose):'
    ) in ' '.join(out.split())
    assert 'logs/run.ndjson:1 field tags: tags[1]: null inside an array has no TLA+ form' in out
    assert "logs/run.ndjson:1 field trace-id: 'trace-id' is not a TLA+ record field name" in out
    # A tampered line is still rejected at its line; the rule says what is left out on purpose.
    (logs / 'run.ndjson').write_text(''.join(json.dumps(dict(line, x=2)) + '\n' for line in MESSY))
    data = json.loads(path.read_text())
    data['traces'][0]['fields'] = {'drop': ['tags', 'trace-id']}
    path.write_text(json.dumps(data))
    assert cli.main(['verify', '--only', 'messy']) == 1
    out = capsys.readouterr().out
    assert 'trace logs/run.ndjson is rejected at line 1: no step of the model matches it' in out
    assert 'no TLA+ form' not in out


@pytest.mark.usefixtures('shared_verdicts')
def test_adoption_one_action_at_a_time(git_repo: GitRepo, capsys, monkeypatch):
    """Traces that reach Inc only: action coverage fails on Flip until Flip is exempted with a
    reason; the reason is shown with the verdict; once a trace reaches Flip, a note says the
    exemption can go."""
    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    job = {
        'name': 'incs',
        'spec': 'TraceCounter.tla',
        'config': 'TraceCounter.cfg',
        'files': ['logs/*.ndjson'],
    }
    path = write_model(git_repo, [job], [])
    logs = path.parent / 'logs'
    logs.mkdir()
    (logs / 'a.ndjson').write_text(
        '{"action": "Inc", "x": 1, "y": 0}\n{"action": "Inc", "x": 2, "y": 0}\n'
    )
    git_repo.add('.')
    git_repo.commit('model')
    assert cli.main(['verify']) == 1
    out = ' '.join(capsys.readouterr().out.split())
    assert (
        'no trace line exercises action Flip (covered by flip): add a trace (a scenario) in which '
        'the code does it, or exempt it with a reason under coverage.untraced'
    ) in out
    data = json.loads(path.read_text())
    data['coverage']['untraced'] = [{'action': 'Flip', 'reason': 'no scenario flips yet'}]
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert cli.main(['verify', '--update-coverage']) == 0
    out = capsys.readouterr().out
    assert (
        'every action but the exempted of the covered code is reached by the traces: Inc 2' in out
    )
    assert (
        'exempted from trace action coverage (coverage.untraced):\n      Flip: no scenario flips yet'
        in out
    )
    assert (
        json.loads(path.read_text())['coverage']['untraced'] == data['coverage']['untraced']
    )  # kept
    (logs / 'b.ndjson').write_text('{"action": "Flip", "x": 0, "y": 1}\n')
    assert cli.main(['verify']) == 0
    out = ' '.join(capsys.readouterr().out.split())
    assert (
        'trace action coverage: Flip is exempted (coverage.untraced: no scenario flips yet), but '
        'the traces now reach it (1 lines); remove the exemption so that it stays reached'
    ) in out
