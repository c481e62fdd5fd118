"""`execlease guard --format ...`: what the guard judged, as report items (only loaded then)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlease_hook.core import outcomes
from execlease_hook.core.outcomes import HELD
from execlease_hook.coverage import compare, items
from execlease_hook.formats.report import Report

if TYPE_CHECKING:
    from execlease_hook.git.blobs import IndexSource
    from execlease_hook.guard.check import Findings, Plan
    from execlease_hook.manifest.model import Manifest


def add(
    report: object, m: Manifest, p: Plan, found: Findings, source: IndexSource, max_bytes: int
) -> None:
    """One item per checked entry (its block as the message when it blocks), the model hash and
    the NOTES.md table when they block."""
    assert isinstance(report, Report)  # guard/stage.py passes it untyped: it imports no typing

    statuses = compare.compare(m, source, p.entries, max_bytes)
    blocks = list(found.blocks)
    for s in statuses:
        block = next((b for b in blocks if b.startswith(f'{s.entry.id}: ')), None)
        if block is not None:
            blocks.remove(block)
        report.items.append(items.entry_item(m, s, block if s.status != 'unchanged' else None))
    for block in blocks:
        if block.startswith('model '):
            report.items.append(items.model_item(m, outcomes.DID_NOT_HOLD, block))
        elif 'code-to-action table' in block.splitlines()[0]:
            report.items.append(items.notes_item(m, block))
        else:
            report.items.append(items.problem_items(m, [block], [])[0])
    if p.model and not any(
        i.kind == 'model' and i.model == items.model_folder(m) for i in report.items
    ):
        report.items.append(items.model_item(m, HELD, 'the model matches its last verified sync'))
