"""What the tests of `libraries` share: a jar of TLA+ modules built with the JDK's `jar` tool, a
folder library, a model that EXTENDS both, a local HTTP server for the download path, and a bare
`java -cp tla2tools.jar:LIB.jar tlc2.TLC` run to compare verdicts with."""

from __future__ import annotations

import hashlib
import http.server
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import needs, shared

LIMITS_TLA = """\
---- MODULE Limits ----
\\* A library module of the tests' own, shipped in a jar.
EXTENDS Naturals
InRange(v, n) == v \\in 0..n
====
"""
STEPS_TLA = """\
---- MODULE Steps ----
\\* A library module of the tests' own, in a folder of the repository.
EXTENDS Naturals
Bump(v) == v + 1
Toggle(v) == 1 - v
====
"""
SPEC_TLA = """\
---- MODULE LCounter ----
EXTENDS Naturals, Steps, Limits

CONSTANT N
VARIABLES x, y
vars == <<x, y>>

Init == x = 0 /\\ y = 0
Inc == x < N /\\ x' = Bump(x) /\\ UNCHANGED y
Flip == y' = Toggle(y) /\\ UNCHANGED x
Next == Inc \\/ Flip

TypeOK == InRange(x, N) /\\ y \\in {0, 1}
XBelowTwo == x < 2
====
"""
PASS_CFG = 'CONSTANT N = 3\nINIT Init\nNEXT Next\nINVARIANT TypeOK\n'
FINDING_CFG = 'CONSTANT N = 3\nINIT Init\nNEXT Next\nINVARIANT XBelowTwo\n'
# Trace validation of LCounter against tests/fixtures/traces/counter_app.py's traces.
TRACE_TLA = """\
---- MODULE TraceLCounter ----
EXTENDS LCounter, Sequences, TraceData

VARIABLES t, l
traceVars == <<x, y, t, l>>

Tr == Traces[t]
Line == TraceLines[Tr[l]]

TraceInit == t \\in DOMAIN Traces /\\ l = 1 /\\ Init

MatchLine ==
    /\\ l <= Len(Tr)
    /\\ CASE Line.action = "Inc"  -> Inc
         [] Line.action = "Flip" -> Flip
    /\\ x' = Line.x
    /\\ y' = Line.y
    /\\ l' = l + 1
    /\\ t' = t

Accepted == l > Len(Tr) /\\ UNCHANGED traceVars

TraceNext == MatchLine \\/ Accepted
====
"""
TRACE_CFG = 'CONSTANT N = 3\nINIT TraceInit\nNEXT TraceNext\nINVARIANT TypeOK\n'
APP = Path(__file__).parent / 'fixtures' / 'traces' / 'counter_app.py'

MODEL = 'verification/lcounter'
LIB = 'verification/lib'
MAIN = {'name': 'main', 'config': 'pass.cfg', 'deep': {'constants': {'N': '4'}}}
MUTATION = {
    'name': 'unbounded',
    'config': 'pass.cfg',
    'replace': {'from': 'Inc == x < N /\\', 'to': 'Inc == x <= N /\\'},
    'violates': 'TypeOK',
}
FINDING = {
    'id': 'F1',
    'config': 'findings/F1.cfg',
    'violates': 'XBelowTwo',
    'summary': 'x reaches 2',
}
TRACES = {
    'name': 'app',
    'spec': 'TraceLCounter.tla',
    'config': 'TraceLCounter.cfg',
    'command': ['python', 'app/counter_app.py'],
}
CODE_MUTATION = {
    'name': 'unbounded-code',
    'path': 'app/counter_app.py',
    'replace': {'from': '    if x < top:', 'to': '    if True:'},
    'traces': ['app'],
}


def jar_tool() -> str:
    java = Path(needs.java()).resolve()
    beside = java.parent / 'jar'
    found = str(beside) if beside.is_file() else shutil.which('jar')
    if found is None:
        needs.missing('no JDK `jar` tool beside java or on PATH')
        raise AssertionError('unreachable')
    return found


def build_jar(folder: Path, modules: dict[str, str], name: str = 'Limits.jar') -> Path:
    """A jar holding these modules at its root, as CommunityModules ships its own."""
    src = folder / f'{name}-src'
    src.mkdir(parents=True, exist_ok=True)
    for module, text in modules.items():
        (src / module).parent.mkdir(parents=True, exist_ok=True)
        (src / module).write_text(text)
    target = folder / name
    subprocess.run((jar_tool(), 'cf', str(target), *sorted(modules)), cwd=src, check=True)
    return target


def limits_jar(factory: pytest.TempPathFactory) -> Path:
    """The Limits jar the tests of libraries read (and never write), built once for the test run,
    every module's and every xdist worker's (tests/shared.py): `jar` is a JVM of its own."""

    def build(folder: Path) -> None:
        build_jar(folder, {'Limits.tla': LIMITS_TLA})

    return shared.folder(factory, 'limits-jar', build) / 'Limits.jar'


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_repo(
    root: Path,
    libraries: list[dict[str, Any]],
    checks=(MAIN,),
    mutations=(MUTATION,),
    findings=(FINDING,),
    traces=(TRACES,),
    code_mutations=(CODE_MUTATION,),
) -> Path:
    """The LCounter model in `root`, with the folder library at verification/lib."""
    folder = root / MODEL
    (folder / 'findings').mkdir(parents=True, exist_ok=True)
    (root / LIB).mkdir(parents=True, exist_ok=True)
    (root / LIB / 'Steps.tla').write_text(STEPS_TLA)
    (folder / 'LCounter.tla').write_text(SPEC_TLA)
    (folder / 'pass.cfg').write_text(PASS_CFG)
    (folder / 'findings' / 'F1.cfg').write_text(FINDING_CFG)
    (folder / 'TraceLCounter.tla').write_text(TRACE_TLA)
    (folder / 'TraceLCounter.cfg').write_text(TRACE_CFG)
    (root / 'app').mkdir(exist_ok=True)
    shutil.copyfile(APP, root / 'app' / 'counter_app.py')
    data = {
        'version': 1,
        'spec': 'LCounter.tla',
        'libraries': libraries,
        'checks': list(checks),
        'mutations': list(mutations),
        'findings': list(findings),
        'traces': list(traces),
        'codeMutations': list(code_mutations),
    }
    path = folder / 'manifest.json'
    path.write_text(json.dumps(data, indent=2) + '\n')
    return path


_DISTINCT = re.compile(r'([\d,]+) distinct states found')


def bare_tlc(
    folder: Path, spec: str, cfg: str, jars: list[Path], library: Path | None, deadlock: bool = True
) -> tuple[int, int | None]:
    """(exit code, distinct states) of TLC run by hand: java -cp tla2tools.jar:LIB.jar tlc2.TLC."""
    cp = ':'.join(str(p) for p in (needs.tla_jar(), *jars))
    argv = [needs.java(), '-XX:+UseParallelGC']
    if library is not None:
        argv.append(f'-DTLA-Library={library}')
    argv += ['-cp', cp, 'tlc2.TLC', '-workers', '1', '-metadir', str(folder / 'bare-meta')]
    if not deadlock:
        argv.append('-deadlock')
    argv += ['-config', cfg, spec]
    proc = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=300)
    found = _DISTINCT.findall(proc.stdout)
    return proc.returncode, int(found[-1].replace(',', '')) if found else None


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    files: dict[str, bytes]
    requests: list[str]


class Handler(http.server.BaseHTTPRequestHandler):
    server: Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        name = self.path.lstrip('/')
        if name.startswith('truncated/') and name[len('truncated/') :] in self.server.files:
            body = self.server.files[name[len('truncated/') :]]
            self.send_response(200)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.connection.shutdown(2)
            return
        if name not in self.server.files:
            self.send_error(404)
            return
        body = self.server.files[name]
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(files: dict[str, bytes]) -> Iterator[Server]:
    srv = Server(('127.0.0.1', 0), Handler)
    srv.files = files
    srv.requests = []
    # shutdown() returns once serve_forever sees it, at its next poll: half a second by default,
    # the teardown of every test that serves
    thread = threading.Thread(target=srv.serve_forever, kwargs={'poll_interval': 0.01}, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()  # the listening socket too: left open, it warns


def url(srv: Server, path: str) -> str:
    return f'http://127.0.0.1:{srv.server_address[1]}/{path}'
