"""`execlease verify`: the choice of mode (--deep/--simulate, --rev/--pushed, the working tree),
then every model's jobs in one pool, their results, the report and the verdict."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlease_hook.core import outcomes, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.git import repo
from execlease_hook.guard.push_range import judge_commits, resolve_rev
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc import jar
from execlease_hook.tlc.cache import ResultCache, results_folder
from execlease_hook.tlc.jar import Tools
from execlease_hook.verify.judge import judge
from execlease_hook.verify.plan import Prepared, check_settings, prepare
from execlease_hook.verify.result import ModelResult, Refused, exit_code, results_json
from execlease_hook.verify.show import print_lines, print_model, print_refused, progress_of
from execlease_hook.verify.suite import finish

if TYPE_CHECKING:
    pass


def run(options: argparse.Namespace) -> int:
    from execlease_hook.formats.emit import Outputs

    outputs = Outputs(
        'verify', getattr(options, 'format', None), getattr(options, 'output', None), options.json
    )
    return outputs.run(lambda: _run(options, outputs))


def _run(options: argparse.Namespace, outputs: Any) -> int:
    from execlease_hook.git import repo

    if options.update_coverage and options.quick:
        raise CannotRun('--update-coverage runs the full suite; drop --quick')
    root = repo.repo_root()
    if getattr(options, 'deep', False) or getattr(options, 'simulate', False):
        if getattr(options, 'rev', None) or getattr(options, 'pushed', False):
            raise CannotRun('--deep and --simulate run on the working tree; drop --rev/--pushed')
        from execlease_hook.verify import deep  # the checks beyond their shipped bounds

        return deep.run_suite(options, outputs, root)
    for name in ('depth', 'traces', 'seed', 'budget', 'fpmem'):
        if getattr(options, name, None) is not None:
            owner = '--simulate' if name in ('depth', 'traces', 'seed') else '--deep and --simulate'
            raise CannotRun(f'--{name} is an option of {owner}; add it or drop --{name}')
    if getattr(options, 'rev', None) or getattr(options, 'pushed', False):
        from execlease_hook.commands import verify  # a commit's tree, checked out alone

        return verify.verify(options, root, outputs)
    return run_suite(options, outputs, root, root)


def run_suite(options: argparse.Namespace, outputs: Any, tree: Path, root: Path) -> int:
    """The suite on the models under `tree` (the working tree, or a commit checked out alone),
    with the TLA+ tools and the result cache of the repository at `root`; `outputs` (a
    formats.emit.Outputs) receives the reports."""
    from execlease_hook.git import repo

    selection = None
    if getattr(options, 'shard', None) or getattr(options, 'only', None):
        from execlease_hook.verify import shard

        if options.update_coverage:
            raise CannotRun('--update-coverage runs the full suite; drop --shard and --only')
        index, count = shard.parse_shard(options.shard) if options.shard else (1, 1)
        selection = shard.Selection(index, count, tuple(options.only or ()))
    from execlease_hook.core import term

    verbosity = getattr(options, 'verbose', 0) - getattr(options, 'quiet', 0)
    if tree != root:  # a commit checked out alone: its library jars from the repository's cache
        from execlease_hook.tlc import libraries

        libraries.cache_for(tree, root)
    # One model's problem stays its own: a manifest refused here, or its tools or its plan below,
    # is exit 2 for that model, named by its manifest, and every other model runs and is reported.
    from execlease_hook.verify import models

    loaded = models.load(tree, options.model)
    manifests = [m for m in loaded if isinstance(m, Manifest)]
    from execlease_hook.tlc import pin

    default, t = pin.default_tools(root, manifests, jar.find_java(results_folder(root).parent))
    if t.jar.warning:
        print(t.jar.warning, file=sys.stderr, flush=True)
    if verbosity >= 0:
        print_lines(
            term.wrap(
                f'TLA+ tools: {t.jar.tlc_version}, sha256 {t.jar.sha256[:16]}... '
                f'({t.jar.source}); Java {t.java.major} ({t.java.path})'
            )
        )
    cache = ResultCache(results_folder(root), enabled=not options.no_cache)
    from execlease_hook.core import housekeeping
    from execlease_hook.tlc import run as tlc

    tlc.sweep(
        t.jar.path
    )  # what a killed run left: its temporary folders, its JVM's half-made caches
    housekeeping.drain()  # this run's notes only
    jobs = options.jobs or os.cpu_count() or 1
    # Every model's TLC jobs in one pool, longest first (verify/pool.py); then each model's result in
    # the order the models were found, a refused one where it was found.
    check_settings()

    def planned(m: Manifest) -> tuple[Prepared, Tools]:
        tm = pin.tools_for(
            m, default, t.java, root
        )  # the run's tools, or the manifest's own (tlc/pin.py)
        return prepare(m, tm, options.quick, selection), tm

    order = models.each(loaded, planned)
    prepared = [p for p, _ in (x for x in order if not isinstance(x, Refused))]
    own = [tm for _, tm in (x for x in order if not isinstance(x, Refused))]
    from execlease_hook.verify import pool, schedule, trace_stage
    from execlease_hook.verify.live import Live

    live = Live() if verbosity >= 0 else None  # each running TLC job's live line, on stderr
    try:
        progress = [progress_of(p.manifest, len(manifests) > 1, verbosity, live) for p in prepared]
        stages = [
            trace_stage.of_model(p, own[k], options.quick, cache, progress[k], live)
            for k, p in enumerate(prepared)
        ]
        ran = pool.run(
            [trace_stage.work(p, stages[k], judge, progress[k]) for k, p in enumerate(prepared)],
            t,
            cache,
            jobs,
            schedule.Timings(results_folder(root).parent),
            live,
        )
        results: list[ModelResult | Refused] = []
        done = iter(range(len(prepared)))
        for x in order:
            if isinstance(x, Refused):
                results.append(x)
                print_refused(x)
                continue
            k = next(done)
            r = _finish(prepared[k], ran[k], own[k], stages[k], options)
            results.append(r)
            print_model(r, verbosity)
    finally:
        if live is not None:
            live.close()
    code = exit_code(results)
    if outputs.wanted:  # --json, --format: the report (its JSON, the counterexamples located)
        from execlease_hook.verify import report_build

        data = results_json(results, t, code, root)
        data['quick'] = bool(options.quick)
        if selection is not None:
            data['shard'] = selection.to_json()
        outputs.finish(
            report_build.verify_report(
                results, data, code, repo.head(root) if tree == root else None
            )
        )
    for note in housekeeping.drain():  # what the JVM's caches could not save: same verdicts, slower
        print_lines(term.wrap(f'note: {note}'))
    if cache.problem:
        print_lines(f'note: {cache.problem}')
    if t.jar.warning:
        print_lines(t.jar.warning)
    result = outcomes.RESULT_TEXT[code]
    if options.quick and code == 0:
        result += ' (--quick: checks and coverage only; mutations, findings, trace jobs and code mutations were not run)'
    if selection is not None and code == 0:
        result += (
            f" (--shard {selection.index}/{selection.count}: this shard's jobs only; "
            '`execlease report merge` gives the verdict)'
            if selection.sharded
            else ' (--only: the named jobs only, no coverage check)'
        )
    print_lines('', term.paint(term.wrap(result), 'green' if code == 0 else 'red'))
    return code


def _finish(
    p: Prepared, ran: list[Any], t: Tools, stage: Any, options: argparse.Namespace
) -> ModelResult:
    """The model's result, and its sync with --update-coverage; what stops either is this
    model's problem (exit 2), beside the jobs it ran."""
    try:
        r = finish(p, ran, t, stage)
        if options.update_coverage:
            from execlease_hook.verify import sync

            sync.update_coverage(r, getattr(options, 'reason', None))
    except CannotRun as e:
        r = ModelResult(p.manifest, jobs=list(ran), problems=[str(e)], tools=t)
    return r


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


def verify(options: argparse.Namespace, root: Path, json_path: object) -> int:
    """`execlease verify --rev REV` / `--pushed`."""
    from execlease_hook.commands import verify

    if options.update_coverage:
        raise CannotRun(
            '--update-coverage records the working tree; it cannot be combined with '
            '--rev or --pushed'
        )
    range_code = 0
    if options.rev:
        tip, label = resolve_rev(root, options.rev), options.rev
    else:
        pushed = pushed_range(root)
        if pushed is None:
            return verify.run_suite(
                options, json_path, root, root
            )  # manual stage: the working tree
        commits, tip, label = pushed
        print(
            term.wrap(
                f'execlease: judging the push of {label}: {len(commits)} new commit'
                f'{"" if len(commits) == 1 else "s"} (each against its own manifest), then '
                f'the whole suite on {tip[:12]} checked out alone'
            ),
            flush=True,
        )
        if commits:
            range_code = judge_commits(root, commits, tip, options.model)
    from execlease_hook.core import scratch  # marked: a killed run's is swept by the next

    tmp = scratch.make('execlease-rev-')
    try:
        tree = tmp / 'tree'
        repo.checkout_tree(root, tip, tree)
        print(
            term.wrap(
                f'execlease verify: commit {tip[:12]} ({label}), its tree checked out alone '
                f'in {tree} (not the working tree)'
            ),
            flush=True,
        )
        local = argparse.Namespace(**vars(options))
        if options.model is not None:
            rel = os.path.relpath(os.path.abspath(options.model), root)
            local.model = str(tree / rel)
        tip_code = verify.run_suite(local, json_path, tree, root)
    finally:
        scratch.remove(tmp)
    return 2 if 2 in (range_code, tip_code) else max(range_code, tip_code)
