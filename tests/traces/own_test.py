"""A project's own trace spec, as it is (traces/own.py): a module in the style of etcd's and CCF's
that reads its own NDJSON through Json and IOUtils, deadlock off, judged by its acceptance
property; run unchanged through the override route on the real TLC 2.15, and refused with what
is missing without it. The project's libraries are a folder of the modules' TLA+ side, as they
ship (tests/fixtures/traces/own/)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc import jar
from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.java import find_java
from execlease_hook.traces import suite as trace_suite
from tests.conftest import GitRepo

pytestmark = pytest.mark.usefixtures('offline_tlc')

OWN = Path(__file__).parents[1] / 'fixtures' / 'traces' / 'own'
JOB = {
    'name': 'queue',
    'spec': 'Tracequeue.tla',
    'config': 'Tracequeue.execlease.cfg',
    'files': ['traces/*.ndjson'],
}


def project(repo: GitRepo, job: dict[str, Any] = JOB, spec: str | None = None) -> Manifest:
    """A Go service's repository: its TLA+ in tla/, its libraries in tla/lib, the traces its
    tests logged in tla/traces."""
    folder = repo.path / 'tla'
    shutil.copytree(OWN / 'lib', folder / 'lib')
    for name in ('queue.tla', 'Tracequeue.tla', 'Tracequeue.cfg', 'Tracequeue.execlease.cfg'):
        shutil.copyfile(OWN / name, folder / name)
    if spec is not None:
        (folder / 'Tracequeue.tla').write_text(spec)
    (folder / 'traces').mkdir()
    for name in ('good.ndjson', 'short.ndjson'):
        shutil.copyfile(OWN / name, folder / 'traces' / name)
    repo.write(
        'queue/queue.go',
        'package queue\n\nfunc Enqueue(q []int, id int) []int { return append(q, id) }\n',
    )
    data = {
        'version': 1,
        'spec': 'queue.tla',
        'traces': [job],
        'libraries': [{'folder': 'tla/lib'}],
    }
    (folder / 'manifest.json').write_text(json.dumps(data, indent=2))
    repo.add('.')
    repo.commit('the service and its trace spec')
    return manifest_read.load(folder / 'manifest.json', repo.path)


def run(m: Manifest) -> trace_suite.TraceRun:
    t = jar.Tools(
        jar.resolve_jar(m.root, from_environ()), find_java(from_environ()), from_environ()
    )
    return trace_suite.run_trace_job(
        m, m.traces[0], m.root, t, ResultCache(m.root / 'c', enabled=False)
    )


def test_the_spec_as_it_is_accepts_the_traces_through_the_override_route(git_repo: GitRepo):
    m = project(git_repo)
    done = run(m)
    assert done.verdict.to_json() == {
        'outcome': 'accepted',
        'traces': 2,
        'lines': 4,
        'rejection': None,
        'reason': None,
    }
    assert done.tlc is not None and done.tlc.outcome == 'passed'
    assert (git_repo.path / 'tla' / 'Tracequeue.tla').read_bytes() == (
        OWN / 'Tracequeue.tla'
    ).read_bytes()


def test_a_tampered_trace_is_rejected_at_its_line(git_repo: GitRepo):
    m = project(git_repo)
    log = git_repo.path / 'tla' / 'traces' / 'good.ndjson'
    lines = log.read_text().splitlines()
    lines[2] = lines[2].replace('"items": [2]', '"items": [1]')  # dequeued the wrong end
    log.write_text('\n'.join(lines) + '\n')
    done = run(m)
    assert done.verdict.outcome == 'rejected', done.verdict
    r = done.verdict.rejection
    assert r is not None and (r.trace, r.line) == ('traces/good.ndjson', 3)
    assert r.kind == 'property TraceAccepted is violated at it'  # the spec's own property judged
    assert r.event is not None and r.event['items'] == [1]
    assert ('l', '3') in r.state


def test_without_the_override_tlc_2_15_is_an_exit_2_that_names_what_is_missing(git_repo: GitRepo):
    m = project(git_repo, {**JOB, 'config': 'Tracequeue.cfg'})
    done = run(m)
    assert done.verdict.outcome == 'error' and done.tlc is None
    reason = done.verdict.reason or ''
    assert reason.startswith('trace job queue: the trace spec needs what this TLC lacks: ')
    assert (
        'Tracequeue.tla:8: ndJsonDeserialize (module Json) reads the log file, which TLC 2.15 lacks '
        '(TLC 2.19 with the CommunityModules jar has it)'
    ) in reason
    assert (
        'Tracequeue.tla:7: IOEnv (module IOUtils) reads the environment, which TLC 2.15 lacks'
        in reason
    )
    assert (
        'or take the override route: add one line to Tracequeue.cfg, `CONSTANT TraceLog <- '
        'ExecleaseTraceLog`'
    ) in reason


def test_what_the_override_cannot_replace_is_named_too(git_repo: GitRepo):
    """etcd's acceptance property asks TLCGet("queue"), and its ASSUME TLCGet("config"): TLC 2.15
    has neither, override or not."""
    spec = (
        (OWN / 'Tracequeue.tla')
        .read_text()
        .replace(
            'TraceAccepted == <>(l > Len(TraceLog))',
            'TraceAccepted == [](l <= Len(TraceLog) => [](TLCGet("queue") = 1 \\/ l > Len(TraceLog)))\n'
            'ASSUME TLCGet("config").mode = "bfs"',
        )
    )
    done = run(project(git_repo, spec=spec))
    reason = done.verdict.reason or ''
    assert done.verdict.outcome == 'error'
    assert 'Tracequeue.tla:26: TLCGet("config"), which TLC 2.15 lacks (TLC 2.19 has it)' in reason
    assert 'Tracequeue.tla:25: TLCGet("queue"), which TLC 2.15 lacks (TLC 2.19 has it)' in reason
    assert 'ndJsonDeserialize' not in reason and 'override route' not in reason


def test_the_override_line_is_read_from_the_cfg_not_its_comments():
    from execlease_hook.traces import own

    assert (
        own.overridden(b'CONSTANT Capacity = 2\nCONSTANT TraceLog <- ExecleaseTraceLog\n')
        == 'TraceLog'
    )
    assert own.overridden(b'CONSTANT Capacity = 2\n\\* OriginLog <- ExecleaseTraceLog\n') is None
    assert (
        own.overridden(b'(* Log <- ExecleaseTraceLog *)\nCONSTANT Log<-ExecleaseTraceLog\n')
        == 'Log'
    )
