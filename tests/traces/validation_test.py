"""A trace run read back from the result cache: what was written reads back equal, and an entry
whose fields are not what they must be (edited by hand, or a disk fault) fails as it is read, so
that the cache counts it as corrupt and runs the job again, instead of failing later."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from execlease_hook.traces.validation import Rejection, TraceRun, TraceVerdict

RUN = TraceRun(
    TraceVerdict(
        'rejected',
        2,
        9,
        Rejection('a.ndjson', 4, 'no step matches it', {'op': 'claim'}, (('x', '1'),)),
    ),
    None,
    {'claim': 3, 'done': 1},
    1.5,
    False,
    'seed 7',
    ('a.ndjson:2 field t: not in the model',),
)


def test_a_run_written_reads_back_equal_and_cached():
    again = TraceRun.from_json(json.loads(json.dumps(RUN.to_json())))
    assert again == replace(RUN, cached=True)


@pytest.mark.parametrize(
    'path, value',
    [
        (('counts',), ['claim', 3]),
        (('counts', 'claim'), 'three'),
        (('seconds',), 'soon'),
        (('verdict', 'traces'), 'two'),
        (('verdict', 'rejection', 'line'), None),
        (('verdict', 'rejection', 'state'), 5),
        (('verdict', 'outcome'), 'fine'),
    ],
)
def test_a_field_of_the_wrong_kind_fails_as_it_is_read(path, value):
    data = json.loads(json.dumps(RUN.to_json()))
    inner = data
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = value
    with pytest.raises((ValueError, TypeError, AttributeError)):
        TraceRun.from_json(data)
