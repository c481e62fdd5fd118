"""`execlease guard [--all] [--model DIR] [--range A..B] [FILES...]`: the fast stage.

What is staged (guard/stage.py), or with `--range` the commits already made (guard/push_range.py);
with `--format`, what was judged as a report. Imports only what the chosen path needs: this runs
on every commit (docs/architecture.md#the-fast-stage-guard).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlease_hook.core.settings import Settings
from execlease_hook.git import repo
from execlease_hook.guard import stage

if TYPE_CHECKING:
    import argparse


def run(options: argparse.Namespace, settings: Settings) -> int:
    if options.format not in (None, 'text') or options.output:
        return _reported(options, settings.max_covered_bytes)
    return _judge(options, None, settings.max_covered_bytes)


def _judge(options: argparse.Namespace, report: object, max_bytes: int) -> int:
    root = repo.repo_root()
    if options.range:
        # Lazy: --range loads all of guard/check.py at once, which the staged path loads
        # only when something is concerned (guard/stage.py says what that costs).
        from execlease_hook.guard import push_range

        return push_range.guard_range(
            root, options.range, options.model, max_bytes, options.quiet > 0
        )

    return stage.judge_staged(
        root,
        list(options.files),
        options.model,
        options.all,
        options.verbose > 0,
        report,
        max_bytes,
    )


def _reported(options: argparse.Namespace, max_bytes: int) -> int:
    # Lazy: the report and its writers, only with --format or --output. Measured as in
    # guard/stage.py: 284 ms as written, 496 ms with this and --range's import at the top.
    from execlease_hook.formats.emit import Outputs
    from execlease_hook.formats.report import Report

    outputs = Outputs('guard', options.format, options.output, None)
    report = Report('guard', 0, None)

    def body() -> int:
        report.commit = repo.head(repo.repo_root())
        report.exit_code = _judge(options, report, max_bytes)
        return report.exit_code

    code = outputs.run(body)
    outputs.finish(report)
    return code
