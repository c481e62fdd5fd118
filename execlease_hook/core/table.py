"""Columns of text laid out within a width: the verify job table and the coverage listing.

A table wider than its width first loses the columns marked optional (what they say is printed
in full elsewhere), then its flexible cells are clipped with '...': a path keeps its end (the
file name and line), a name its two ends, a hash its start. ASCII dots, not an ellipsis
character, so that a log with a non-UTF-8 encoding can take it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

DOTS = '...'
GAP = '  '  # between columns


def keep_end(text: str, width: int) -> str:
    return text if len(text) <= width else DOTS + text[len(text) - width + len(DOTS) :]


def keep_start(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - len(DOTS)] + DOTS


def keep_ends(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    head = (width - len(DOTS) + 1) // 2
    return text[:head] + DOTS + text[len(text) - (width - len(DOTS) - head) :]


@dataclass(frozen=True)
class Column:
    title: str
    right: bool = False  # numbers: aligned right
    clip: Callable[[str, int], str] | None = None  # None: never clipped
    least: int = 8  # clipped no narrower than this
    optional: bool = False  # left out before anything is clipped


def layout(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int
) -> tuple[list[Column], list[list[str]]]:
    """(the columns kept, every row with its cells clipped) so that the table fits `width` if
    it can; the header row is first."""
    table = [[c.title for c in columns], *[list(row) for row in rows]]
    # The kept columns' widths, in the columns' order.
    widths = {i: max(len(row[i]) for row in table) for i in range(len(columns))}

    def total() -> int:
        return sum(widths.values()) + len(GAP) * (len(widths) - 1)

    for i in [i for i in widths if columns[i].optional]:
        if total() <= width:
            break
        del widths[i]
    # Clip the widest flexible column a step at a time, so that the room is shared.
    while total() > width:
        flexible = [
            i
            for i in widths
            if columns[i].clip is not None
            and widths[i] > max(columns[i].least, len(columns[i].title))
        ]
        if not flexible:
            break
        widths[max(flexible, key=lambda i: widths[i])] -= 1
    clipped = [
        [clip(row[i], w) if (clip := columns[i].clip) else row[i] for i, w in widths.items()]
        for row in table
    ]
    return [columns[i] for i in widths], clipped


def render(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    paint: Callable[[int, int, str], str] | None = None,
) -> list[str]:
    """Rows (header first) as lines, padded to their columns, no trailing blanks. `paint(row,
    column, padded cell)` may colour a cell: padding is measured before, escapes take no room."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(columns))]
    lines = []
    for r, row in enumerate(rows):
        cells = [
            cell.rjust(w) if c.right else cell.ljust(w) for c, cell, w in zip(columns, row, widths)
        ]
        if paint is not None:
            cells = [paint(r, i, cell) for i, cell in enumerate(cells)]
        lines.append(GAP.join(cells).rstrip())
    return lines
