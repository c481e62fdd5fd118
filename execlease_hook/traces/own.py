"""A project's own trace spec, as it is: a trace module that does not EXTEND TraceData.

Such a spec (etcd's and CCF's are of this kind) validates one trace per TLC run: its log operator
(`TraceLog == ndJsonDeserialize(IOEnv.JSON)`) reads the NDJSON, a line variable (`l`) walks it,
deadlock checking is off (a trace may end anywhere) and an acceptance property or an invariant
judges it. execlease runs it with the project's cfg and libraries, one TLC run per trace file,
deadlock as the cfg says, and the cfg's properties judge: TLC passing is an accepted trace, any
violation a rejection at the line the line variable names in TLC's last state.

The log reaches the spec by the override route: the job's cfg replaces the spec's log operator
with `ExecleaseTraceLog` (one line, `TraceLog <- ExecleaseTraceLog`), the trace compiled into a
module (traces/module.py) that a generated root module EXTENDS beside the project's, so the spec
runs unchanged on any TLC, the offline 2.15 included. Without that line the spec must read the
log itself, through what the TLC in use may lack (`missing`): Json's ndJsonDeserialize and
IOUtils' IOEnv read files and the environment at run time, TLCGet("config") and
TLCGet("queue") are newer than TLC 2.15; each is a clear exit 2 that says what has it and
names the override route. Only the override route runs: passing the log's path through the
environment needs a TLC process of its own per trace (a warm JVM's environment is fixed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.manifest.model import FieldRule
from execlease_hook.spec import cfg
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.libraries import Libraries
from execlease_hook.tlc.output import Verdict
from execlease_hook.traces.module import MODULE, Trace, read_model, trace_log

DATA = 'ExecleaseTraceData'  # the generated module: ExecleaseTraceLog, one trace
LOG = 'ExecleaseTraceLog'
ROOT = 'ExecleaseTraceRoot'  # the generated root: EXTENDS the project's trace module and DATA
_COMMENTS = re.compile(r'\(\*.*?\*\)|\\\*[^\n]*', re.DOTALL)
_OVERRIDE = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*<-\s*' + LOG + r'\b')
NEEDS = (  # what a trace spec may use that TLC 2.15 lacks: pattern, what it is, what has it
    (
        r'\bndJsonDeserialize\b|\bJsonDeserialize\b',
        'ndJsonDeserialize (module Json) reads the log file',
        'TLC 2.19 with the CommunityModules jar',
    ),
    (
        r'\bIOEnv\b',
        'IOEnv (module IOUtils) reads the environment',
        'TLC 2.19 with the CommunityModules jar',
    ),
    (r'TLCGet\(\s*"config"\s*\)', 'TLCGet("config")', 'TLC 2.19'),
    (r'TLCGet\(\s*"queue"\s*\)', 'TLCGet("queue")', 'TLC 2.19'),
)
READS_LOG = 2  # the first NEEDS read the log: the override route replaces them


def is_own(imports: Sequence[tuple[str, int, str]]) -> bool:
    """A trace spec of the project's own (spec/syntax.imports of it): it does not EXTEND TraceData."""
    return all(name != MODULE for name, _, _ in imports)


def overridden(config_text: bytes) -> str | None:
    """The spec's log operator the cfg replaces with ExecleaseTraceLog, or None."""
    found = _OVERRIDE.search(_COMMENTS.sub(' ', config_text.decode('utf-8', 'replace')))
    return None if found is None else found.group(1)


def missing(spec: str, spec_text: bytes, tlc_version: str, log: str | None) -> list[str]:
    """What the spec uses that this TLC lacks, each as `file:line: what (what has it)`; with the
    override route (`log` set) the log readers are not evaluated and are no problem."""
    if not tlc_version.startswith('TLC 2.15'):  # e.g. 'TLC 2.15 (rev d5b5a7f)'
        return []
    version = tlc_version.split(' (')[0]
    text = _COMMENTS.sub(
        lambda m: re.sub(r'[^\n]', ' ', m.group(0)), spec_text.decode('utf-8', 'replace')
    )
    found = []
    for i, (pattern, what, has) in enumerate(NEEDS):
        if log is not None and i < READS_LOG:
            continue
        hit = re.search(pattern, text)
        if hit is not None:
            line = text.count('\n', 0, hit.start()) + 1
            found.append(f'{spec}:{line}: {what}, which {version} lacks ({has} has it)')
    return found


def refusal(name: str, config: str, found: Sequence[str], log: str | None) -> CannotRun:
    route = (
        ''
        if log is not None
        else f'; or take the override route: add one line to {config}, `CONSTANT TraceLog <- {LOG}` '
        "(your log operator's name for TraceLog), and execlease gives the spec each trace "
        'compiled into TLA+'
    )
    return CannotRun(
        f'trace job {name}: the trace spec needs what this TLC lacks: '
        + '; '.join(found)
        + f'; run a TLC that has it{route}'
    )


def data_module(lines_text: str) -> str:
    return (
        f'---- MODULE {DATA} ----\n\\* Generated by execlease from one NDJSON trace; do not edit.\n'
        f'{LOG} == {lines_text}\n====\n'
    )


def root_module(spec: str) -> str:
    return f'---- MODULE {ROOT} ----\nEXTENDS {spec}, {DATA}\n====\n'


@dataclass(frozen=True)
class Judged:
    outcome: str  # 'accepted' | 'rejected' | 'error'
    line: int = 0  # rejected: the first line not matched
    kind: str = ''  # rejected: why
    state: tuple[tuple[str, str], ...] = ()
    reason: str | None = None


def judge(verdict: Verdict, line_var: str, length: int) -> Judged:
    """One trace's TLC verdict: passing accepts it; a violation rejects the line the line
    variable names in the last state TLC shows (the next line no step matched)."""
    if verdict.outcome == 'passed':
        return Judged('accepted')
    if verdict.outcome == 'error':
        return Judged('error', reason=verdict.reason)
    states = [s for s in verdict.trace if s.variables]
    values = dict(states[-1].variables) if states else {}
    try:
        line = int(values[line_var])
    except (KeyError, ValueError):
        return Judged(
            'error',
            reason=f'the trace spec has no variable {line_var} holding the next '
            f'line (say which under the job\'s "line"); TLC reported '
            f'{verdict.describe()}',
        )
    kind = (
        'no step of the model matches it'
        if verdict.kind == 'deadlock'
        else f'{verdict.kind} {verdict.property or "(unnamed)"} is violated at it'
    )
    return Judged('rejected', min(line, length + 1), kind, states[-1].variables)


def tlc_jobs(
    name: str,
    folder: Path,
    spec: str,
    config: str,
    traces: Sequence[Trace],
    rule: FieldRule | None,
    java: Path,
    jar: Path,
    tlc_version: str,
    timeout: float,
    workers: int,
    libraries: Libraries,
    settings: Settings,
) -> tuple[list[TlcJob], tuple[str, ...]]:
    """One TLC job per trace, and the fields left out of the traces; CannotRun (exit 2) when the
    spec needs what this TLC lacks or the cfg cannot run on it."""
    spec_path = folder / spec
    spec_text, config_text = read_model(folder, spec, config, name)
    log = overridden(config_text)
    found = missing(spec, spec_text, tlc_version, log)
    if found:
        raise refusal(name, config, found, log)
    if log is None:
        raise CannotRun(
            f'trace job {name}: {spec} reads its own log, and execlease does not pass it a file '
            f'through the environment; take the override route: add `CONSTANT TraceLog <- {LOG}` '
            f"to {config} (your log operator's name for TraceLog)"
        )
    prepared = cfg.prepare(config_text, config, None, tlc_version, f'trace job {name}')
    if prepared.problem is not None:
        raise CannotRun(prepared.problem)
    modules = tuple(
        (p.name, p.read_bytes())
        for p in sorted(spec_path.parent.glob('*.tla'))
        if p.name not in (f'{ROOT}.tla', f'{DATA}.tla')
    )
    jobs: list[TlcJob] = []
    unused: list[str] = []
    for trace in traces:
        text, left_out = trace_log(trace, rule)
        unused += left_out
        jobs.append(
            TlcJob(
                kind='traces',
                name=name,
                spec=f'{ROOT}.tla',
                spec_text=root_module(spec_path.stem).encode(),
                config=config,
                config_text=prepared.text,
                modules=modules + ((f'{DATA}.tla', data_module(text).encode()),),
                java=java,
                jar=jar,
                deadlock=prepared.deadlock,
                timeout=timeout,
                workers=workers,
                libraries=libraries,
                settings=settings,
            )
        )
    return jobs, tuple(unused)
