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

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import FieldRule
from execlease_hook.spec import cfg
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.output import Verdict
from execlease_hook.traces.module import Trace, read_model, read_modules, trace_log
from execlease_hook.traces.validation import TraceVerdict, rejection

DATA = 'ExecleaseTraceData'  # the generated module: ExecleaseTraceLog, one trace
LOG = 'ExecleaseTraceLog'
ROOT = 'ExecleaseTraceRoot'  # the generated root: EXTENDS the project's trace module and DATA
_OVERRIDE = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*<-\s*' + LOG + r'\b')
_COMMUNITY = 'TLC 2.19 with the CommunityModules jar'
NEEDS = (  # what a trace spec may use that TLC 2.15 lacks: pattern, what it is, what has it
    (r'\b(nd)?JsonDeserialize\b', 'ndJsonDeserialize (module Json) reads the log file', _COMMUNITY),
    (r'\bIOEnv\b', 'IOEnv (module IOUtils) reads the environment', _COMMUNITY),
    (r'TLCGet\(\s*"config"\s*\)', 'TLCGet("config")', 'TLC 2.19'),
    (r'TLCGet\(\s*"queue"\s*\)', 'TLCGet("queue")', 'TLC 2.19'),
)
READS_LOG = 2  # the first NEEDS read the log: the override route replaces them


def overridden(config_text: bytes) -> str | None:
    """The spec's log operator the cfg replaces with ExecleaseTraceLog, or None."""
    found = _OVERRIDE.search(cfg.without_comments(config_text).decode('utf-8', 'replace'))
    return None if found is None else found.group(1)


def missing(spec: str, spec_text: bytes, tlc_version: str, log: str | None) -> list[str]:
    """What the spec uses that this TLC lacks, each as `file:line: what (what has it)`; with the
    override route (`log` set) the log readers are not evaluated and are no problem."""
    if not tlc_version.startswith('TLC 2.15'):  # e.g. 'TLC 2.15 (rev d5b5a7f)'
        return []
    version = tlc_version.split(' (')[0]
    text = cfg.without_comments(spec_text).decode('utf-8', 'replace')
    found = []
    for pattern, what, has in NEEDS[0 if log is None else READS_LOG :]:
        hit = re.search(pattern, text)
        if hit is not None:
            line = text.count('\n', 0, hit.start()) + 1
            found.append(f'{spec}:{line}: {what}, which {version} lacks ({has} has it)')
    return found


def judge(verdict: Verdict, line_var: str, trace: Trace, traces: int, lines: int) -> TraceVerdict:
    """One trace's TLC verdict (`traces` and `lines`: the job's counts): passing accepts it; a
    violation rejects the line the line variable names in the last state TLC shows (the next line
    no step matched)."""
    if verdict.outcome == 'passed':
        return TraceVerdict('accepted', traces, lines)
    if verdict.outcome == 'error':
        return TraceVerdict('error', traces, lines, reason=f'{trace.name}: {verdict.reason}')
    states = [s for s in verdict.trace if s.variables]
    values = dict(states[-1].variables) if states else {}
    try:
        line = min(int(values[line_var]), len(trace.lines) + 1)
    except (KeyError, ValueError):
        reason = (
            f'{trace.name}: the trace spec has no variable {line_var} holding the next line (say '
            f'which under the job\'s "line"); TLC reported {verdict.describe()}'
        )
        return TraceVerdict('error', traces, lines, reason=reason)
    rejected = rejection(verdict, trace, line, states[-1].variables, 'at')
    return TraceVerdict('rejected', traces, lines, rejection=rejected)


def tlc_jobs(
    base: TlcJob,
    folder: Path,
    traces: Sequence[Trace],
    rule: FieldRule | None,
    tlc_version: str,
    *,
    root: Path,
) -> tuple[list[TlcJob], tuple[str, ...]]:
    """One TLC job per trace, and the fields left out of the traces; CannotRun (exit 2) when the
    spec needs what this TLC lacks or the cfg cannot run on it. `root`: the repository `folder`
    is in, that the modules it holds must not lead out of. `base`: validation.base_job."""
    name, spec, config = base.name, base.spec, base.config
    spec_path = folder / spec
    spec_text, config_text = read_model(folder, spec, config, name)
    log = overridden(config_text)
    found = missing(spec, spec_text, tlc_version, log)
    if found:
        route = (
            ''
            if log is not None
            else f'; or take the override route: add one line to {config}, `CONSTANT TraceLog <- {LOG}` '
            "(your log operator's name for TraceLog), and execlease gives the spec each trace "
            'compiled into TLA+'
        )
        raise CannotRun(
            f'trace job {name}: the trace spec needs what this TLC lacks: '
            + '; '.join(found)
            + f'; run a TLC that has it{route}'
        )
    if log is None:
        raise CannotRun(
            f'trace job {name}: {spec} reads its own log, and execlease does not pass it a file '
            f'through the environment; take the override route: add `CONSTANT TraceLog <- {LOG}` '
            f"to {config} (your log operator's name for TraceLog)"
        )
    prepared = cfg.prepare(config_text, config, None, tlc_version, f'trace job {name}')
    if prepared.problem is not None:
        raise CannotRun(prepared.problem)
    modules = read_modules(root, spec_path.parent, name, (f'{ROOT}.tla', f'{DATA}.tla'))
    root_text = f'---- MODULE {ROOT} ----\nEXTENDS {spec_path.stem}, {DATA}\n====\n'.encode()
    jobs: list[TlcJob] = []
    unused: list[str] = []
    for trace in traces:
        text, left_out = trace_log(trace, rule)
        unused += left_out
        data = (
            f'---- MODULE {DATA} ----\n\\* Generated by execlease from one NDJSON trace; do not '
            f'edit.\n{LOG} == {text}\n====\n'
        )
        jobs.append(
            dataclasses.replace(
                base,
                spec=f'{ROOT}.tla',
                spec_text=root_text,
                config_text=prepared.text,
                modules=modules + ((f'{DATA}.tla', data.encode()),),
                deadlock=prepared.deadlock,
            )
        )
    return jobs, tuple(unused)
