from __future__ import annotations

import pytest

from execlease_hook.core import table


@pytest.mark.parametrize(
    ('clip', 'text', 'width', 'expected'),
    (
        (table.keep_end, 'examples/agent_runtime/lease.py:24', 16, '...e/lease.py:24'),
        (table.keep_start, 'ts2:sha256:bd0e811b5400', 14, 'ts2:sha256:...'),
        (table.keep_ends, 'begin-step-ignores-generation', 13, 'begin...ation'),
        (table.keep_ends, 'short', 13, 'short'),
    ),
    ids=('path-keeps-its-end', 'hash-keeps-its-start', 'name-keeps-both-ends', 'fits-untouched'),
)
def test_clips(clip, text, width, expected):
    assert clip(text, width) == expected
    assert len(clip(text, width)) == min(width, len(text))


COLUMNS = (
    table.Column('id', clip=table.keep_ends, least=6),
    table.Column('where', clip=table.keep_end, least=10),
    table.Column('n', right=True),
    table.Column('hash', optional=True),
)
ROWS = [('a-rather-long-entry-id', 'src/some/deep/folder/module.py:120', '7', 'ts2:' + 'f' * 64)]


def test_a_table_that_fits_is_untouched():
    kept, cells = table.layout(COLUMNS, ROWS, 1000)
    assert kept == list(COLUMNS) and cells[1] == list(ROWS[0])
    assert table.render(kept, cells)[1] == '  '.join(ROWS[0])


@pytest.mark.parametrize('width', (80, 50, 30, 24))
def test_the_optional_column_goes_first_then_the_widest_cells_are_clipped(width):
    kept, cells = table.layout(COLUMNS, ROWS, width)
    assert [c.title for c in kept] == ['id', 'where', 'n']
    lines = table.render(kept, cells)
    assert max(map(len, lines)) <= width
    assert lines[1].endswith(':120  7')  # a path keeps its line number
    assert cells[1][2] == '7'  # a column without clip is never cut


def test_too_narrow_stops_at_the_least_widths():
    kept, cells = table.layout(COLUMNS, ROWS, 10)
    assert [len(c) for c in cells[1]] == [6, 10, 1]


def test_paint_sees_padded_cells_and_escapes_take_no_room():
    lines = table.render(
        COLUMNS[:3],
        [['id', 'where', 'n'], ['x', 'y', '10']],
        paint=lambda r, c, cell: f'<{cell}>' if (r, c) == (1, 0) else cell,
    )
    assert lines[1] == '<x >  y      10'
