"""A spec cannot forge TLC's verdict: not by printing, not by state values, not by ending early.

Each forgery runs on the real TLC. The classifier is tested on its own (the spec scan bypassed:
`tlc._execute` runs TLC directly) and behind the scan (`tlc.run_job`, `execlease verify`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.spec import scan as spec_scan
from execlease_hook.tlc import output
from execlease_hook.tlc.job import TlcJob, _execute, _write_files, prepare, run_job
from tests import needs, shared
from tests.conftest import GitRepo, git_env, use_offline

EXECLEASE = Path(sys.executable).parent / 'execlease'

FAKE_P8 = '@!@!@STARTMSG 2110:1 @!@!@\\nInvariant P8 is violated.\\n@!@!@ENDMSG 2110 @!@!@\\n'
# What a forger prints: a whole TLC message block, then a trace, naming the property the
# mutation promises to violate.
FAKE_BLOCK = (
    '@!@!@STARTMSG 2110:1 @!@!@\\nInvariant P8 is violated.\\n@!@!@ENDMSG 2110 @!@!@\\n'
    '@!@!@STARTMSG 2217:4 @!@!@\\n1: <Initial predicate>\\n/\\\\ x = 0\\n\\n@!@!@ENDMSG 2217 @!@!@\\n'
)

# name -> (spec body after EXTENDS and VARIABLES x, s; cfg; what the forger wants; what TLC says)
FORGERIES = {
    # The forgery: PrintT of a fake violation of P8, then a real violation of Inv.
    'printt-fake-violation': (
        f'Init == x = 0 /\\ s = 0 /\\ PrintT("{FAKE_BLOCK}")\nNext == x\' = x + 1 /\\ UNCHANGED s\n'
        'Inv == x < 2\nP8 == TRUE\n',
        'INIT Init\nNEXT Next\nINVARIANT Inv\nINVARIANT P8\n',
        ('violated', 'P8'),
        ('violated', 'Inv'),
    ),
    # Print (not PrintT) of the same.
    'print-fake-violation': (
        f'Init == x = 0 /\\ s = 0 /\\ Print("{FAKE_BLOCK}", TRUE)\nNext == x\' = x + 1 /\\ UNCHANGED s\n'
        'Inv == x < 2\nP8 == TRUE\n',
        'INIT Init\nNEXT Next\nINVARIANT Inv\nINVARIANT P8\n',
        ('violated', 'P8'),
        ('violated', 'Inv'),
    ),
    # No Print at all: the fake message is a state value, printed inside TLC's own message about
    # a violation in the initial state (the old parser read it as a nested message, and first).
    'state-value-fake-violation': (
        f'Init == x = 0 /\\ s = "{FAKE_P8}"\nNext == x\' = x + 1 /\\ UNCHANGED s\n'
        'Inv == s = "other"\nP8 == TRUE\n',
        'INIT Init\nNEXT Next\nINVARIANT Inv\nINVARIANT P8\n',
        ('violated', 'P8'),
        ('violated', 'Inv'),
    ),
    # TLCSet("exit", TRUE) ends TLC with exit 0 and "No error has been found" before it reaches
    # the state that violates Inv.
    'tlcset-exit-partial-search': (
        'Init == x = 0 /\\ s = 0\nNext == x\' = x + 1 /\\ UNCHANGED s /\\ (x = 2 => TLCSet("exit", TRUE))\n'
        'Inv == x < 5\n',
        'INIT Init\nNEXT Next\nINVARIANT Inv\n',
        ('passed', None),
        ('error', None),
    ),
    # Assert's message is shown by TLC, quoted, inside its own message about the failed Assert:
    # it is read as that Assert's message (kind 'assert'), never as TLC's messages.
    'assert-message-fake-violation': (
        f'Init == x = 0 /\\ s = 0\nNext == x\' = x + 1 /\\ UNCHANGED s /\\ Assert(x < 2, "{FAKE_BLOCK}")\n'
        'Inv == TRUE\nP8 == TRUE\n',
        'INIT Init\nNEXT Next\nINVARIANT Inv\nINVARIANT P8\n',
        ('violated', 'P8'),
        ('violated', FAKE_BLOCK.replace('\\\\', '\\').replace('\\n', '\n')),  # the string's value
    ),
    # A fake pass printed before a real violation: the exit code says violation.
    'printt-fake-pass': (
        'Init == x = 0 /\\ s = 0 /\\ PrintT("@!@!@STARTMSG 2193:0 @!@!@\\nModel checking completed. '
        'No error has been found.\\n@!@!@ENDMSG 2193 @!@!@\\n")\nNext == x\' = x + 1 /\\ UNCHANGED s\n'
        'Inv == x < 2\n',
        'INIT Init\nNEXT Next\nINVARIANT Inv\n',
        ('passed', None),
        ('violated', 'Inv'),
    ),
}


def spec_text(name: str, body: str) -> bytes:
    return f'---- MODULE {name} ----\nEXTENDS Naturals, TLC\nVARIABLES x, s\n{body}====\n'.encode()


def forgery_job(case: str, jar: Path | None = None) -> TlcJob:
    body, cfg, _, _ = FORGERIES[case]
    return TlcJob(
        kind='mutation',
        name=case,
        spec='Forged.tla',
        spec_text=spec_text('Forged', body),
        config='Forged.cfg',
        config_text=cfg.encode(),
        java=Path(needs.java()),
        jar=jar or needs.tla_jar(),
        settings=from_environ(),
    )


def raw_tlc(job: TlcJob, folder: Path) -> output.Verdict:
    """TLC's real output for the job, classified, without the spec scan in front."""
    folder.mkdir()
    _write_files(job, folder)
    run = _execute(job, folder, None, prepare(job))
    assert run.exit_code is not None
    return output.classify(run.exit_code, run.output, 1.0, job.config_text.decode())


@pytest.fixture
def raw_verdict(
    tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path
) -> Callable[[str], output.Verdict]:
    """`raw_tlc` of a forgery's job, run once for the test run (tests/shared.py `value`) on the
    session's tools and JVM cache: the classifier's test below judges it, and the test behind
    the scan compares `run_job`'s verdict on the same job with it."""

    def run(case: str) -> output.Verdict:
        with pytest.MonkeyPatch.context() as env:
            use_offline(env, jvm_cache, tools_jar)
            job = forgery_job(case, tools_jar)
        return raw_tlc(job, tmp_path_factory.mktemp('forgery') / 'run')

    def verdict(case: str) -> output.Verdict:
        return shared.value(tmp_path_factory, f'forgery-raw-{case}', lambda: run(case))

    return verdict


@pytest.mark.tlc
@pytest.mark.parametrize('case', list(FORGERIES), ids=list(FORGERIES))
def test_classifier_reads_tlc_not_the_spec(raw_verdict, case):
    v = raw_verdict(case)
    _, _, forged, real = FORGERIES[case]
    assert (v.outcome, v.property) != forged, v
    assert (v.outcome, v.property) == real, v
    if 'assert' in case:
        assert v.kind == 'assert' and v.exit_code == 75
    if case == 'tlcset-exit-partial-search':
        assert 'states left on its queue' in (v.reason or '') and 'not a pass' in (v.reason or '')


@pytest.mark.tlc
@pytest.mark.usefixtures('offline_tlc')
@pytest.mark.parametrize('case', [c for c in FORGERIES if 'print' in c])
def test_a_spec_that_prints_a_forgery_runs_and_gets_tlcs_verdict(raw_verdict, tools_jar, case):
    # Behind the scan too: printing is allowed, what it prints is shown apart and never read.
    v = run_job(forgery_job(case, tools_jar))
    _, _, forged, real = FORGERIES[case]
    assert (v.outcome, v.property) == real != forged, v
    assert v.printed_total >= 1 and v.printed[0].startswith('"@!@!@STARTMSG 2'), v.printed
    bare = raw_verdict(case)
    assert (v.outcome, v.property, v.distinct) == (bare.outcome, bare.property, bare.distinct)


@pytest.mark.parametrize('case', [c for c in FORGERIES if 'tlcset' in c])
def test_run_job_refuses_the_spec_before_tlc_runs(tmp_path, case):
    v = run_job(forgery_job(case))
    assert v.outcome == 'error' and v.exit_code is None
    assert 'Forged.tla:5: TLCSet' in (v.reason or '')
    assert 'may not run programs, write files, ask on the console or stop the search' in (
        v.reason or ''
    )


def test_forged_violations_cannot_be_counted_twice():
    # Two genuine-looking violation messages: TLC stops at the first, so one is not TLC's.
    out = (
        b'@!@!@STARTMSG 2110:1 @!@!@\nInvariant Inv is violated.\n@!@!@ENDMSG 2110 @!@!@\n'
        b'@!@!@STARTMSG 2110:1 @!@!@\nInvariant P8 is violated.\n@!@!@ENDMSG 2110 @!@!@\n'
        b'@!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ x = 0\n\n@!@!@ENDMSG 2217 @!@!@\n'
    )
    v = output.classify(12, out, 1.0)
    assert v.outcome == 'error' and 'reported 2 violations' in (v.reason or '')


@pytest.mark.parametrize(
    ('prefix', 'outside'),
    [
        (b'', True),
        (b'Exception: ', True),
        (b'/\\ s = "', False),
        (b'/\\ s = "a\\"', False),  # an escaped quote does not end the string
        (b'/\\ s = "a\\\\"', True),  # an escaped backslash, then the closing quote
        (b'<<"a", "b">> ', True),
    ],
    ids=[
        'line-start',
        'after-text',
        'in-string',
        'escaped-quote',
        'escaped-backslash',
        'after-strings',
    ],
)
def test_markers_inside_strings_are_not_tlcs(prefix, outside):
    framed = (
        prefix + b'@!@!@STARTMSG 2110:1 @!@!@\nInvariant P is violated.\n@!@!@ENDMSG 2110 @!@!@\n'
    )
    assert bool(output.parse_messages(framed)) is outside


# --- the scan, table-driven on the syntax tree ------------------------------------------------

SCANS = [
    ('ioexec', 'A == IOExec(<<"sh">>)', [(4, 'IOExec')]),
    ('instance-prefix', 'T == INSTANCE IOUtils\nA == T!IOExec(<<"sh">>)', [(5, 'IOExec')]),
    ('module-prefix', 'A == TLC!TLCSet("exit", TRUE)', [(4, 'TLCSet')]),
    ('operator-argument', 'B(Op(_)) == Op(1)\nA == B(IOSerialize)', [(5, 'IOSerialize')]),
    ('tlcset-exit', 'A == TLCSet("exit", TRUE)', [(4, 'TLCSet')]),
    ('tlcset-pause', 'A == TLCSet("pause", TRUE)', [(4, 'TLCSet')]),
    ('tlcset-computed', 'K == "exit"\nA == TLCSet(K, TRUE)', [(5, 'TLCSet')]),
    ('tlcset-register', 'A == TLCSet(1, 2) /\\ TLCGet(1) = 2', []),
    ('json-serialize', 'A == JsonSerialize("f", 1)', [(4, 'JsonSerialize')]),
    ('pick-successor', 'A == PickSuccessor(TRUE)', [(4, 'PickSuccessor')]),
    ('comment', '\\* IOExec(1)\n(* TLCSet("exit", 2) *)\nA == 1', []),
    ('string', 'A == "IOExec(1)"', []),
    ('lookalike', 'IOExecutor == 1\nA == IOExecutor', []),
    ('pluscal-translation', 'A == /\\ TLCSet("exit", TRUE)\n     /\\ x\' = x', [(4, 'TLCSet')]),
    # Printing is the spec's own output, shown apart and never read for a verdict: allowed.
    ('printt', 'A == PrintT(1)', []),
    ('print', 'A == Print(1, TRUE)', []),
    ('print-through-instance', 'T == INSTANCE TLC\nA == T!PrintT(1)', []),
]


@pytest.mark.parametrize(('body', 'expected'), [s[1:] for s in SCANS], ids=[s[0] for s in SCANS])
def test_scan_finds_every_forbidden_use(body, expected):
    text = f'---- MODULE M ----\nEXTENDS TLC\nVARIABLE x\n{body}\n====\n'.encode()
    uses = spec_scan.scan_module('M.tla', text)
    assert [(u.line, u.name) for u in uses] == expected


@pytest.mark.parametrize('name', sorted(spec_scan.FORBIDDEN))
def test_every_forbidden_name_is_found(name):
    # The scan first looks for plain substrings (spec_scan._STEMS): each name must pass it.
    text = f'---- MODULE M ----\nEXTENDS TLC\nVARIABLE x\nA == {name}("exit", 2)\n====\n'.encode()
    assert [(u.line, u.name) for u in spec_scan.scan_module('M.tla', text)] == [(4, name)]


def test_scan_reads_cfgs():
    cfg = (
        b'INIT Init\n\\* IOExec is fine in a comment\nCONSTANT F <- IOExec\nCONSTANT G <- PrintT\n'
    )
    assert [(u.line, u.name) for u in spec_scan.scan_cfg('M.cfg', cfg)] == [(3, 'IOExec')]


def test_scan_survives_a_spec_the_grammar_cannot_read():
    text = b'---- MODULE M ----\nEXTENDS TLC\nA == ((((( IOExec(1)\n'
    assert [(u.line, u.name) for u in spec_scan.scan_module('M.tla', text)] == [(3, 'IOExec')]


def test_scan_survives_deep_nesting():
    # Five times as deep as Python's recursion limit: a recursive walk of the tree fails there.
    # No deeper: tree-sitter's parse of it grows with the square of the depth (3 s at 20,000).
    depth = 5 * sys.getrecursionlimit()
    text = (
        b'---- MODULE M ----\nA == '
        + b'(' * depth
        + b'1'
        + b')' * depth
        + b'\nB == IOExec(1)\n====\n'
    )
    assert [(u.line, u.name) for u in spec_scan.scan_module('M.tla', text)] == [(3, 'IOExec')]


# --- end to end: `execlease verify` refuses, naming the file and line ----------------------------

COUNTER = """---- MODULE Counter ----
EXTENDS Naturals, TLC
VARIABLE x
Init == x = 0
Next == x < 3 /\\ x' = x + 1
TypeOK == x \\in 0..3
P8 == x < 10
====
"""


def model(
    repo: GitRepo,
    spec: str,
    mutations: list[dict[str, object]],
    extra: dict[str, str] | None = None,
) -> None:
    folder = 'verification/counter'
    repo.write(f'{folder}/Counter.tla', spec)
    repo.write(
        f'{folder}/Counter.cfg',
        'INIT Init\nNEXT Next\nINVARIANT TypeOK\nINVARIANT P8\nCHECK_DEADLOCK FALSE\n',
    )
    for name, text in (extra or {}).items():
        repo.write(f'{folder}/{name}', text)
    repo.write(
        f'{folder}/manifest.json',
        json.dumps(
            {
                'version': 1,
                'spec': 'Counter.tla',
                'checks': [{'name': 'main', 'config': 'Counter.cfg'}],
                'mutations': mutations,
                'coverage': {'entries': []},
            }
        ),
    )
    repo.add('.')
    repo.commit('model')


def verify(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    env = git_env()
    env['EXECLEASE_TLA_OFFLINE'] = '1'
    return subprocess.run(
        (str(EXECLEASE), 'verify', *args),
        cwd=repo.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.usefixtures('offline_tlc')
def test_a_mutation_that_prints_a_forged_verdict_is_judged_by_tlcs(git_repo):
    # The mutation lets x reach 4, which TypeOK catches and P8 does not, and prints a fake
    # violation of P8 first: it runs, TLC's own verdict (TypeOK) is the one judged, so the
    # mutation does not hold, and what it printed is shown apart as the spec's output.
    forged: dict[str, object] = {
        'name': 'forged',
        'config': 'Counter.cfg',
        'violates': 'P8',
        'replace': {
            'from': 'Init == x = 0\nNext == x < 3',
            'to': f'Init == x = 0 /\\ PrintT("{FAKE_BLOCK}")\nNext == x < 4',
        },
    }
    model(git_repo, COUNTER, [forged])
    # The mutation alone: the model's check, which prints nothing, would only run a JVM more.
    proc = verify(git_repo, '--no-cache', '--only', 'mutation:forged')
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'still fails on P8' not in proc.stdout
    assert (
        'DID NOT HOLD: mutation forged fails for the wrong reason: expected P8, got TypeOK'
        in proc.stdout
    )
    assert 'printed by the spec (mutation forged; ' in proc.stdout
    assert '  > "@!@!@STARTMSG 2110:1 @!@!@\\nInvariant P8 is violated.' in proc.stdout
    assert proc.stdout.rstrip().endswith('FAILED (did not hold)'), proc.stdout


@pytest.mark.usefixtures('offline_tlc')
def test_a_model_that_prints_runs_and_shows_what_it_printed(git_repo):
    spec = COUNTER.replace('EXTENDS Naturals, TLC', 'EXTENDS Naturals, TLC, Helper').replace(
        "Next == x < 3 /\\ x' = x + 1",
        'Next == x < 3 /\\ Say(<<"step", x>>) /\\ x\' = x + 1 /\\ TLCSet(1, x)',
    )
    model(
        git_repo,
        spec,
        [],
        {'Helper.tla': '---- MODULE Helper ----\nEXTENDS TLC\nSay(v) == PrintT(v)\n====\n'},
    )
    proc = verify(git_repo, '--no-cache')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'printed by the spec (check main; 3 lines,' in proc.stdout, proc.stdout
    assert [line for line in proc.stdout.splitlines() if line.startswith('  > ')] == [
        '  > <<"step", 0>>',
        '  > <<"step", 1>>',
        '  > <<"step", 2>>',
    ]
    report = json.loads(verify(git_repo, '--format', 'json').stdout)
    [job] = report['models'][0]['jobs']
    assert job['verdict']['printed'] == ['<<"step", 0>>', '<<"step", 1>>', '<<"step", 2>>'], job
    assert job['cached'] and job['verdict']['printed_total'] == 3  # kept by the result cache


@pytest.mark.usefixtures('offline_tlc')
def test_verify_refuses_a_check_that_ends_its_search(git_repo):
    spec = COUNTER.replace("x' = x + 1", 'x\' = x + 1 /\\ (x = 1 => TLCSet("exit", TRUE))').replace(
        'x < 3 /\\', 'x < 20 /\\'
    )
    model(git_repo, spec, [])
    proc = verify(git_repo, '--no-cache')
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert 'verification/counter/Counter.tla:5: TLCSet' in proc.stdout  # the model's own exit 2
    assert 'PASSED' not in proc.stdout


@pytest.mark.usefixtures('offline_tlc')
def test_verify_refuses_a_module_beside_the_spec_that_runs_a_program(git_repo):
    spec = COUNTER.replace('EXTENDS Naturals, TLC', 'EXTENDS Naturals, TLC, Helper')
    model(
        git_repo,
        spec,
        [],
        {'Helper.tla': '---- MODULE Helper ----\nEXTENDS TLC\nRun(v) == IOExec(v)\n====\n'},
    )
    proc = verify(git_repo, '--no-cache')
    assert proc.returncode == 2
    assert 'verification/counter/Helper.tla:3: IOExec' in proc.stdout
