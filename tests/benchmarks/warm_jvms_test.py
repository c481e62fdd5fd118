"""benchmarks/warm_jvms.py's own logic, without timing anything: medians and w/o of wall and CPU,
and no ratio when a job's verdict differs with and without warm JVMs."""

from __future__ import annotations

from benchmarks import warm_jvms

WALL = {'o': [10.0, 12.0, 11.0], 'w': [9.0, 10.0, 11.0]}
CPU = {'o': [20.0, 22.0, 24.0], 'w': [25.0, 26.0, 27.0]}
SAME = {('check', 'main'): 'held', ('mutation', 'narrow'): 'held'}


def test_medians_and_ratios_of_wall_and_cpu():
    lines = warm_jvms.summary('model m', WALL, CPU, [{'o': SAME, 'w': SAME}] * 3)
    assert lines[0] == 'model m, 2 jobs, 3 runs:'
    assert lines[1] == '  (o) every job in a JVM of its own: median 11.00 s wall, 22.00 CPU-s'
    assert lines[2] == '      each run, wall/CPU: 10.0/20.0, 12.0/22.0, 11.0/24.0'
    assert lines[3] == '  (w) warm JVMs: median 10.00 s wall, 26.00 CPU-s'
    assert lines[-1] == '  w/o = 0.909 wall, 1.182 CPU'


def test_no_ratio_when_a_verdict_differs():
    other = {**SAME, ('mutation', 'narrow'): 'could not run'}
    lines = warm_jvms.summary(
        'model m', WALL, CPU, [{'o': SAME, 'w': SAME}, {'o': SAME, 'w': other}]
    )
    assert lines == [
        'model m: the verdicts differ with and without warm JVMs: no ratio',
        '  run 2, mutation narrow: (o) held, (w) could not run',
    ]
    assert not [line for line in lines if 'w/o' in line]
