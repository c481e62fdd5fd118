from __future__ import annotations

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest import notes_table as notes_map
from execlease_hook.manifest.notes_table import BEGIN, END, MapRow

ROWS = [
    MapRow('Claim', 'claim-lease', 'app/lease.py', 4),
    MapRow('Renew', 'renew', 'app/lease.py', 18),
]


@pytest.mark.parametrize(
    ('folder', 'link'),
    (
        ('verification/lease', '../../app/lease.py#L4'),
        ('.', 'app/lease.py#L4'),
        ('m', '../app/lease.py#L4'),
    ),
    ids=('two-deep', 'root', 'one-deep'),
)
def test_render_row_links_relative_to_notes(folder, link):
    assert (
        notes_map.render_row(ROWS[0], folder)
        == f'| `Claim` | `claim-lease` | [app/lease.py:4]({link}) |'
    )


def test_replace_table_round_trip():
    text = f'# Notes\n\nbefore\n{BEGIN}\nold junk\n{END}\nafter\n'
    table = notes_map.render(ROWS, 'verification/lease')
    new = notes_map.replace_table(text, table, 'NOTES.md')
    assert (
        new.startswith('# Notes\n\nbefore\n' + BEGIN + '\n| ') is False
    )  # the header comment comes first
    assert new.endswith(f'{END}\nafter\n')
    assert notes_map.current_table(new, 'NOTES.md') == table
    assert notes_map.replace_table(new, table, 'NOTES.md') == new
    assert set(notes_map.table_rows(table)) == {'claim-lease', 'renew'}


@pytest.mark.parametrize(
    ('text', 'message'),
    (
        pytest.param('# no markers\n', 'no code-to-action markers; add the two lines', id='absent'),
        pytest.param(f'{BEGIN}\n', 'no code-to-action markers', id='end-absent'),
        pytest.param(f'{END}\n{BEGIN}\n', 'begin before end', id='reversed'),
        pytest.param(f'{BEGIN}\n{END}\n{BEGIN}\n{END}\n', 'once each', id='twice'),
    ),
)
def test_markers_errors(text, message):
    with pytest.raises(CannotRun, match=message):
        notes_map.current_table(text, 'NOTES.md')


def test_write_notes_atomic_and_reports_change(tmp_path):
    notes = tmp_path / 'NOTES.md'
    notes.write_text(f'a\n{BEGIN}\n{END}\nb\n')
    table = notes_map.render(ROWS, '.')
    assert notes_map.write_notes(notes, table) is True
    assert notes_map.write_notes(notes, table) is False
    assert notes.read_text() == f'a\n{BEGIN}\n{table}{END}\nb\n'
    assert [p.name for p in tmp_path.iterdir()] == ['NOTES.md']  # no temp file left


def test_write_notes_without_file(tmp_path):
    with pytest.raises(CannotRun, match='no NOTES.md in the model folder'):
        notes_map.write_notes(tmp_path / 'NOTES.md', '')


def test_write_notes_not_utf8(tmp_path):
    notes = tmp_path / 'NOTES.md'
    notes.write_bytes(f'a\n{BEGIN}\n{END}\n\xff\n'.encode('latin-1'))
    with pytest.raises(
        CannotRun, match=r'NOTES.md: not UTF-8 \(first bad byte on line 4\); save it as UTF-8'
    ):
        notes_map.write_notes(notes, notes_map.render(ROWS, '.'))


def test_write_notes_cannot_write_leaves_the_file(tmp_path, monkeypatch):
    import os

    notes = tmp_path / 'NOTES.md'
    before = f'a\n{BEGIN}\n{END}\n'
    notes.write_text(before)

    def refuse(*args, **kwargs):
        raise PermissionError(13, 'Permission denied')

    monkeypatch.setattr(os, 'replace', refuse)
    with pytest.raises(
        CannotRun, match='cannot write the table: Permission denied; nothing was changed'
    ):
        notes_map.write_notes(notes, notes_map.render(ROWS, '.'))
    assert notes.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ['NOTES.md']


def test_abstract_actions_follow_the_entries():
    table = notes_map.render(
        ROWS, 'verification/lease', [('Expire', 'time passing:\n  the lease | ends')]
    )
    assert table.splitlines()[-1] == '| `Expire` | abstract | time passing: the lease \\| ends |'
    assert table.splitlines()[-2].startswith('| `Renew` | `renew` |')
    assert set(notes_map.table_rows(table)) == {'claim-lease', 'renew'}  # entry rows only


ABSTRACT = notes_map.render_abstract('Restart', 'a crash | the disk stays')


@pytest.mark.parametrize(
    ('line', 'generated'),
    (
        pytest.param(notes_map.HEADER[0], True, id='header-comment'),
        pytest.param(notes_map.HEADER[2], True, id='header-rule'),
        pytest.param(notes_map.render_row(ROWS[0], 'verification/lease'), True, id='entry-row'),
        pytest.param(
            notes_map.render_row(MapRow('Gone', 'old', 'x.go', 999), 'verification/lease'),
            True,
            id='row-of-a-removed-entry',
        ),
        pytest.param(ABSTRACT, True, id='abstract-row'),
        pytest.param(notes_map.render_row(ROWS[0], '.'), False, id='row-linked-for-another-folder'),
        pytest.param(
            '| `Claim` | `claim-lease` | [app/lease.py:4](../../app/lease.py#L5) |',
            False,
            id='line-and-anchor-disagree',
        ),
        pytest.param(
            '| `Claim` | `claim-lease` | [app/lease.py:4](../../app/lease.py#L4) | why |',
            False,
            id='a-fourth-cell',
        ),
        pytest.param(
            '| `Restart` | abstract | a crash | the disk stays |', False, id='unescaped-bar'
        ),
        pytest.param('| Timeout | note | randomized |', False, id='typed-row'),
        pytest.param('Notes go here.', False, id='prose'),
    ),
)
def test_generated(line, generated):
    assert notes_map.generated(line, 'verification/lease') is generated


def test_hand_lines_leave_out_blank_lines_and_what_the_last_commit_had():
    old = '| Action | Entry | Code (old layout) |'
    table = f'{old}\n\n| Timeout | note | randomized |\n{ABSTRACT}\n'
    assert notes_map.hand_lines(table, 'm', None) == [old, '| Timeout | note | randomized |']
    assert notes_map.hand_lines(table, 'm', f'{old}\n') == ['| Timeout | note | randomized |']
