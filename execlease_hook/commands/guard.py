"""`execlease guard [--all] [--model DIR] [--range A..B] [FILES...]`: the fast stage.

What is staged (guard/stage.py), or with `--range` the commits already made (guard/push_range.py);
with `--format`, what was judged as a report (an item per checked entry and per blocking
problem). Imports only what the chosen path needs: this runs on every commit
(docs/architecture.md#the-fast-stage-guard).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlease_hook.core.settings import Settings
from execlease_hook.git import repo
from execlease_hook.guard import stage

if TYPE_CHECKING:
    import argparse

    from execlease_hook.git.blobs import IndexSource
    from execlease_hook.guard.check import Findings, Plan
    from execlease_hook.manifest.model import Manifest


def run(options: argparse.Namespace, settings: Settings) -> int:
    if options.format not in (None, 'text') or options.output:
        return _reported(options, settings.max_covered_bytes)
    return _judge(options, None, settings.max_covered_bytes)


def _judge(options: argparse.Namespace, judged: stage.Judged | None, max_bytes: int) -> int:
    root = repo.repo_root()
    if options.range:
        # Lazy: --range loads all of guard/check.py at once, which the staged path loads
        # only when something is concerned (guard/stage.py says what that costs).
        from execlease_hook.guard import push_range

        return push_range.guard_range(
            root, options.range, options.model, max_bytes, options.quiet > 0
        )
    files, verbose = list(options.files), options.verbose > 0
    return stage.judge_staged(root, files, options.model, options.all, verbose, judged, max_bytes)


def _reported(options: argparse.Namespace, max_bytes: int) -> int:
    # Lazy: the report and its writers, only with --format or --output. Measured as in
    # guard/stage.py: 284 ms as written, 496 ms with this and --range's import at the top.
    from execlease_hook.core.outcomes import DID_NOT_HOLD, HELD
    from execlease_hook.coverage import compare, items
    from execlease_hook.formats.emit import Outputs
    from execlease_hook.formats.report import Report

    outputs = Outputs('guard', options.format, options.output, None)
    report = Report('guard', 0, None)

    def judged(m: Manifest, p: Plan, found: Findings, source: IndexSource) -> None:
        """One item per checked entry (its block as the message when it blocks), the model hash
        and the NOTES.md table when they block."""
        blocks = list(found.blocks)
        for s in compare.compare(m, source, p.entries, max_bytes):
            block = next((b for b in blocks if b.startswith(f'{s.entry.id}: ')), None)
            if block is not None:
                blocks.remove(block)
            report.items.append(items.entry_item(m, s, block if s.status != 'unchanged' else None))
        for block in blocks:
            if block.startswith('model '):
                report.items.append(items.model_item(m, DID_NOT_HOLD, block))
            elif 'code-to-action table' in block.splitlines()[0]:
                report.items.append(items.notes_item(m, block))
            else:
                report.items.append(items.problem_items(m, [block], [])[0])
        folder = items.model_folder(m)
        if p.model and not any(i.kind == 'model' and i.model == folder for i in report.items):
            report.items.append(
                items.model_item(m, HELD, 'the model matches its last verified sync')
            )

    def body() -> int:
        report.commit = repo.head(repo.repo_root())
        report.exit_code = _judge(options, judged, max_bytes)
        return report.exit_code

    code = outputs.run(body)
    outputs.finish(report)
    return code
