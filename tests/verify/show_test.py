from __future__ import annotations

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core import outcomes
from execlease_hook.core.settings import from_environ
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.manifest.model import CoveredEntry, Region
from execlease_hook.tlc import result
from execlease_hook.tlc.output import TraceStep, Verdict
from execlease_hook.verify import show
from tests.verify.suite_test import WRONG, shared_results, write_model

pytestmark = pytest.mark.usefixtures('offline_tlc')


# The two tests below judge how a verdict's trace is printed against the code: the verdicts come
# from the run's shared results (suite_test.shared_results) once a test has run their jobs.
def test_a_failing_check_prints_its_trace_against_the_code(git_repo, capsys, tmp_path_factory):
    shared_results(tmp_path_factory, git_repo)
    write_model(git_repo, checks=({'name': 'bad', 'config': 'invariant.cfg'},))
    assert cli.main(['verify', '--quick']) == 1
    out = capsys.readouterr().out
    expected = """\
check bad (invariant.cfg):
  counterexample (invariant XBelowTwo), 3 steps:
  1. Initial predicate
       x = 0
       y = 0
  2. Inc
       spec: Counter.tla:13
       code: app/counter.py:1-4  increment  [inc]
       x = 1
  3. Inc
       spec: Counter.tla:13
       code: app/counter.py:1-4  increment  [inc]
       x = 2
"""
    assert expected in out
    assert 'DID NOT HOLD: check bad (invariant.cfg) failed: violated: invariant XBelowTwo' in out


def test_a_mutation_failing_for_the_wrong_reason_prints_its_trace(
    git_repo, capsys, tmp_path_factory
):
    shared_results(tmp_path_factory, git_repo)
    write_model(git_repo, mutations=(WRONG,), entries=())
    assert cli.main(['verify']) == 1
    out = capsys.readouterr().out
    assert 'mutation wrong (pass.cfg):\n  counterexample (invariant TypeOK), 5 steps:' in out
    # No entries: the model declares its actions abstract, and the trace says why no code is cited.
    assert (
        '  5. Inc\n       spec: Counter.tla:13\n       code: (abstract: no code in this test)\n'
        '       x = 4\n'
    ) in out


def entry(id: str, action: str, **kw: object) -> CoveredEntry:
    return CoveredEntry(id=id, path=f'src/{id}.py', action=action, **kw)  # type: ignore[arg-type]


def test_loops_stuttering_parameters_and_unlocated_code():
    verdict = Verdict(
        'violated',
        1.0,
        13,
        kind='property',
        property='Live',
        trace=(
            TraceStep(1, 'Initial predicate', '', (('a', '0'), ('b', '<<>>'))),
            TraceStep(
                2,
                'Claim(r1)',
                'line 3, col 1 to line 3, col 9 of module M',
                (('a', '1'), ('b', '<<>>')),
            ),
            TraceStep(
                3,
                'Tick',
                'line 5, col 9 to line 7, col 20 of module M',
                (('a', '1'), ('b', '<<>>')),
            ),
            TraceStep(4, 'Claim', '', (), back_to=2),
            TraceStep(5, 'Stuttering'),
        ),
    )
    statuses = [
        EntryStatus(
            entry('claim', 'Claim', function='claim'),
            'missing',
            None,
            None,
            'function claim not found',
        ),
        EntryStatus(
            entry('fence', 'Claim', region=Region('# a', '# b'), within='claim'),
            'missing',
            None,
            None,
            'x',
        ),
    ]
    assert show.counterexample(verdict, statuses) == [
        '  counterexample (property Live), 5 steps:',
        '  1. Initial predicate',
        '       a = 0',
        '       b = <<>>',
        '  2. Claim(r1)',
        '       spec: M.tla:3',
        '       code: src/claim.py (not found: update the anchors)  claim  [claim]',
        "       code: src/fence.py (not found: update the anchors)  region '# a' in claim  [fence]",
        '       a = 1',
        '  3. Tick',
        '       spec: M.tla:5-7',
        '       code: (no covered entry names this action)',
        '       (no variable changed)',
        '  4. Claim: back to state 2 (the behaviour loops)',
        '       code: src/claim.py (not found: update the anchors)  claim  [claim]',
        "       code: src/fence.py (not found: update the anchors)  region '# a' in claim  [fence]",
        '  5. Stuttering: from here on nothing changes forever',
    ]


def test_an_abstract_action_shows_its_reason():
    verdict = Verdict(
        'violated',
        1.0,
        2,
        kind='invariant',
        property='Inv',
        trace=(
            TraceStep(1, 'Initial predicate', '', (('a', '0'),)),
            TraceStep(2, 'Expire', 'line 5, col 1 to line 6, col 9 of module M', (('a', '1'),)),
        ),
    )
    lines = show.counterexample(verdict, [], {'Expire': 'time passing'})
    assert lines[-3:] == [
        '       spec: M.tla:5-6',
        '       code: (abstract: time passing)',
        '       a = 1',
    ]


def test_summary_table_lists_every_column():
    from execlease_hook.tlc.job import TlcJob

    job = TlcJob('mutation', 'm1', 'S.tla', b'', 'S.cfg', b'', expect='P8', settings=from_environ())
    rows = show.summary_table(
        [
            result.JobResult(
                job,
                Verdict('violated', 2.345, 12, 10, 1234, 3, kind='invariant', property='P8'),
                True,
                outcomes.HELD,
                'ok',
            ),
            result.JobResult(job, None, False, outcomes.COULD_NOT_RUN, 'bad anchor'),
        ]
    )
    assert rows == [
        'kind      name  verdict      result         distinct  seconds  cached',
        'mutation  m1    violated P8  held              1,234      2.3     yes',
        'mutation  m1    not run      could not run         -        -      no',
    ]


def test_summary_table_fits_the_width_it_is_given():
    """At 80 columns (78 after the indent) the verdict column goes, then long names are clipped
    at their middle; with room (COLUMNS) every column is back."""
    from execlease_hook.tlc.job import TlcJob

    long_name = 'finish-turn-ignores-steps-and-status-and-more'
    job = TlcJob(
        'code-mutation', long_name, 'S.tla', b'', 'S.cfg', b'', expect='P8', settings=from_environ()
    )
    results = [
        result.JobResult(
            job,
            Verdict(
                'violated',
                9.25,
                12,
                10,
                85142,
                3,
                kind='invariant',
                property='ClaimRespectsLiveOwner',
            ),
            False,
            outcomes.HELD,
            'ok',
        )
    ]
    lines = show.summary_table(results, 78)
    assert max(map(len, lines)) <= 78
    assert lines[0].split() == ['kind', 'name', 'result', 'distinct', 'seconds', 'cached']
    assert lines[1].startswith('code-mutation  finish-turn-') and '...' in lines[1]
    assert lines[1].endswith('held      85,142      9.2      no')
    assert lines[-1].startswith('(no verdict column')
    wide = show.summary_table(results, 200)
    assert 'violated ClaimRespectsLiveOwner' in wide[1] and long_name in wide[1] and len(wide) == 2


def test_what_specs_printed_is_shown_once_per_output_naming_its_jobs():
    from execlease_hook.tlc.job import TlcJob

    def job(name: str, printed: tuple[str, ...], total: int) -> result.JobResult:
        v = Verdict('passed', 1.0, 0, printed=printed, printed_total=total)
        return result.JobResult(
            TlcJob('mutation', name, 'S.tla', b'', 'S.cfg', b'', settings=from_environ()),
            v,
            False,
            outcomes.HELD,
            'ok',
        )

    many = tuple(f'<<{i}>>' for i in range(40))
    lines = show.spec_output(
        [
            job('a', ('"x"',), 1),
            job('b', ('"x"',), 1),
            job('c', many, 55),
            result.JobResult(
                TlcJob('check', 'quiet', 'S.tla', b'', 'S.cfg', b'', settings=from_environ()),
                None,
                False,
                outcomes.COULD_NOT_RUN,
                'no',
            ),
        ],
        shown=10,
    )
    head = "printed by the spec (mutation a, mutation b; 1 line, its Print/PrintT output, not TLC's: no verdict is read from it):"
    assert lines[:3] == ['', head, '  > "x"']
    assert lines[4].startswith('printed by the spec (mutation c; 55 lines,')
    assert lines[5:15] == [f'  > <<{i}>>' for i in range(10)]
    assert lines[15:] == ['  > ... 45 more lines (-v shows the first 40)']
    assert show.spec_output([job('d', many, 55)], shown=40)[-1] == '  > ... 15 more lines'
