"""Fault injection against the real worker processes.

Several workers race over many turns with short leases. On a random schedule drawn from
a seed, the harness SIGKILLs workers (and respawns them under new run ids), SIGSTOPs a
lease holder long enough for its lease to be taken over and SIGCONTs it (the deposed
worker keeps running), SIGSTOPs a worker between its begin_step and its complete_step
until its lease has expired (it resumes deposed, with its effect due or done and its
complete_step still to come), restarts a worker: SIGSTOPs a lease holder and starts a new
process with its run id, as a supervisor that took it for dead would, and SIGCONTs the stopped
one once its turn was claimed again (by the restart, under the same run id, when it won the
race: then only the generation fences the stopped one), and flips a tool's replay policy
between `never` and `always`.
When every turn is done or needs a person, it checks, for every turn:

- P8: if any effect line of a step was decided under `never`, that step has exactly one
  effect line (across every run and generation, deposed workers included);
- P1: the audit shows no write to agent_execution_steps by a run that was not the live
  owner of the current generation at that moment (the trigger's was_live_owner);
- and, as a sanity check, every completed step has an effect line of the generation
  that completed it.

The seed replays the same fault decisions; the interleaving with the workers depends on
the OS scheduler, so a replay is likely, not certain, to hit the same race.

About 490 lines, kept whole: the workers it starts, the faults it injects on one seeded schedule
and the checks it runs on what they left share one state (the live workers, who holds which
lease, who was stopped when); split, that state would cross modules.
"""
from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import NamedTuple

from examples.agent_runtime import schema
from examples.agent_runtime import trace

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXED_POLICIES = {'send_email': 'never', 'search': 'always'}
FLIPPING_TOOL = 'post_comment'
TOOLS = (*FIXED_POLICIES, FLIPPING_TOOL)

# Broken variants, for showing that the checks can fail. Applied by monkeypatching inside
# the worker process; the worker itself knows nothing about them.
MUTATION_ENV = 'AGENT_RUNTIME_MUTATION'
MUTANT_WORKER = f'''
import os, sys
from examples.agent_runtime import schema, steps, worker
mutation = os.environ['{MUTATION_ENV}']
if mutation == 'rerun-started-never':
    # begin_step without the never rule: a started row is always run again.
    steps.most_restrictive = lambda recorded, now: 'always'
elif mutation == 'policy-now-only':
    # begin_step without the most-restrictive rule: only the policy in force now counts.
    steps.most_restrictive = lambda recorded, now: now
elif mutation == 'unfenced-complete':
    # complete_step without its fence and without its generation check.
    def complete_step(conn, lease, step_key, result):
        with schema.immediate(conn):
            return conn.execute(
                "UPDATE agent_execution_steps SET status = 'completed', result = ?, written_by = ?"
                " WHERE turn_id = ? AND step_key = ? AND status = 'started'",
                (result, lease.run_id, lease.turn_id, step_key),
            ).rowcount == 1
    worker.complete_step = complete_step
else:
    raise SystemExit('unknown mutation ' + mutation)
raise SystemExit(worker.main(sys.argv[1:]))
'''


@dataclass(frozen=True)
class FaultSettings:
    seed: int
    turns: int = 40
    workers: int = 4
    steps_per_turn: int = 3
    ttl: float = 0.4
    effect_delay: float = 0.04
    # seconds between two faults, drawn uniformly
    fault_gap: tuple[float, float] = (0.05, 0.25)
    # Half the SIGSTOPs are short, ttl * uniform(0.5, 2): the lease may expire with
    # nobody claiming it before the worker resumes. The others last ttl * 3 + uniform(0,
    # long_stop_extra) seconds: long enough for another worker to take the turn over.
    long_stop_extra: float = 1.0
    # A stop between begin_step and complete_step lasts ttl * uniform(*effect_stop): the
    # lease (at most ttl left) has expired when the worker resumes, and usually another
    # worker has taken the turn over. The opening one instead resumes the worker as soon
    # as its lease has expired by the database's clock, usually before any takeover: its
    # complete_step meets an expired lease of its own generation.
    effect_stop: tuple[float, float] = (1.2, 2.5)
    deadline_s: float = 60.0
    mutation: str | None = None
    # set: the workers record their trace (trace.py), exported here as NDJSON at the end
    trace_dir: Path | None = None


class EffectLine(NamedTuple):
    turn: str
    step: str
    run: str
    generation: int
    policy: str


@dataclass
class FaultReport:
    seed: int
    turns: int = 0
    done: int = 0
    needs_attention: int = 0
    open_left: int = 0
    workers_spawned: int = 0
    kills: int = 0
    stops: int = 0
    # stops that caught a worker between its begin_step and its complete_step
    effect_stops: int = 0
    stale_resumptions: int = 0
    # workers started with the run id of a stopped one (its lease expired, not yet resumed)
    restarts: int = 0
    # of those, the stopped worker's turn taken over under its own run id before it resumed
    same_id_takeovers: int = 0
    policy_flips: int = 0
    takeovers: int = 0
    effects: int = 0
    reruns: int = 0
    # effects whose run never completed the step: killed after the effect, or deposed
    uncompleted_effects: int = 0
    # of those, effects by a run that was never killed: a deposed worker that kept running
    deposed_effects: int = 0
    wall_s: float = 0.0
    p8: list[str] = field(default_factory=list)
    p1: list[str] = field(default_factory=list)
    completed_without_effect: list[str] = field(default_factory=list)
    worker_errors: list[str] = field(default_factory=list)

    @property
    def violations(self) -> list[str]:
        return [*self.p8, *self.p1, *self.completed_without_effect]

    def summary(self) -> str:
        return (
            f'seed={self.seed} turns={self.turns} done={self.done} '
            f'needs_attention={self.needs_attention} open_left={self.open_left} '
            f'workers_spawned={self.workers_spawned} kills={self.kills} stops={self.stops} '
            f'effect_stops={self.effect_stops} stale_resumptions={self.stale_resumptions} '
            f'restarts={self.restarts} same_id_takeovers={self.same_id_takeovers} '
            f'takeovers={self.takeovers} '
            f'policy_flips={self.policy_flips} effects={self.effects} reruns={self.reruns} '
            f'uncompleted_effects={self.uncompleted_effects} deposed_effects={self.deposed_effects} '
            f'P8_violations={len(self.p8)} P1_violations={len(self.p1)} '
            f'completed_without_effect={len(self.completed_without_effect)} '
            f'worker_errors={len(self.worker_errors)} wall_s={self.wall_s:.1f}'
        )


# ---- checks -------------------------------------------------------------------------

def read_effect_log(path: Path) -> list[EffectLine]:
    if not path.exists():
        return []
    lines = []
    for number, text in enumerate(path.read_text().splitlines(), 1):
        try:
            record = json.loads(text)
            lines.append(EffectLine(
                record['turn'], record['step'], record['run'],
                int(record['generation']), record['policy'],
            ))
        except (ValueError, KeyError) as e:
            raise ValueError(f'{path}:{number}: not an effect line ({e}): {text!r}') from e
    return lines


def p8_violations(effects: list[EffectLine]) -> list[str]:
    """P8: a step with an effect decided under `never` has exactly one effect line."""
    by_step: dict[tuple[str, str], list[EffectLine]] = {}
    for line in effects:
        by_step.setdefault((line.turn, line.step), []).append(line)
    return [
        f'P8: turn {turn} step {step} has {len(lines)} effects, one decided under never: '
        + ', '.join(f'{x.run}/gen {x.generation}/{x.policy}' for x in lines)
        for (turn, step), lines in sorted(by_step.items())
        if len(lines) > 1 and any(x.policy == 'never' for x in lines)
    ]


def p1_violations(conn: sqlite3.Connection) -> list[str]:
    """P1: every write to agent_execution_steps was by the live owner of the generation."""
    rows = conn.execute(
        '''
        SELECT id, turn_id, step_key, run_id, generation, new_status
        FROM step_write_audit WHERE was_live_owner = 0 ORDER BY id
        '''
    ).fetchall()
    return [
        f'P1: audit #{r[0]}: turn {r[1]} step {r[2]} set {r[5]} by {r[3]} generation {r[4]}, '
        'not the live owner'
        for r in rows
    ]


def completed_without_effect(conn: sqlite3.Connection, effects: list[EffectLine]) -> list[str]:
    seen = {(x.turn, x.step, x.generation) for x in effects}
    rows = conn.execute(
        "SELECT turn_id, step_key, generation FROM agent_execution_steps WHERE status = 'completed'"
    ).fetchall()
    return [
        f'turn {r[0]} step {r[1]} completed by generation {r[2]} without its effect'
        for r in rows if (r[0], r[1], r[2]) not in seen
    ]


# ---- the run ------------------------------------------------------------------------

@dataclass
class _Worker:
    run_id: str
    proc: subprocess.Popen[bytes]
    stderr_path: Path
    # while stopped: when to SIGCONT, and the (turn, generation) leases it held
    resume_at: float | None = None
    held: dict[str, int] = field(default_factory=dict)
    # resume earlier, as soon as none of the held leases is live any more
    until_expired: bool = False
    # resume earlier, as soon as one of these (turn, generation) leases was claimed again
    until_taken: dict[str, int] = field(default_factory=dict)


@dataclass
class _RestartWindow:
    stopped: str       # the worker stopped, its turn's lease left to expire
    restarted: str     # the worker started with its run id, on that turn
    held_back: bool = False   # the other workers are paused until the turn is claimed


# A restart's stopped worker, and the workers held back meanwhile, resume at the latest after
# this long: long enough for a restarted worker to start on a loaded machine.
RESTART_WAIT_S = 5.0
# The others are held back this long before the stopped worker's lease expires (the harness
# looks every 10 ms; an idle worker claims an expired lease within milliseconds).
HOLD_BACK_LEAD_S = 0.05
# A stopped worker that holds the write lock is let run and stopped again, up to this often;
# the lock counts as held by a stopped worker when a probe waits this long in vain.
LOCK_TRIES = 20
LOCK_WAIT_S = 0.02


class _Harness:
    def __init__(self, settings: FaultSettings, workdir: Path) -> None:
        self.settings = settings
        self.rng = random.Random(settings.seed)
        self.workdir = workdir
        self.db = workdir / 'runtime.db'
        self.plan = workdir / 'plan.json'
        self.policy_file = workdir / 'policy.json'
        self.effect_log = workdir / 'effects.log'
        self.report = FaultReport(seed=settings.seed, turns=settings.turns)
        self.workers: dict[str, _Worker] = {}
        self.policies = {**FIXED_POLICIES, FLIPPING_TOOL: 'never'}
        self.opening = ['long-stop', 'restart', 'effect-stop', 'kill', 'flip']
        self.killed: set[str] = set()
        self.window: _RestartWindow | None = None

    def setup(self) -> sqlite3.Connection:
        turns = {
            f't{i:04d}': [self.rng.choice(TOOLS) for _ in range(self.settings.steps_per_turn)]
            for i in range(self.settings.turns)
        }
        self.plan.write_text(json.dumps({'turns': turns}))
        self.write_policies()
        conn = schema.connect(str(self.db))
        schema.create(conn)
        if self.settings.trace_dir is not None:
            trace.install(conn)
        schema.add_turns(conn, sorted(turns))
        # takes the write lock without waiting, to tell whether a stopped worker holds it
        self.probe = schema.connect(str(self.db))
        self.probe.execute('PRAGMA busy_timeout = 0')
        return conn

    def write_policies(self) -> None:
        tmp = self.policy_file.with_suffix('.tmp')
        tmp.write_text(json.dumps(self.policies))
        os.replace(tmp, self.policy_file)  # atomic: a worker reads the old or the new file

    def spawn(self, run_id: str | None = None, plan: Path | None = None) -> str:
        """A new worker process, its name returned; `run_id`: restarted with that (a stopped
        worker's) run id; `plan`: the turns it works on (default: all of them)."""
        self.report.workers_spawned += 1
        name = f'run{self.report.workers_spawned:03d}'
        if run_id is None:
            run_id = name
        else:
            name = f'{run_id}~{name}'
        args = (
            '--db', str(self.db), '--plan', str(plan or self.plan), '--run-id', run_id,
            '--ttl', str(self.settings.ttl), '--effect-log', str(self.effect_log),
            '--policy-file', str(self.policy_file),
            '--effect-delay', str(self.settings.effect_delay),
        )
        env = {**os.environ, 'PYTHONPATH': str(REPO_ROOT)}
        env.pop(trace.ENV, None)
        if self.settings.trace_dir is not None:
            env[trace.ENV] = '1'
        if self.settings.mutation is None:
            argv: tuple[str, ...] = (sys.executable, '-m', 'examples.agent_runtime.worker', *args)
            env.pop(MUTATION_ENV, None)
        else:
            argv = (sys.executable, '-c', MUTANT_WORKER, *args)
            env[MUTATION_ENV] = self.settings.mutation
        stderr_path = self.workdir / f'{name}.stderr'
        with open(stderr_path, 'wb') as stderr:
            proc = subprocess.Popen(
                argv, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
            )
        self.workers[name] = _Worker(run_id, proc, stderr_path)
        return name

    def leases_of(self, conn: sqlite3.Connection, run_id: str) -> dict[str, int]:
        rows = conn.execute(
            "SELECT id, lease_generation FROM agent_turns WHERE lease_owner = ? AND status = 'open'",
            (run_id,),
        ).fetchall()
        return {row[0]: int(row[1]) for row in rows}

    def mid_step(self, conn: sqlite3.Connection, run_id: str) -> bool:
        """Between its begin_step and its complete_step: its effect is due, running or done."""
        return conn.execute(
            '''
            SELECT 1 FROM agent_execution_steps AS s JOIN agent_turns AS t ON t.id = s.turn_id
            WHERE s.status = 'started' AND s.written_by = :run
              AND s.generation = t.lease_generation AND t.lease_owner = :run
            LIMIT 1
            ''',
            {'run': run_id},
        ).fetchone() is not None

    def stop(
            self, conn: sqlite3.Connection, worker: _Worker, pause: float, now: float,
            until_expired: bool = False, until_taken: dict[str, int] | None = None,
    ) -> None:
        worker.held = self.leases_of(conn, worker.run_id)
        worker.proc.send_signal(signal.SIGSTOP)
        worker.resume_at = now + pause
        worker.until_expired = until_expired
        worker.until_taken = dict(until_taken or {})
        self.report.stops += 1

    def restart(self, conn: sqlite3.Connection, name: str, now: float) -> bool:
        """Stop a lease holder and start a worker with its run id, as a supervisor that took
        it for dead would, on the stopped one's turn. The stopped one resumes once its turn
        was claimed again (by the restart, under its own run id) or after RESTART_WAIT_S.
        False: no restart (it kept the write lock, or it had released its lease)."""
        worker = self.workers[name]
        self.stop(conn, worker, RESTART_WAIT_S, now)
        if not self.out_of_transaction(worker):
            return False
        worker.held = self.leases_of(conn, worker.run_id)   # as it stopped for good
        if not worker.held:
            worker.resume_at = now + self.settings.ttl * 3   # a plain stop
            return False
        worker.until_taken = dict(worker.held)
        plan = self.workdir / f'plan-{name}.json'
        turns = json.loads(self.plan.read_text())['turns']
        plan.write_text(json.dumps({'turns': {t: turns[t] for t in worker.held}}))
        self.window = _RestartWindow(name, self.spawn(worker.run_id, plan))
        self.report.restarts += 1
        return True

    def hold_back(self, conn: sqlite3.Connection, now: float) -> None:
        """Just before a restarted worker's predecessor loses its lease by expiry, the other
        workers pause until the turn was claimed again: without that they (each claims the
        lowest free turn) usually win it before the restart has started, and the restart case
        is rare. The pause is short (the restart is polling by then), so their own leases
        rarely expire meanwhile."""
        window = self.window
        if window is None or window.held_back:
            return
        stopped = self.workers[window.stopped]
        if self.lease_left(conn, stopped) > HOLD_BACK_LEAD_S:
            return
        window.held_back = True
        for name in self.candidates(conn)[0]:
            if name != window.restarted:
                worker = self.workers[name]
                self.stop(conn, worker, RESTART_WAIT_S, now, until_taken=stopped.until_taken)
                self.report.stops -= 1   # part of the restart, not a fault of its own
                self.out_of_transaction(worker)

    def lease_left(self, conn: sqlite3.Connection, worker: _Worker) -> float:
        """Seconds before the longest of its leases expires, by the database's clock."""
        left = [
            float(row[0]) for turn_id, generation in worker.held.items()
            if (row := conn.execute(
                f'SELECT lease_expires_at - {schema.NOW} FROM agent_turns'
                ' WHERE id = ? AND lease_owner = ? AND lease_generation = ?'
                ' AND lease_expires_at IS NOT NULL',
                (turn_id, worker.run_id, generation),
            ).fetchone()) is not None
        ]
        return max(left, default=0.0)

    def out_of_transaction(self, worker: _Worker) -> bool:
        """A worker stopped inside a transaction holds the write lock until it resumes, and
        every other worker waits for it: let it run a moment and stop it again until the
        lock is free. False: it still holds the lock after LOCK_TRIES stops (left running)."""
        for _ in range(LOCK_TRIES):
            if self.lock_free():
                return True
            worker.proc.send_signal(signal.SIGCONT)
            time.sleep(0.002)
            worker.proc.send_signal(signal.SIGSTOP)
        if self.lock_free():
            return True
        worker.proc.send_signal(signal.SIGCONT)
        worker.resume_at = None
        worker.until_taken = {}
        return False

    def lock_free(self) -> bool:
        """Whether the write lock comes free within LOCK_WAIT_S: a running worker holds it
        for milliseconds, a stopped one until it resumes."""
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                self.probe.execute('BEGIN IMMEDIATE')
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.005)
                continue
            self.probe.execute('ROLLBACK')
            return True

    def in_window(self, name: str) -> bool:
        """While a restart is under way nothing else happens: no fault, no new worker, and a
        worker stopped before it resumes only after it (else it may win the turn)."""
        window = self.window
        return window is not None and name != window.stopped and not self.workers[name].until_taken

    def taken(self, conn: sqlite3.Connection, worker: _Worker) -> list[str]:
        """Who claimed the next generation of each lease it waits for, once one did (from the
        claim audit: the claimer may have released the turn again before this tick)."""
        owners = []
        for turn_id, generation in worker.until_taken.items():
            row = conn.execute(
                'SELECT owner FROM claim_audit WHERE turn_id = ? AND generation = ?',
                (turn_id, generation + 1),
            ).fetchone()
            if row is not None:
                owners.append(row[0])
        return owners

    def still_live(self, conn: sqlite3.Connection, worker: _Worker) -> bool:
        return any(
            conn.execute(
                f'''
                SELECT 1 FROM agent_turns WHERE id = ? AND lease_owner = ?
                  AND lease_generation = ? AND lease_expires_at > {schema.NOW}
                ''',
                (turn_id, worker.run_id, generation),
            ).fetchone() is not None
            for turn_id, generation in worker.held.items()
        )

    def resume_due(self, conn: sqlite3.Connection, now: float, force: bool = False) -> None:
        for name, worker in self.workers.items():
            if worker.resume_at is None or (self.in_window(name) and not force):
                continue
            taken = self.taken(conn, worker)
            due = force or now >= worker.resume_at or bool(taken) or (
                worker.until_expired and not self.still_live(conn, worker)
            )
            if not due:
                continue
            if worker.run_id in taken:
                # its turn is held under its own run id by another process: only the
                # generation tells the two apart once it resumes
                self.report.same_id_takeovers += 1
            # A stale resumption: while it was stopped, another claim took a turn it held.
            for turn_id, generation in worker.held.items():
                row = conn.execute(
                    'SELECT lease_generation FROM agent_turns WHERE id = ?', (turn_id,),
                ).fetchone()
                if int(row[0]) > generation:
                    self.report.stale_resumptions += 1
                    break
            worker.proc.send_signal(signal.SIGCONT)
            worker.resume_at = None
            worker.held = {}
            worker.until_expired = False
            worker.until_taken = {}
            if self.window is not None and name == self.window.stopped:
                self.window = None

    def reap(self) -> None:
        for name, worker in list(self.workers.items()):
            code = worker.proc.poll()
            if code is None:
                continue
            del self.workers[name]
            if code != 0 and code != -signal.SIGKILL:
                self.report.worker_errors.append(
                    f'{name} exited {code}: {worker.stderr_path.read_text()[-2000:]}'
                )

    def next_fault(self) -> str:
        # The first faults are fixed (a long stop of a lease holder, a restart under a stopped
        # worker's run id, a stop between begin_step and complete_step, a kill, a flip), so
        # that every run has a takeover, a stale resumption, a same-id takeover, a deposed
        # worker with its effect in flight and a kill; then a random mix.
        if self.opening:
            return self.opening[0]
        return self.rng.choices(
            ('kill', 'stop', 'effect-stop', 'restart', 'flip'), weights=(3, 2, 1, 1, 4),
        )[0]

    def candidates(self, conn: sqlite3.Connection) -> tuple[list[str], list[str], list[str]]:
        """The running workers, the lease holders among them, and the holders whose run id no
        other live process writes (the leases of a run id are then that process's own)."""
        running = sorted(r for r, w in self.workers.items() if w.resume_at is None)
        ids = Counter(w.run_id for w in self.workers.values())
        holders = [r for r in running if self.leases_of(conn, self.workers[r].run_id)]
        return running, holders, [r for r in holders if ids[self.workers[r].run_id] == 1]

    def inject(self, conn: sqlite3.Connection, now: float) -> bool:
        """One fault; False if it could not land now (the caller retries at its next tick)."""
        opening = bool(self.opening)
        fault = self.next_fault()
        running, holders, own = self.candidates(conn)
        ttl = self.settings.ttl
        if fault == 'kill' and running:
            worker = self.workers[self.rng.choice(holders or running)]
            worker.proc.send_signal(signal.SIGKILL)
            worker.proc.wait()
            self.killed.add(worker.run_id)
            self.report.kills += 1
        elif fault in ('stop', 'long-stop') and len(running) > 1:
            worker = self.workers[self.rng.choice(own or running)]
            if fault == 'stop' and self.rng.random() < 0.5:
                pause = ttl * self.rng.uniform(0.5, 2.0)
            else:
                pause = ttl * 3 + self.rng.uniform(0, self.settings.long_stop_extra)
            self.stop(conn, worker, pause, now)
        elif fault == 'restart' and len(running) > 1 and own:
            if not self.restart(conn, self.rng.choice(own), now) and opening:
                return False   # the opening restart tries again at the next tick
        elif fault == 'effect-stop' and len(running) > 1:
            mid = [r for r in own if self.mid_step(conn, self.workers[r].run_id)]
            if not mid:
                # Nobody is between begin_step and complete_step right now: an opening
                # fault waits for one, a random one is skipped.
                return not opening
            worker = self.workers[self.rng.choice(mid)]
            if opening:
                self.stop(conn, worker, ttl * 3, now, until_expired=True)
            else:
                self.stop(conn, worker, ttl * self.rng.uniform(*self.settings.effect_stop), now)
            self.report.effect_stops += 1
        elif fault == 'flip':
            flipped = 'always' if self.policies[FLIPPING_TOOL] == 'never' else 'never'
            self.policies[FLIPPING_TOOL] = flipped
            self.write_policies()
            self.report.policy_flips += 1
        elif opening:
            return False  # an opening fault that cannot land yet (too few workers running)
        if opening:
            self.opening.pop(0)
        return True

    def open_turns(self, conn: sqlite3.Connection) -> int:
        return int(conn.execute(
            "SELECT count(*) FROM agent_turns WHERE status = 'open'"
        ).fetchone()[0])

    def run(self) -> FaultReport:
        started = time.monotonic()
        conn = self.setup()
        try:
            for _ in range(self.settings.workers):
                self.spawn()
            next_fault = started + self.rng.uniform(*self.settings.fault_gap)
            while True:
                now = time.monotonic()
                if now - started > self.settings.deadline_s:
                    raise TimeoutError(
                        f'seed {self.settings.seed}: turns still open after '
                        f'{self.settings.deadline_s} s'
                    )
                self.resume_due(conn, now)
                self.hold_back(conn, now)
                self.reap()
                if self.open_turns(conn) == 0:
                    break
                while len(self.workers) < self.settings.workers and self.window is None:
                    self.spawn()
                if now >= next_fault and self.window is None and self.inject(conn, now):
                    next_fault = now + self.rng.uniform(*self.settings.fault_gap)
                time.sleep(0.01)
            # Let every worker finish on its own: a stopped one resumes and, deposed,
            # may still do its effect. Then nothing writes any more.
            self.resume_due(conn, time.monotonic(), force=True)
            for worker in list(self.workers.values()):
                worker.proc.wait(timeout=30)
            self.reap()
        finally:
            for worker in self.workers.values():
                if worker.proc.poll() is None:
                    worker.proc.send_signal(signal.SIGKILL)
                    worker.proc.wait()
        self.check(conn)
        conn.close()
        self.probe.close()
        if self.settings.trace_dir is not None:
            trace.export(str(self.db), self.settings.trace_dir)
        self.report.wall_s = time.monotonic() - started
        return self.report

    def check(self, conn: sqlite3.Connection) -> None:
        statuses = Counter(
            row[0] for row in conn.execute('SELECT status FROM agent_turns').fetchall()
        )
        self.report.done = statuses['done']
        self.report.needs_attention = statuses['needs_attention']
        self.report.open_left = statuses['open']
        # Every claim bumps the generation by one: claims after the first are takeovers.
        self.report.takeovers = int(conn.execute(
            'SELECT coalesce(sum(max(lease_generation - 1, 0)), 0) FROM agent_turns'
        ).fetchone()[0])
        effects = read_effect_log(self.effect_log)
        self.report.effects = len(effects)
        per_step = Counter((x.turn, x.step) for x in effects)
        self.report.reruns = sum(n - 1 for n in per_step.values())
        completions = {
            (row[0], row[1], int(row[2])) for row in conn.execute(
                "SELECT turn_id, step_key, generation FROM step_write_audit "
                "WHERE new_status = 'completed'"
            )
        }
        uncompleted = [x for x in effects if (x.turn, x.step, x.generation) not in completions]
        self.report.uncompleted_effects = len(uncompleted)
        self.report.deposed_effects = sum(x.run not in self.killed for x in uncompleted)
        self.report.p8 = p8_violations(effects)
        self.report.p1 = p1_violations(conn)
        self.report.completed_without_effect = completed_without_effect(conn, effects)


def run_faults(settings: FaultSettings, workdir: Path) -> FaultReport:
    workdir.mkdir(parents=True, exist_ok=True)
    return _Harness(settings, workdir).run()
