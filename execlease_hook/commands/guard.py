"""`execlease guard [--all] [--model DIR] [--range A..B] [FILES...]`: the fast stage.

What is staged (guard/stage.py), or with `--range` the commits already made (guard/push_range.py);
with `--format`, what was judged as a report. Imports only what the chosen path needs: this runs
on every commit (docs/architecture.md#the-fast-stage-guard).
"""

from __future__ import annotations

from execlease_hook.core.settings import Settings
from execlease_hook.git import repo

TYPE_CHECKING = False  # neither argparse nor typing is imported on the fast path (cli/main.py)
if TYPE_CHECKING:
    import argparse


def run(options: argparse.Namespace, settings: Settings) -> int:
    if getattr(options, 'format', None) not in (None, 'text') or getattr(options, 'output', None):
        return _reported(options)
    return _judge(options, None)


def _judge(options: argparse.Namespace, report: object) -> int:
    root = repo.repo_root()
    if getattr(options, 'range', None):
        from execlease_hook.guard import push_range

        return push_range.guard_range(
            root, options.range, options.model, quiet=getattr(options, 'quiet', 0) > 0
        )
    from execlease_hook.guard import stage

    return stage.judge_staged(
        root,
        list(options.files),
        options.model,
        options.all,
        getattr(options, 'verbose', 0) > 0,
        report,
    )


def _reported(options: argparse.Namespace) -> int:
    from execlease_hook.formats.emit import Outputs
    from execlease_hook.formats.report import Report

    outputs = Outputs('guard', options.format, options.output, None)
    report = Report('guard', 0, None)

    def body() -> int:
        report.commit = repo.head(repo.repo_root())
        report.exit_code = _judge(options, report)
        return report.exit_code

    code = outputs.run(body)
    outputs.finish(report)
    return code
