"""Trace validation jobs: NDJSON traces of the real program -> one TLC run of the trace spec.

A trace job names a trace spec (it EXTENDS the model and the generated module TraceData, see
traces/module.py), its cfg, and where the traces come from: NDJSON files, or a command run from
the repository root that writes them into the folder named by EXECLEASE_TRACE_DIR. All traces
go to one TLC process (the trace spec picks one in Init), run with deadlock checking: a line no
step of the model can match leaves TLC without a successor, and that deadlock is the rejection.
TLC stops at the first one it finds; its counterexample is the longest matched prefix.

It is kept whole: the traces read, the TLC job made of them and the verdict read back from TLC
are one contract (a rejection names the trace and line the job was built from).
"""

from __future__ import annotations

import dataclasses
import glob
import os
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from execlease_hook.core import procs
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import TRACE_DIR, Settings
from execlease_hook.spec import cfg
from execlease_hook.tlc.job import DEFAULT_TIMEOUT, TlcJob
from execlease_hook.tlc.libraries import NO_LIBRARIES, Libraries
from execlease_hook.tlc.output import Verdict
from execlease_hook.traces.module import (
    MODULE,
    Compiled,
    Trace,
    compile_traces,
    read_model,
    read_modules,
    read_trace,
)

TRACE_VAR = 't'  # the trace spec's variables: the trace index and the next line
LINE_VAR = 'l'
State = tuple[tuple[str, str], ...]  # a TLC state: its variables' names and values


def run_command(
    argv: Sequence[str],
    root: Path,
    out_dir: Path,
    timeout: float,
    what: str,
    env: Sequence[tuple[str, str]] = (),
) -> str:
    """Run the trace command from `root`, with the variables `env` set; it writes NDJSON files
    into out_dir. Exit 2 if it fails; else what it printed (stdout and stderr, interleaved). The
    command runs in a process group of its own: a timeout or cancel_all (Ctrl-C, from the shared
    pool, verify/pool.py, where trace commands run beside TLC) stops it with every process it
    started (a fault-injection run's workers)."""
    # `python` in a manifest means the Python that runs execlease (its venv, its packages).
    full = (sys.executable if argv[0] in ('python', 'python3') else argv[0], *argv[1:])
    environment = {**os.environ, **dict(env), TRACE_DIR: str(out_dir)}
    try:
        code, stdout = procs.run(full, timeout, cwd=root, env=environment)
    except OSError as e:
        raise CannotRun(f'{what}: cannot run {full[0]}: {e.strerror or e}') from None
    output = stdout.decode('utf-8', 'replace')
    tail = ''.join(f'\n    | {line}' for line in output[-1500:].strip().splitlines()[-12:])
    if code is None:
        raise CannotRun(
            f'{what}: the command {" ".join(argv)} did not finish in {timeout:g} s '
            f'(raise "timeout" on the entry if it needs longer){tail}'
        )
    if code != 0:
        raise CannotRun(
            f'{what}: the command {" ".join(argv)} exited {code}; '
            f'fix it so that it writes its traces and exits 0{tail}'
        )
    return output


def read_folder(folder: Path, what: str) -> list[Trace]:
    paths = sorted(folder.glob('*.ndjson'))
    if not paths:
        raise CannotRun(
            f'{what}: no *.ndjson trace in {folder}; the command must write its traces '
            f'into the folder named by ${TRACE_DIR}'
        )
    return [read_trace(p) for p in paths]


def read_files(patterns: Sequence[str], folder: Path, what: str) -> list[Trace]:
    traces = []
    for pattern in patterns:
        found = sorted(glob.glob(str(folder / pattern)))
        if not found:
            raise CannotRun(f'{what}: no trace file matches {pattern!r} in {folder}')
        traces += [read_trace(Path(p), str(Path(p).relative_to(folder))) for p in found]
    return traces


def base_job(
    name: str,
    spec: str,
    config: str,
    java: Path,
    jar: Path,
    timeout: float | None = None,
    libraries: Libraries = NO_LIBRARIES,
    *,
    settings: Settings,
) -> TlcJob:
    """What every TLC job of the trace job `name` shares, before its modules are read (tlc_job,
    own.tlc_jobs): its Java, jar, bounds and libraries (tlc/libraries.py)."""
    return TlcJob(
        kind='traces',
        name=name,
        spec=spec,
        spec_text=b'',
        config=config,
        config_text=b'',
        java=java,
        jar=jar,
        timeout=timeout or DEFAULT_TIMEOUT,
        libraries=libraries,
        settings=settings,
    )


def tlc_job(
    base: TlcJob,
    folder: Path,
    traces: Sequence[Trace],
    compiled: Compiled | None = None,
    *,
    root: Path,
) -> TlcJob:
    """The TLC job of a trace spec (`base`: base_job): every module of the model folder (inside
    the repository `root`) plus the generated TraceData (`compiled`, else the traces compiled
    with every field)."""
    name, config = base.name, base.config
    spec_path = folder / base.spec
    spec_text, config_text = read_model(folder, base.spec, config, name)
    try:
        said = cfg.check_deadlock(config_text, config)
    except cfg.CfgProblem as e:
        raise CannotRun(f'trace job {name}: {e}; fix the cfg') from None
    if said is False:
        raise CannotRun(
            f'trace job {name}: {config} says CHECK_DEADLOCK FALSE, but a trace is rejected '
            'by the deadlock at the line nothing matches; remove it from the trace cfg'
        )
    config_text = cfg.without_check_deadlock(config_text)  # TLC 2.15 lacks the keyword
    modules = read_modules(root, spec_path.parent, name, (spec_path.name, f'{MODULE}.tla')) + (
        (f'{MODULE}.tla', (compiled or compile_traces(traces)).text.encode()),
    )
    return dataclasses.replace(
        base,
        spec=spec_path.name,
        spec_text=spec_text,
        config_text=config_text,
        modules=modules,
        deadlock=True,
    )


@dataclass(frozen=True)
class Rejection:
    trace: str  # the trace's name (its file)
    line: int  # 1-based: the first line no step of the model could match
    kind: str  # why: no step matches it, or an invariant broken after it
    event: dict[str, Any] | None  # that line as logged
    state: State  # the last matched state (the trace spec's variables)


@dataclass(frozen=True)
class TraceVerdict:
    outcome: str  # 'accepted' | 'rejected' | 'error'
    traces: int
    lines: int
    rejection: Rejection | None = None
    reason: str | None = None  # error: what went wrong

    def to_json(self) -> dict[str, Any]:
        return asdict(self)  # a rejection's state pairs are written as JSON lists

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TraceVerdict:
        if data['outcome'] not in ('accepted', 'rejected', 'error'):
            raise ValueError(f'bad outcome {data["outcome"]!r}')
        rejection = data['rejection']
        return cls(
            str(data['outcome']),
            int(data['traces']),
            int(data['lines']),
            None
            if rejection is None
            else Rejection(
                str(rejection['trace']),
                int(rejection['line']),
                str(rejection['kind']),
                rejection['event'],
                tuple((str(n), str(v)) for n, v in rejection['state']),
            ),
            data['reason'],
        )


def judge(verdict: Verdict, traces: Sequence[Trace]) -> TraceVerdict:
    total = sum(len(t.lines) for t in traces)

    def error(reason: str | None) -> TraceVerdict:
        return TraceVerdict('error', len(traces), total, reason=reason)

    if verdict.outcome == 'passed':
        return TraceVerdict('accepted', len(traces), total)
    if verdict.outcome == 'error':
        return error(verdict.reason)
    if not verdict.trace or not verdict.trace[-1].variables:
        return error(f'TLC reported {verdict.describe()} without a state to read')
    state = verdict.trace[-1].variables
    values = dict(state)
    try:
        index, line = int(values[TRACE_VAR]), int(values[LINE_VAR])
    except (KeyError, ValueError):
        return error(
            f'the trace spec must have variables {TRACE_VAR} (the trace) and {LINE_VAR} '
            f'(its next line); TLC reported {verdict.describe()}'
        )
    if not 1 <= index <= len(traces):
        return error(f'TLC named trace {index} of {len(traces)}')
    if verdict.kind != 'deadlock':  # an invariant broken after line - 1: that line led there
        line -= 1
    found = rejection(verdict, traces[index - 1], line, state, 'after')
    return TraceVerdict('rejected', len(traces), total, rejection=found)


def rejection(verdict: Verdict, trace: Trace, line: int, state: State, when: str) -> Rejection:
    """`trace` rejected at `line` (1-based) by TLC's `verdict`, a violation `when` the line."""
    kind = (
        'no step of the model matches it'
        if verdict.kind == 'deadlock'
        else f'{verdict.kind} {verdict.property or "(unnamed)"} is violated {when} it'
    )
    event = trace.lines[line - 1] if 1 <= line <= len(trace.lines) else None
    return Rejection(trace.name, line, kind, event, state)


def action_counts(traces: Sequence[Trace]) -> dict[str, int]:
    """Lines per logged action (the `action` field), over every trace."""
    actions = (line.get('action') for trace in traces for line in trace.lines)
    return dict(Counter(a for a in actions if isinstance(a, str)))


@dataclass(frozen=True)
class TraceRun:
    """One trace job, run in one copy of the repository."""

    verdict: TraceVerdict
    tlc: Verdict | None  # None: TLC did not run (the command failed, or the job was refused)
    counts: dict[str, int] = field(default_factory=dict)  # lines per logged action
    seconds: float = 0.0  # command + conversion + TLC
    cached: bool = False
    said: str = ''  # the last lines the command printed (a seed to replay)
    unused: tuple[str, ...] = ()  # fields left out of TLA+: 'trace:line field f: why'
    # An error of the command's own (it failed, or wrote no usable trace), not of the model's
    # files: what catches a code mutation. Never cached, as no error is.
    command_failed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            'verdict': self.verdict.to_json(),
            'tlc': None if self.tlc is None else self.tlc.to_json(),
            'counts': self.counts,
            'seconds': self.seconds,
            'said': self.said,
            'unused': list(self.unused),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TraceRun:
        # Each field made what it must be: an entry that is not (edited by hand, or by a disk
        # fault) fails here, where the cache reads it as corrupt, not later in the report.
        return cls(
            TraceVerdict.from_json(data['verdict']),
            None if data['tlc'] is None else Verdict.from_json(data['tlc']),
            {str(k): int(v) for k, v in data['counts'].items()},
            float(data['seconds']),
            True,
            str(data['said']),
            tuple(str(u) for u in data.get('unused', ())),  # absent in runs cached before
        )
