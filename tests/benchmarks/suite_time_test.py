"""benchmarks/suite_time.py's own logic, without timing anything: no ratio when (a) and verify
reached different verdicts, and the split of (a) and (b) by kind of job."""

from __future__ import annotations

from benchmarks import suite_time

MEDIANS = {'a': 100.0, 'b': 50.0, 'c': 40.0, 'd': 0.5}


def test_ratios_against_their_targets():
    assert suite_time.verdict_lines([], MEDIANS) == [
        'b/a = 0.500  (target <= 0.6)',
        'c/a = 0.400  (target <= 0.5)',
        'd/c = 0.013  (target <= 0.02)',
    ]


def test_no_ratio_when_the_verdicts_differ():
    lines = suite_time.verdict_lines(
        ['traces app: (a) held (TLC: passed), (b, run 1) not run'], MEDIANS
    )
    assert lines == [
        'the verdicts of (a) and verify differ, so they did not do the same work: no ratios',
        '  traces app: (a) held (TLC: passed), (b, run 1) not run',
    ]
    assert not [line for line in lines if '=' in line]


def test_the_split_shows_each_kind_and_what_lies_outside_the_jobs():
    a = [
        {
            'check': (2, 10.0),
            'mutation': (3, 6.0),
            'finding': (1, 1.0),
            'traces': (2, 4.0),
            'code-mutation': (1, 0.0),
        }
    ]
    b = [
        {
            'check': (2, 5.0),
            'mutation': (3, 2.0),
            'finding': (1, 0.5),
            'traces': (2, 3.0),
            'code-mutation': (1, 1.0),
        }
    ]
    lines = suite_time.split_lines(a, b, 21.5, 14.0)
    assert lines[1].split() == ['check', '2', '10.00', '5.00', '0.500']
    assert lines[5].split() == [
        'code-mutation',
        '1',
        '0.00',
        '1.00',
        '-',
    ]  # no ratio against nothing
    assert lines[6].split() == ['sum', 'of', 'jobs', '21.00', '11.50']
    assert lines[7].split()[:4] == ['outside', 'them', '0.50', '2.50']
