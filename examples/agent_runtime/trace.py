"""Trace recording: what the runtime did, in commit order, for trace validation.

Off unless a worker is started with `--trace` or AGENT_RUNTIME_TRACE=1: then `schema.connect`
hands out `TracedConnection`s and the database holds a `trace_events` table with triggers.

Why in the database and not in a file written after COMMIT: a SIGKILL between a COMMIT and the
file write would lose the line of a transaction that happened, and the trace would be rejected
for the wrong reason. Here every row is written inside the transaction it describes, so it
commits or rolls back with it, and its `seq` (an INTEGER PRIMARY KEY, taken inside the
transaction; BEGIN IMMEDIATE serializes writers) is the commit order.

- Triggers on `agent_turns` and `agent_execution_steps` record every write with the row after
  it and whether the lease was live before and after it, by the database clock at the write's
  own instant (SQLite fixes 'now' for one statement, its triggers included), and the run of
  the connection that wrote (not the run the code claims to write for).
- At COMMIT, a `TracedConnection` adds one row naming the transaction's site (the covered
  function that ran it, with file:line) and the fence it used (run, generation, policy read).
- The external effect, outside any transaction, is recorded right after it happened, in its
  own transaction on a connection of its own.

`export` turns the rows into NDJSON: one line per committed transaction and per effect,
projected onto one file per (turn, step): the model has one turn and one step. A line's `run` is
the model's run, a process: two processes that write one run id (a worker restarted with the run
id of a stopped one) are two runs, the second named `<run id>~2` with its run id in `runId`.

About 450 lines, kept whole: the `trace_events` table, its triggers, what a connection adds at
COMMIT and the NDJSON lines exported from it are one format, defined once here.
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

ENV = 'AGENT_RUNTIME_TRACE'
REPO_ROOT = Path(__file__).resolve().parents[2]

# The functions whose transactions are model actions (the site of a write), and the action.
SITES = {
    'claim': 'Claim',
    'renew': 'Renew',
    'release': 'Release',
    'finish_turn': 'FinishTurn',
    'begin_step': 'BeginStep',
    'complete_step': 'CompleteStep',
}


def _tables(now: str) -> str:
    return f'''
CREATE TABLE IF NOT EXISTS trace_events (
    seq INTEGER PRIMARY KEY,
    tx TEXT NOT NULL,
    kind TEXT NOT NULL,          -- 'turn' | 'step' (a write) | 'commit' | 'effect'
    run TEXT,                    -- the run id of the connection
    proc TEXT,                   -- the process that wrote (two processes may share a run id)
    site TEXT,                   -- the function that ran the transaction
    at TEXT,                     -- its file:line
    turn TEXT, step TEXT,
    owner TEXT, gen INTEGER, status TEXT,
    live_before INTEGER, live INTEGER,
    step_status TEXT, step_policy TEXT, step_gen INTEGER, step_by TEXT,
    policy_now TEXT, run_gen INTEGER, effect_policy TEXT
);

CREATE TRIGGER IF NOT EXISTS trace_turn_update AFTER UPDATE ON agent_turns
WHEN trace_site() IS NOT NULL
BEGIN
    INSERT INTO trace_events
        (tx, kind, run, proc, site, at, turn, owner, gen, status, live_before, live)
    VALUES (
        trace_tx(), 'turn', trace_run(), trace_proc(), trace_site(), trace_at(), NEW.id, NEW.lease_owner, NEW.lease_generation,
        NEW.status, coalesce(OLD.lease_expires_at > {now}, 0),
        coalesce(NEW.lease_expires_at > {now}, 0)
    );
END;

CREATE TRIGGER IF NOT EXISTS trace_step_insert AFTER INSERT ON agent_execution_steps
WHEN trace_site() IS NOT NULL
BEGIN
    INSERT INTO trace_events
        (tx, kind, run, proc, site, at, turn, step, owner, gen, status, live_before, live,
         step_status, step_policy, step_gen, step_by)
    SELECT trace_tx(), 'step', trace_run(), trace_proc(), trace_site(), trace_at(), NEW.turn_id, NEW.step_key, t.lease_owner,
        t.lease_generation, t.status, coalesce(t.lease_expires_at > {now}, 0),
        coalesce(t.lease_expires_at > {now}, 0),
        NEW.status, NEW.policy, NEW.generation, NEW.written_by
    FROM agent_turns AS t WHERE t.id = NEW.turn_id;
END;

CREATE TRIGGER IF NOT EXISTS trace_step_update AFTER UPDATE ON agent_execution_steps
WHEN trace_site() IS NOT NULL
BEGIN
    INSERT INTO trace_events
        (tx, kind, run, proc, site, at, turn, step, owner, gen, status, live_before, live,
         step_status, step_policy, step_gen, step_by)
    SELECT trace_tx(), 'step', trace_run(), trace_proc(), trace_site(), trace_at(), NEW.turn_id, NEW.step_key, t.lease_owner,
        t.lease_generation, t.status, coalesce(t.lease_expires_at > {now}, 0),
        coalesce(t.lease_expires_at > {now}, 0),
        NEW.status, NEW.policy, NEW.generation, NEW.written_by
    FROM agent_turns AS t WHERE t.id = NEW.turn_id;
END;
'''


def install(conn: sqlite3.Connection) -> None:
    """Create the trace table and its triggers (after schema.create)."""
    from examples.agent_runtime.schema import NOW

    conn.executescript(_tables(NOW))


class _Recorder:
    def __init__(self, run_id: str, db: str, process: str) -> None:
        self.run_id = run_id
        self.db = db
        self.process = process
        self.serial = 0
        self._effects: TracedConnection | None = None

    def effect(self, turn_id: str, step_key: str, generation: int, policy: str) -> None:
        from examples.agent_runtime.schema import connect
        from examples.agent_runtime.schema import immediate

        if self._effects is None:
            conn = connect(self.db)
            assert isinstance(conn, TracedConnection)
            self._effects = conn
        conn = self._effects
        # the code that ran the effect: the caller of effects.append_effect
        caller = sys._getframe(3)
        site, at = caller.f_code.co_name, _where(caller)
        with immediate(conn):
            conn.execute(
                '''
                INSERT INTO trace_events
                    (tx, kind, run, proc, site, at, turn, step, run_gen, effect_policy)
                VALUES (?, 'effect', ?, ?, ?, ?, ?, ?, ?, ?)
                ''',
                (conn.tx_id(), self.run_id, self.process, site, at, turn_id, step_key, generation,
                 policy),
            )


ACTIVE: _Recorder | None = None
_recorders: dict[tuple[str, str, str], _Recorder] = {}


def enable(run_id: str, db: str, process: str | None = None) -> None:
    """Trace this process as run `run_id`: every `schema.connect` from now on returns a
    TracedConnection of that run, and effects are recorded as that run's. (A worker calls it
    once; trace_scenarios.py, several runs in one process, calls it before each run acts.)

    `process` tells apart two processes that write one run id (a worker restarted with the run
    id of a stopped one): by default the OS process; trace_scenarios.py, whose runs share one
    OS process, names each run's."""
    global ACTIVE
    process = process or f'pid{os.getpid()}'
    ACTIVE = _recorders.setdefault((run_id, db, process), _Recorder(run_id, db, process))


def connection_class() -> type[sqlite3.Connection]:
    return sqlite3.Connection if ACTIVE is None else TracedConnection


def effect(turn_id: str, step_key: str, generation: int, policy: str) -> None:
    """Record an external effect that just happened (a no-op unless tracing is on)."""
    if ACTIVE is not None:
        ACTIVE.effect(turn_id, step_key, generation, policy)


_shown_paths: dict[str, str] = {}


def _where(frame: FrameType) -> str:
    filename = frame.f_code.co_filename
    shown = _shown_paths.get(filename)
    if shown is None:   # resolved once per file: resolving costs a stat per path component
        path = Path(filename)
        try:
            shown = path.resolve().relative_to(REPO_ROOT).as_posix()
        except ValueError:
            shown = path.as_posix()
        _shown_paths[filename] = shown
    return f'{shown}:{frame.f_lineno}'


def _site(frame: FrameType | None) -> tuple[str | None, str | None]:
    """The innermost caller that runs a model action's transaction, and its file:line."""
    depth = 0
    while frame is not None and depth < 8:
        if frame.f_code.co_name in SITES:
            return frame.f_code.co_name, _where(frame)
        frame = frame.f_back
        depth += 1
    return None, None


class TracedConnection(sqlite3.Connection):
    """A connection that tells the trace triggers who writes, from where, in which transaction."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert ACTIVE is not None
        ACTIVE.serial += 1
        self.run_id = ACTIVE.run_id
        self.process = ACTIVE.process
        self.prefix = f'{ACTIVE.run_id}/{ACTIVE.process}/{ACTIVE.serial}'
        self.tx = 0
        self.site: str | None = None
        self.at: str | None = None
        self.fence: dict[str, Any] = {}
        self.changes_at_begin = 0
        self.create_function('trace_run', 0, lambda: self.run_id, deterministic=False)
        self.create_function('trace_proc', 0, lambda: self.process, deterministic=False)
        self.create_function('trace_tx', 0, self.tx_id, deterministic=False)
        self.create_function('trace_site', 0, lambda: self.site, deterministic=False)
        self.create_function('trace_at', 0, lambda: self.at, deterministic=False)

    def tx_id(self) -> str:
        return f'{self.prefix}/{self.tx}'

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if sql == 'BEGIN IMMEDIATE':
            self.tx += 1
            self.site = self.at = None
            self.fence = {}
            self.changes_at_begin = self.total_changes
        elif sql == 'COMMIT':
            self._commit_row()
        elif sql == 'ROLLBACK':
            self.site = None   # a later write outside a transaction is no write of the site's
        elif self.in_transaction:
            site, at = _site(sys._getframe(1))
            if site is not None:
                # the transaction's site is its first; `at` follows each statement, so a
                # write's row names the line of that write
                self.site = self.site or site
                self.at = at
                if isinstance(parameters, dict) and not self.fence:
                    self.fence = dict(parameters)
        return super().execute(sql, parameters)

    def _commit_row(self) -> None:
        # Whatever the transaction was, what this connection writes after it (the row below,
        # a write outside any transaction) is no write of its site's.
        site, self.site = self.site, None
        # A transaction that wrote nothing changed nothing (a failed fence, a failed renew):
        # not a model step, except begin_step, whose read-only replay decision is one.
        if site is None:
            return
        if self.total_changes == self.changes_at_begin and site != 'begin_step':
            return
        from examples.agent_runtime.schema import NOW

        fence = self.fence
        # The fence as the code passed it (named parameters), when it did; the rows and the
        # writes' own trace rows say the rest.
        super().execute(
            f'''
            INSERT INTO trace_events
                (tx, kind, run, proc, site, at, turn, step, owner, gen, status, live_before,
                 live, step_status, step_policy, step_gen, step_by, policy_now, run_gen)
            SELECT :tx, 'commit', :run, :proc, :site, :at, :turn, :step, t.lease_owner,
                t.lease_generation, t.status, coalesce(t.lease_expires_at > {NOW}, 0),
                coalesce(t.lease_expires_at > {NOW}, 0),
                s.status, s.policy, s.generation, s.written_by, :policy, :gen
            FROM (SELECT 1)
            LEFT JOIN agent_turns AS t ON t.id = :turn
            LEFT JOIN agent_execution_steps AS s ON s.turn_id = :turn AND s.step_key = :step
            ''',
            {
                'tx': self.tx_id(), 'run': self.run_id, 'proc': self.process, 'site': site,
                'at': self.at,
                'turn': fence.get('turn'), 'step': fence.get('step'),
                'policy': fence.get('policy'), 'gen': fence.get('gen'),
            },
        )


# ---- export --------------------------------------------------------------------------

def _rows(db: str) -> list[sqlite3.Row]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute('SELECT * FROM trace_events ORDER BY seq').fetchall()
    finally:
        conn.close()


def _transactions(rows: list[sqlite3.Row]) -> Iterator[list[sqlite3.Row]]:
    # Writers are serialized: the rows of one transaction are consecutive in seq.
    group: list[sqlite3.Row] = []
    for row in rows:
        if group and row['tx'] != group[0]['tx']:
            yield group
            group = []
        group.append(row)
    if group:
        yield group


def _step_row(row: sqlite3.Row) -> dict[str, Any]:
    if row['step_status'] is None:
        return {'status': 'none'}
    return {
        'status': row['step_status'], 'policy': row['step_policy'],
        'gen': row['step_gen'], 'by': row['step_by'],
    }


def _line(group: list[sqlite3.Row]) -> dict[str, Any] | None:
    """One transaction (or effect) as one NDJSON line, in the model's terms; None: no model step."""
    last = group[-1]
    if last['kind'] == 'effect':
        return {
            'seq': last['seq'], 'action': 'Effect', 'run': last['run'], 'proc': last['proc'],
            'where': last['at'], 'turn': last['turn'], 'step': last['step'],
            'runGen': last['run_gen'], 'pc': 'effected',
            'effect': {'run': last['run'], 'gen': last['run_gen'], 'policy': last['effect_policy']},
        }
    writes = [r for r in group if r['kind'] in ('turn', 'step')]
    if last['kind'] != 'commit' or last['turn'] is None:
        # The code passed no named fence: the writes alone describe the transaction.
        if not writes:
            return None
        last = writes[-1]
    action = SITES[last['site']]
    line: dict[str, Any] = {
        'seq': last['seq'], 'action': action, 'run': last['run'], 'proc': last['proc'],
        'where': writes[-1]['at'] if writes else last['at'], 'turn': last['turn'],
    }
    state = writes[-1] if writes else last
    line.update(owner=state['owner'] or '', gen=state['gen'], turnStatus=state['status'])
    if writes:
        line['liveBefore'] = bool(writes[0]['live_before'])
        line['live'] = bool(writes[-1]['live'])
    elif last['live']:
        # Read-only (a replay decision): live at this row means live at the fence before it
        # (nobody else writes inside the transaction, and time only moves on). Not live here
        # says nothing about the fence's instant, so it is left out.
        line['liveBefore'] = line['live'] = True
    if last['run_gen'] is not None:
        line['runGen'] = last['run_gen']
    step_writes = [r for r in writes if r['kind'] == 'step']
    if action in ('BeginStep', 'CompleteStep'):
        line['step'] = step_writes[-1]['step'] if step_writes else last['step']
        line['stepRow'] = _step_row(step_writes[-1] if step_writes else last)
    if action == 'BeginStep' and last['policy_now'] is not None:
        line['policyNow'] = last['policy_now']
    if action == 'Claim':
        line['pc'] = 'holding'
        line['runGen'] = line['gen']
    elif action == 'Release':
        line['pc'] = 'idle'
    elif action == 'CompleteStep':
        line['pc'] = 'finished'
    return line


def lines(db: str) -> list[dict[str, Any]]:
    return _name_processes(
        [x for group in _transactions(_rows(db)) if (x := _line(group)) is not None])


def _name_processes(all_lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The model's runs are processes, not run ids: the first process to write a run id is
    named by it; a later process with the same run id (a worker restarted with the run id of a
    stopped one) is `<run id>~2`, `~3`, ..., and its lines say the run id it writes (`runId`),
    which the owner and the step row's writer show."""
    names: dict[tuple[str, str], str] = {}
    per_run: dict[str, int] = {}
    named = []
    for line in all_lines:
        line = dict(line)
        run, proc = line['run'], line.pop('proc')
        if (run, proc) not in names:
            per_run[run] = per_run.get(run, 0) + 1
            names[(run, proc)] = run if per_run[run] == 1 else f'{run}~{per_run[run]}'
        name = names[(run, proc)]
        if name != run:
            line['run'] = name
            line['runId'] = run
        if 'effect' in line:
            line['effect'] = {**line['effect'], 'run': name}
        named.append(line)
    return named


def _label_restart_claims(turn_lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A claim made while another process with the same run id still holds an older claim of
    the turn (stopped, or deposed and not released) is a RestartClaim: the case in which only
    the generation tells the two leases apart. The trace spec checks that the model agrees."""
    holding: dict[str, str] = {}   # process -> its run id, from its claim to its release
    labelled = []
    for line in turn_lines:
        run, run_id = line['run'], line.get('runId', line['run'])
        if line['action'] == 'Claim':
            if any(q != run and ids == run_id for q, ids in holding.items()):
                line = {**line, 'action': 'RestartClaim'}
            holding[run] = run_id
        elif line['action'] == 'Release':
            holding.pop(run, None)
        labelled.append(line)
    return labelled


def project(all_lines: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """One trace per (turn, step): the turn's lease lines, the step's own lines, and the
    begin_steps of the turn's other steps that closed the turn (as BeginOtherStep)."""
    by_turn: dict[str, list[dict[str, Any]]] = {}
    for line in all_lines:
        by_turn.setdefault(line['turn'], []).append(line)
    traces: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for turn, turn_lines in sorted(by_turn.items()):
        turn_lines = _label_restart_claims(turn_lines)
        steps = sorted({x['step'] for x in turn_lines if 'step' in x})
        for step in steps or ['']:
            trace = []
            for line in turn_lines:
                if 'step' not in line:
                    trace.append(line)
                elif line['step'] == step:
                    trace.append(line)
                elif line['action'] == 'BeginStep' and line['turnStatus'] != 'open':
                    other = {k: v for k, v in line.items()
                             if k not in ('step', 'stepRow', 'policyNow', 'pc')}
                    trace.append({**other, 'action': 'BeginOtherStep', 'otherStep': line['step']})
            # turn and step are in the file's name
            traces[(turn, step)] = [
                {k: v for k, v in x.items() if k not in ('turn', 'step')} for x in trace
            ]
    return traces


def trace_file_name(turn: str, step: str) -> str:
    name = f'{turn}--{step}' if step else turn
    return ''.join(c if c.isalnum() or c in '-_.' else '-' for c in name) + '.ndjson'


def export(db: str, out_dir: Path) -> list[Path]:
    """Write one NDJSON file per (turn, step) into out_dir; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for (turn, step), trace in project(lines(db)).items():
        path = out_dir / trace_file_name(turn, step)
        path.write_text(''.join(json.dumps(x, sort_keys=False) + '\n' for x in trace))
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='Export the trace of a traced runtime database.')
    parser.add_argument('--db', required=True)
    parser.add_argument('--out', required=True, help='folder for one NDJSON file per (turn, step)')
    options = parser.parse_args(argv)
    written = export(options.db, Path(options.out))
    print(f'{len(written)} traces written to {options.out}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
