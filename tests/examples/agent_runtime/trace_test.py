"""The runtime's trace recording (examples/agent_runtime/trace.py), checked by the real TLC."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from examples.agent_runtime import schema, trace
from examples.agent_runtime.effects import append_effect
from examples.agent_runtime.fault_harness import FaultSettings, run_faults
from examples.agent_runtime.lease import claim, finish_turn, release, renew
from examples.agent_runtime.schema import NOW
from examples.agent_runtime.steps import begin_step, complete_step
from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest.model import Manifest
from execlease_hook.manifest.sections import CodeMutation
from execlease_hook.tlc import jar
from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.java import find_java
from execlease_hook.tlc.job import run_job
from execlease_hook.tlc.result import JobResult
from execlease_hook.traces import suite as trace_suite
from execlease_hook.traces import validation
from tests import needs
from tests.conftest import use_offline

MODEL = Path(__file__).resolve().parents[3] / 'verification' / 'execution-lease'
TTL = 30.0


@pytest.fixture
def db(scratch: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(trace, 'ACTIVE', None)
    path = str(scratch / 'runtime.db')
    conn = schema.connect(path)
    schema.create(conn)
    trace.install(conn)
    schema.add_turns(conn, ['t1'])
    conn.close()
    return path


def traced(db: str, run_id: str) -> sqlite3.Connection:
    """A connection of run `run_id` (in a worker: trace.enable once, at start)."""
    trace.enable(run_id, db)
    return schema.connect(db)


def expire(conn: sqlite3.Connection) -> None:
    # Time passes (no site of a model action: not a line of the trace).
    conn.execute(f"UPDATE agent_turns SET lease_expires_at = {NOW} - 1 WHERE id = 't1'")


def test_off_by_default_costs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(trace, 'ACTIVE', None)
    conn = schema.connect(str(tmp_path / 'x.db'))
    assert type(conn) is sqlite3.Connection
    conn.close()


def test_one_turn_one_line_per_transaction_and_effect(db: str, tmp_path: Path):
    a = traced(db, 'a')
    lease = claim(a, 't1', 'a', TTL)
    assert lease is not None
    assert renew(a, lease, TTL)
    assert begin_step(a, lease, 's', 'never').run_effect
    append_effect(str(tmp_path / 'effects.log'), lease, 's', 'never', 0)
    assert complete_step(a, lease, 's', 'ok')
    assert finish_turn(a, lease)
    assert release(a, lease)
    lines = trace.lines(db)
    assert [x['action'] for x in lines] == [
        'Claim',
        'Renew',
        'BeginStep',
        'Effect',
        'CompleteStep',
        'FinishTurn',
        'Release',
    ]
    assert [x['seq'] for x in lines] == sorted(x['seq'] for x in lines)
    claim_line, _, begin, effect, complete, finish, rel = lines
    assert claim_line | {'seq': 0, 'where': ''} == {
        'seq': 0,
        'action': 'Claim',
        'run': 'a',
        'where': '',
        'turn': 't1',
        'owner': 'a',
        'gen': 1,
        'turnStatus': 'open',
        'liveBefore': False,
        'live': True,
        'pc': 'holding',
        'runGen': 1,
    }
    assert claim_line['where'].startswith('examples/agent_runtime/lease.py:')
    assert begin['stepRow'] == {'status': 'started', 'policy': 'never', 'gen': 1, 'by': 'a'}
    assert begin['policyNow'] == 'never' and begin['liveBefore'] and begin['runGen'] == 1
    assert effect['effect'] == {'run': 'a', 'gen': 1, 'policy': 'never'}
    assert effect['where'].startswith('tests/examples/agent_runtime/trace_test.py:')  # the caller
    assert complete['stepRow']['status'] == 'completed' and complete['pc'] == 'finished'
    assert finish['turnStatus'] == 'done'
    assert rel['owner'] == '' and rel['live'] is False and rel['pc'] == 'idle'


def test_refused_transactions_are_not_lines_a_replay_is(db: str):
    a, b = traced(db, 'a'), traced(db, 'b')
    old = claim(a, 't1', 'a', TTL)
    assert old is not None and claim(b, 't1', 'b', TTL) is None  # refused: no line
    begin_step(a, old, 's', 'always')
    assert complete_step(a, old, 's', 'ok')
    expire(a)  # not a line either
    assert not renew(a, old, TTL)  # refused: no resurrection
    new = claim(b, 't1', 'b', TTL)
    assert new is not None
    assert not release(a, old)  # refused: deposed
    assert begin_step(b, new, 's', 'never').outcome == 'replayed'  # read-only, but a step
    lines = trace.lines(db)
    assert [(x['action'], x['run']) for x in lines] == [
        ('Claim', 'a'),
        ('BeginStep', 'a'),
        ('CompleteStep', 'a'),
        ('Claim', 'b'),
        ('BeginStep', 'b'),
    ]
    takeover, replay = lines[3], lines[4]
    assert takeover['liveBefore'] is False and takeover['gen'] == 2
    assert replay['stepRow']['status'] == 'completed' and replay['policyNow'] == 'never'
    assert replay['liveBefore'] is True


def test_the_connection_names_the_writer_not_the_sql(db: str):
    # A write names its actor by the connection that made it: a run writing with another
    # run's lease in its parameters is still itself in the trace.
    a, b = traced(db, 'a'), traced(db, 'b')
    lease = claim(a, 't1', 'a', TTL)
    assert lease is not None and renew(b, lease, TTL)
    assert [(x['action'], x['run']) for x in trace.lines(db)] == [('Claim', 'a'), ('Renew', 'b')]


def test_two_processes_with_one_run_id_are_two_runs(db: str, tmp_path: Path) -> None:
    # A worker restarted with the run id of a stopped process: the model's runs are processes,
    # so the second is named apart, says the run id it writes, and its claim over the stopped
    # one's lease is a RestartClaim.
    trace.enable('w', db, process='first')
    first = schema.connect(db)
    trace.enable('w', db, process='restarted')
    restarted = schema.connect(db)
    old = claim(first, 't1', 'w', TTL)
    assert old is not None
    expire(first)
    new = claim(restarted, 't1', 'w', TTL)
    assert new is not None
    assert not renew(first, old, TTL)  # owner w still matches: the generation refuses
    assert not release(first, old)
    assert begin_step(restarted, new, 's', 'always').run_effect
    trace.enable('w', db, process='restarted')
    append_effect(str(tmp_path / 'effects.log'), new, 's', 'always', 0)
    (only,) = trace.project(trace.lines(db)).values()
    assert [(x['action'], x['run'], x.get('runId')) for x in only] == [
        ('Claim', 'w', None),
        ('RestartClaim', 'w~2', 'w'),
        ('BeginStep', 'w~2', 'w'),
        ('Effect', 'w~2', 'w'),
    ]
    assert only[1]['owner'] == 'w' and only[2]['stepRow']['by'] == 'w'
    assert only[3]['effect']['run'] == 'w~2'


def test_a_claim_after_the_same_process_released_is_no_restart_claim(db: str) -> None:
    trace.enable('w', db, process='first')
    first = schema.connect(db)
    trace.enable('w', db, process='restarted')
    restarted = schema.connect(db)
    lease = claim(first, 't1', 'w', TTL)
    assert lease is not None and release(first, lease)
    assert claim(restarted, 't1', 'w', TTL) is not None
    (only,) = trace.project(trace.lines(db)).values()
    assert [(x['action'], x['run']) for x in only] == [
        ('Claim', 'w'),
        ('Release', 'w'),
        ('Claim', 'w~2'),
    ]


def test_export_one_file_per_turn_and_step(db: str, tmp_path: Path):
    a = traced(db, 'a')
    lease = claim(a, 't1', 'a', TTL)
    assert lease is not None
    for key in ('0:x', '1:y'):
        begin_step(a, lease, key, 'always')
        complete_step(a, lease, key, 'ok')
    written = trace.export(db, tmp_path / 'out')
    assert sorted(p.name for p in written) == ['t1--0-x.ndjson', 't1--1-y.ndjson']
    first = validation.read_folder(tmp_path / 'out', 'test')[0]
    assert [x['action'] for x in first.lines] == ['Claim', 'BeginStep', 'CompleteStep']
    assert all('turn' not in x and 'step' not in x for x in first.lines)


# ---- real worker processes, real TLC --------------------------------------------------


def check(trace_dir: Path, tools_jar: Path):
    """The traces of a fault run judged by TLC, in the environment `offline_tlc` gives: the
    test run's JVM cache, not the user's (~/.cache/execlease, where a run of the suite from a
    new checkout would leave an archive of its jar each time), and no EXECLEASE_* of the outside."""
    found = validation.read_folder(trace_dir, 'test')
    base = validation.base_job(
        'fault-run',
        'TraceExecutionLease.tla',
        'TraceExecutionLease.cfg',
        Path(needs.java()),
        tools_jar,
        timeout=300,
        settings=from_environ(),
    )
    job = validation.tlc_job(base, MODEL, found, root=MODEL.parents[1])
    return validation.judge(run_job(job), found)


@pytest.mark.e2e
@pytest.mark.timeout(300)
def test_fault_run_traces_are_behaviours_of_the_model(
    tmp_path: Path, scratch: Path, offline_tlc: None, tools_jar: Path
):
    # One of the slowest tests, on purpose: 80 turns of real worker processes under faults, then
    # one TLC run that validates every trace of them; each fault kind asserted below must occur.
    seed = 20260101
    report = run_faults(
        FaultSettings(seed=seed, turns=80, deadline_s=150, trace_dir=tmp_path / 'traces'),
        scratch,
    )
    print(report.summary())
    assert report.worker_errors == [] and report.violations == []
    assert report.kills and report.takeovers and report.stale_resumptions and report.policy_flips
    # a worker restarted under a stopped one's run id took its turn over before it resumed
    assert report.restarts and report.same_id_takeovers, report.summary()
    verdict = check(tmp_path / 'traces', tools_jar)
    assert verdict.outcome == 'accepted', verdict
    assert verdict.traces >= 80
    counts = validation.action_counts(validation.read_folder(tmp_path / 'traces', 'test'))
    assert counts.get('RestartClaim', 0) >= report.same_id_takeovers, counts


@pytest.mark.e2e
@pytest.mark.timeout(600)
def test_fault_run_of_a_broken_complete_step_is_rejected(
    tmp_path: Path, scratch: Path, offline_tlc: None, tools_jar: Path
):
    # One of the slowest tests, on purpose: a fault run and its trace validation, as above, for
    # up to three seeds, until one shows the break.
    # complete_step without its fence (fault_harness.MUTANT_WORKER): a deposed worker's
    # completion commits, and the model has no CompleteStep for a run that does not hold
    # the live lease. A round shows it when a stopped worker resumes mid-step.
    for seed in range(7, 10):
        out = tmp_path / str(seed)
        report = run_faults(
            FaultSettings(
                seed=seed,
                turns=80,
                deadline_s=150,
                mutation='unfenced-complete',
                trace_dir=out / 'traces',
            ),
            scratch / str(seed),
        )
        print(report.summary())
        verdict = check(out / 'traces', tools_jar)
        if verdict.outcome == 'rejected':
            break
    assert verdict.outcome == 'rejected', verdict
    assert verdict.rejection is not None and verdict.rejection.event is not None
    assert verdict.rejection.event['action'] == 'CompleteStep'


# ---- the shipped code mutations (all of them run in `execlease verify`) -----------------


@pytest.fixture(scope='module')
def shipped(jvm_cache: Path, tools_jar: Path) -> tuple[Manifest, jar.Tools]:
    """The shipped model's manifest and the tools its code mutations run with, read once for the
    module (each xdist worker's) instead of once per test: finding the Java runs `java -version`,
    a JVM start, every time (the ten tests, 0.5 CPU-s). Read in the environment the tests have
    (offline_tlc), whose settings each test checks are the ones the tools carry."""
    root = MODEL.parents[1]
    with pytest.MonkeyPatch.context() as env:
        use_offline(env, jvm_cache, tools_jar)
        settings = from_environ()
        t = jar.Tools(jar.resolve_jar(root, settings), find_java(settings), settings)
    return manifest_read.load(MODEL / 'manifest.json', root), t


def mutation_result(
    name: str, shipped: tuple[Manifest, jar.Tools], cache: Path
) -> tuple[CodeMutation, JobResult]:
    """The code mutation `name` of the shipped model, and its result run as `execlease verify`
    runs it, with no cache read: its trace jobs in a mutated copy of this repository, real TLC."""
    m, t = shipped
    assert t.settings == from_environ()  # the tools of this test's environment
    (mutation,) = [c for c in m.code_mutations if c.name == name]
    return mutation, trace_suite.code_mutation_result(
        m, mutation, t, ResultCache(cache, enabled=False)
    )


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    'name',
    [
        'release-ignores-owner',
        'renew-revives-expired',
        'policy-ignores-now',
        'begin-step-ignores-generation',
        'complete-step-ignores-generation',
    ],
)
def test_shipped_code_mutation_is_caught_at_its_line(
    name: str, tmp_path: Path, offline_tlc, shipped
):
    # The three breaks the fault harness let through in every seeded round: a release without
    # its fence, a renew without its expiry check, a replay decision ignoring the policy now;
    # and two fences without their generation, which only a run id shared by a restarted
    # worker and a stopped one lets decide.
    mutation, result = mutation_result(name, shipped, tmp_path)
    assert result.outcome == 'held', result.message
    assert (
        f'code mutation {name} ({mutation.path}) is caught: trace job scenarios rejects s'
        in result.message
    )
    assert ' at line ' in result.message and 'examples/agent_runtime/' in result.message


# What the worker does after each decision (run, replay, needs a person, LeaseLost): each of
# these breaks keeps every write of the shipped code and changes only what the worker does
# next, so the line that rejects it is the worker's next step, which the model does not allow.
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ('name', 'rejected_at'),
    [
        ('rerun-returns-replayed', 's05--0-search.ndjson at line 6 (Release by b, '),
        ('replay-reruns-completed-always', 's11--0-search.ndjson at line 7 (Effect by b, '),
        ('never-branch-runs', 's07--0-mail.ndjson at line 6 (Effect by b, '),
        ('effect-after-lease-lost', 's16--0-search.ndjson at line 3 (Effect by a, '),
        ('complete-step-forges-generation', 's13--0-search.ndjson at line 5 (CompleteStep by w, '),
    ],
)
def test_a_break_of_what_follows_a_decision_is_caught_at_its_line(
    name: str,
    rejected_at: str,
    tmp_path: Path,
    offline_tlc,
    shipped,
):
    _, result = mutation_result(name, shipped, tmp_path)
    assert result.outcome == 'held', result.message
    assert f'trace job scenarios rejects {rejected_at}' in ' '.join(result.message.split())
