"""Fault injection against real worker processes.

The seed is printed; replay one with AGENT_RUNTIME_FAULT_SEED=<seed>. The seed fixes the
fault decisions, not the OS scheduling, so a replay is likely, not certain, to repeat a race.
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from examples.agent_runtime import schema
from examples.agent_runtime.fault_harness import (
    EffectLine,
    FaultReport,
    FaultSettings,
    completed_without_effect,
    p1_violations,
    p8_violations,
    read_effect_log,
    run_faults,
)

TURNS = 150
# A bound for a run that hangs, not a speed target: on a machine loaded by other work, 150 turns
# took longer than 60 s (seed 922607542, seven test suites beside it on two cores).
DEADLINE_S = 240


def fault_seed() -> int:
    seed = os.environ.get('AGENT_RUNTIME_FAULT_SEED')
    return int(seed) if seed else random.SystemRandom().randrange(1 << 31)


def rounds_until_caught(
    scratch: Path,
    mutation: str,
    rounds: int,
    caught: Callable[[FaultReport], bool],
) -> FaultReport:
    """Run the harness against a broken variant, seeds seed .. seed + rounds - 1, until caught."""
    seed = fault_seed()
    print(f'fault-injection seed {seed} (replay: AGENT_RUNTIME_FAULT_SEED={seed})')
    for round_seed in range(seed, seed + rounds):
        report = run_faults(
            FaultSettings(seed=round_seed, turns=TURNS, deadline_s=DEADLINE_S, mutation=mutation),
            scratch / str(round_seed),
        )
        print(report.summary())
        assert report.worker_errors == []
        if caught(report):
            break
    return report


@pytest.mark.e2e
@pytest.mark.timeout(DEADLINE_S + 60)
def test_faults_keep_p8_and_p1(scratch: Path):
    # One of the slowest tests, on purpose: 150 turns of real worker processes under random
    # kills, stops and policy flips, enough that each fault kind asserted below happens.
    seed = fault_seed()
    print(f'fault-injection seed {seed} (replay: AGENT_RUNTIME_FAULT_SEED={seed})')
    report = run_faults(FaultSettings(seed=seed, turns=TURNS, deadline_s=DEADLINE_S), scratch)
    print(report.summary())
    assert report.worker_errors == []
    assert report.open_left == 0
    assert report.violations == []
    # The run counts only if the faults it is about actually happened.
    assert report.kills > 0, report.summary()
    assert report.takeovers > 0, report.summary()
    assert report.stale_resumptions > 0, report.summary()
    assert report.effect_stops > 0, report.summary()
    assert report.policy_flips > 0, report.summary()


@pytest.mark.e2e
@pytest.mark.timeout(3 * DEADLINE_S + 60)
def test_faults_catch_a_begin_step_without_the_never_rule(scratch: Path):
    # The same harness against a broken begin_step (a started row is always run again,
    # monkeypatched inside the worker processes): P8 must see a double effect. A round
    # catches it only if a fault lands while a `never` step is started (5 or 6 rounds in
    # 6, measured), so up to three rounds, seeds seed, seed + 1, seed + 2.
    report = rounds_until_caught(scratch, 'rerun-started-never', 3, lambda r: bool(r.p8))
    assert report.p8, 'three rounds with a broken begin_step and P8 saw nothing'


@pytest.mark.e2e
@pytest.mark.timeout(4 * DEADLINE_S + 60)
def test_faults_catch_an_unfenced_complete_step(scratch: Path):
    # The same harness against a complete_step without its fence and its generation
    # check (monkeypatched inside the worker processes): a deposed worker's completion
    # lands, and P1 (the audit trigger's was_live_owner) must see it. A round catches it
    # when a worker stopped between begin_step and complete_step resumes before anybody
    # took its turn over (most rounds, measured), so up to four rounds.
    report = rounds_until_caught(scratch, 'unfenced-complete', 4, lambda r: bool(r.p1))
    assert report.p1, 'four rounds with an unfenced complete_step and P1 saw nothing'


# ---- the checks on synthetic data ---------------------------------------------------


def line(step: str, run: str, generation: int, policy: str, turn: str = 't1') -> EffectLine:
    return EffectLine(turn, step, run, generation, policy)


@pytest.mark.parametrize(
    ('effects', 'violations'),
    [
        ([], 0),
        ([line('s', 'a', 1, 'never')], 0),
        ([line('s', 'a', 1, 'always'), line('s', 'b', 2, 'always')], 0),
        ([line('s', 'a', 1, 'never'), line('s', 'b', 2, 'always')], 1),
        ([line('s', 'a', 1, 'always'), line('s', 'b', 2, 'never')], 1),
        ([line('s', 'a', 1, 'never'), line('s', 'a', 1, 'never')], 1),
        ([line('s', 'a', 1, 'never'), line('s', 'b', 2, 'never', turn='t2')], 0),
        ([line('s', 'a', 1, 'never'), line('u', 'a', 1, 'never')], 0),
        (
            [
                line('s', 'a', 1, 'never'),
                line('s', 'b', 2, 'never'),
                line('u', 'a', 1, 'never'),
                line('u', 'b', 2, 'always'),
            ],
            2,
        ),
    ],
    ids=[
        'none',
        'one-never',
        'always-twice',
        'never-then-always',
        'always-then-never',
        'never-twice-same-run',
        'other-turn',
        'other-step',
        'two-steps',
    ],
)
def test_p8_violations(effects, violations):
    assert len(p8_violations(effects)) == violations


def test_read_effect_log_refuses_a_torn_line(tmp_path: Path):
    log = tmp_path / 'effects.log'
    log.write_text(
        '{"turn": "t1", "step": "s", "run": "a", "generation": 1, "policy": "never"}\n'
        '{"turn": "t1", "step": "s", "ru\n'
    )
    with pytest.raises(ValueError, match='effects.log:2'):
        read_effect_log(log)
    assert read_effect_log(tmp_path / 'missing.log') == []


@pytest.fixture
def conn(scratch: Path):
    conn = schema.connect(str(scratch / 'runtime.db'))
    schema.create(conn)
    schema.add_turns(conn, ['t1'])
    conn.execute(
        f"UPDATE agent_turns SET lease_owner = 'a', lease_generation = 1, "
        f'lease_expires_at = {schema.NOW} + 60'
    )
    yield conn
    conn.close()


def test_p1_violations_from_the_audit(conn: sqlite3.Connection):
    conn.execute(
        "INSERT INTO agent_execution_steps VALUES ('t1', 's', 'started', 'never', 1, 'a', NULL)"
    )
    assert p1_violations(conn) == []
    conn.execute("UPDATE agent_execution_steps SET status = 'completed', written_by = 'b'")
    (violation,) = p1_violations(conn)
    assert 'turn t1 step s set completed by b generation 1' in violation


def test_completed_without_effect(conn: sqlite3.Connection):
    conn.execute(
        "INSERT INTO agent_execution_steps VALUES ('t1', 's', 'completed', 'never', 2, 'a', 'r')"
    )
    assert completed_without_effect(conn, [line('s', 'a', 2, 'never')]) == []
    assert len(completed_without_effect(conn, [line('s', 'a', 1, 'never')])) == 1
