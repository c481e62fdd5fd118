"""`execlease verify`: the options read once into a verify/pipeline.Mode (--deep/--simulate,
--shard/--only, --quick, --update-coverage), the tree chosen (the working tree, or a commit's
checked out alone for --rev/--pushed), then the one pipeline on it."""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path

from execlease_hook.core import outcomes, scratch
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.formats.emit import Outputs
from execlease_hook.git import repo
from execlease_hook.guard.push_range import judge_commits, resolve_rev
from execlease_hook.verify import pipeline, plan
from execlease_hook.verify.deep import SIMULATE_OPTIONS, Beyond
from execlease_hook.verify.show import say


def run(options: argparse.Namespace, settings: Settings) -> int:
    outputs = Outputs('verify', options.format, options.output, options.json)
    return outputs.run(lambda: _run(options, outputs, settings))


def mode_of(options: argparse.Namespace) -> pipeline.Mode:
    """The run the options ask for, or CannotRun naming the options that do not go together."""
    if options.update_coverage and options.quick:
        raise CannotRun('--update-coverage runs the full suite; drop --quick')
    deep, simulate = options.deep, options.simulate
    commit = options.rev or options.pushed
    beyond = None
    if deep or simulate:
        if commit:
            raise CannotRun('--deep and --simulate run on the working tree; drop --rev/--pushed')
        for name in ('quick', 'update_coverage', 'shard', 'only'):
            if getattr(options, name):
                raise CannotRun(
                    f'{"--simulate" if simulate else "--deep"} runs the checks beyond their '
                    f'shipped bounds only; drop --{name.replace("_", "-")} (plain `execlease '
                    'verify` runs the rest)'
                )
        beyond = Beyond.of(options)
    for name in () if beyond else (*SIMULATE_OPTIONS, 'budget', 'fpmem'):
        if getattr(options, name) is not None:
            owner = '--simulate' if name in SIMULATE_OPTIONS else '--deep and --simulate'
            raise CannotRun(f'--{name} is an option of {owner}; add it or drop --{name}')
    if commit and options.update_coverage:
        raise CannotRun(
            '--update-coverage records the working tree; it cannot be combined with '
            '--rev or --pushed'
        )
    selection = None
    if options.shard or options.only:
        if options.update_coverage:
            raise CannotRun('--update-coverage runs the full suite; drop --shard and --only')
        index, count = plan.parse_shard(options.shard) if options.shard else (1, 1)
        selection = plan.Selection(index, count, tuple(options.only or ()))
    return pipeline.Mode(
        model=options.model,
        quick=bool(options.quick),
        selection=selection,
        update_coverage=bool(options.update_coverage),
        reason=options.reason,
        beyond=beyond,
        jobs=options.jobs,
        cache=not options.no_cache,
        verbosity=options.verbose - options.quiet,
    )


def pushed_range(root: Path) -> tuple[list[tuple[str, str | None]], str, str] | None:
    """(commits, tip, what) of the push pre-commit is running for; None outside a push."""
    to_ref = os.environ.get('PRE_COMMIT_TO_REF')
    from_ref = os.environ.get('PRE_COMMIT_FROM_REF')
    local = os.environ.get('PRE_COMMIT_LOCAL_BRANCH')
    remote = os.environ.get('PRE_COMMIT_REMOTE_BRANCH')
    what = local or to_ref or ''
    if remote:
        what += f' -> {os.environ.get("PRE_COMMIT_REMOTE_NAME", "")} {remote}'.rstrip()
    if from_ref and to_ref:
        tip = resolve_rev(root, to_ref)
        return repo.rev_list(root, tip, '--not', resolve_rev(root, from_ref)), tip, what
    if local:
        # pre-commit exports no range when the first commit not on the remote is a root commit:
        # the whole history of the pushed branch is new.
        tip = resolve_rev(root, local)
        return repo.rev_list(root, tip), tip, what
    return None


def _run(options: argparse.Namespace, outputs: Outputs, settings: Settings) -> int:
    mode = mode_of(options)
    root = repo.repo_root()
    range_code = 0
    # --pushed outside a push (the manual stage) and neither --rev nor --pushed: the working tree.
    pushed = pushed_range(root) if options.pushed and not options.rev else None
    if options.rev:
        tip, label = resolve_rev(root, options.rev), options.rev
    elif pushed is None:
        return pipeline.run(mode, outputs, root, root, settings).code
    else:
        commits, tip, label = pushed
        say(
            f'execlease: judging the push of {label}: {len(commits)} new commit'
            f'{"" if len(commits) == 1 else "s"} (each against its own manifest), then '
            f'the whole suite on {tip[:12]} checked out alone'
        )
        if commits:
            range_code = judge_commits(root, commits, tip, mode.model, settings.max_covered_bytes)
    with scratch.folder('execlease-rev-') as tmp:  # marked: a killed run's is swept by the next
        tree = tmp / 'tree'
        repo.checkout_tree(root, tip, tree)
        say(
            f'execlease verify: commit {tip[:12]} ({label}), its tree checked out alone '
            f'in {tree} (not the working tree)'
        )
        if mode.model is not None:
            rel = os.path.relpath(os.path.abspath(mode.model), root)
            mode = dataclasses.replace(mode, model=str(tree / rel))
        tip_code = pipeline.run(mode, outputs, tree, root, settings).code
    return outcomes.worst((range_code, tip_code))
