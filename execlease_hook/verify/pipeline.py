"""The slow stage, `execlease verify`, once for every way it runs: the working tree, a commit's
tree checked out alone (--rev, --pushed: commands/verify.py picks the tree), the checks beyond
their shipped bounds (--deep, --simulate: deep.py) and the tests. What differs is a `Mode`.

Every run: the models (result.load: a refused one is its own exit 2), the TLA+ tools and Java, the
sweep of what a killed run left, every model's jobs in one pool (pool.py), each model's result
(`finish`: coverage, trace results, the map both ways, notes) and text in the order the models
were found, the report, the JVM's housekeeping notes, the verdict line. Exit 0: every check
passed, every mutation still fails on its named property, every known finding still reproduces,
no covered entry changed. Exit 1: one of those did not hold. Exit 2: something could not run;
every exit-1 failure is still printed, and 2 is never a pass.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core import housekeeping, outcomes, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD
from execlease_hook.core.settings import Settings
from execlease_hook.coverage import compare, watch
from execlease_hook.formats.emit import Outputs
from execlease_hook.git import repo
from execlease_hook.git.blobs import WorktreeSource
from execlease_hook.manifest.model import Manifest
from execlease_hook.spec import action_map, cfg, modules, record
from execlease_hook.tlc import job, pin
from execlease_hook.tlc.cache import ResultCache, results_folder
from execlease_hook.tlc.jar import Tools
from execlease_hook.tlc.java import find_java
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import deep, pool, report_build, result, sync, trace_stage
from execlease_hook.verify.live import Live
from execlease_hook.verify.plan import Prepared, Selection, prepare
from execlease_hook.verify.result import ModelResult, Refused, each, load
from execlease_hook.verify.show import print_lines, print_model, print_refused, progress_of, say
from execlease_hook.verify.violations import deadlock_default_note, judge


@dataclass(frozen=True)
class Mode:
    """What a run is asked (commands/verify.py reads it from the options once)."""

    model: str | None = None  # --model: that model alone
    quick: bool = False  # checks and coverage only
    selection: Selection | None = None  # --shard K/N, --only NAME...
    update_coverage: bool = False
    reason: str | None = None  # --reason of a code-only sync
    beyond: deep.Beyond | None = None  # --deep, --simulate: the checks beyond their bounds
    jobs: int | None = None  # TLC jobs at once; None: the cores (--deep: one, deep.py)
    cache: bool = True  # --no-cache: False
    verbosity: int = 0  # -v counts up, -q down


@dataclass(frozen=True)
class Ran:
    code: int
    results: list[ModelResult | Refused]


def run(mode: Mode, outputs: Outputs, tree: Path, root: Path, settings: Settings) -> Ran:
    """The suite on the models under `tree` (the working tree, or a commit checked out alone),
    with the TLA+ tools and the result cache of the repository at `root`; `outputs` receives
    the report; `settings`: what cli/main read from the environment."""
    beyond, verbosity = mode.beyond, mode.verbosity
    # One model's problem stays its own: a manifest refused here, or its tools or its plan below,
    # is exit 2 for that model, named by its manifest, and every other model runs and is reported.
    loaded = load(tree, mode.model)
    manifests = [m for m in loaded if isinstance(m, Manifest)]
    java = find_java(settings, results_folder(root).parent)
    default, t = pin.default_tools(root, manifests, java, settings)
    if t.jar.warning:
        print(t.jar.warning, file=sys.stderr, flush=True)
    if verbosity >= 0:
        say(
            f'TLA+ tools: {t.jar.tlc_version}, sha256 {t.jar.sha256[:16]}... '
            f'({t.jar.source}); Java {t.java.major} ({t.java.path})'
            + ('' if beyond is None else f'; {beyond.words()}')
        )
    cache = ResultCache(results_folder(root), enabled=mode.cache)
    # What a killed run left: its temporary folders, its JVM's half-made caches.
    job.sweep(t.jar.path, t.settings)
    housekeeping.drain()  # this run's notes only

    def planned(m: Manifest) -> tuple[Prepared, Tools]:
        # The run's jar, or the manifest's own, with the run's Java.
        tm = Tools(pin.jar_for(m, default, t.java, settings, root), t.java, settings, root)
        if beyond is not None:
            return deep.prepare(m, tm, beyond), tm
        return prepare(m, tm, mode.quick, mode.selection), tm

    order = each(loaded, planned)
    ready = [x for x in order if not isinstance(x, Refused)]
    if beyond is not None and len(ready) == len(order):
        deep.require_jobs([p for p, _ in ready], root)
    # Each running TLC job's live line, on stderr (a --deep job's too: its states, its rate).
    live = Live(settings.progress_seconds) if verbosity >= 0 else None
    try:
        works, stages = [], []
        for p, tm in ready:
            progress = progress_of(p.manifest, len(manifests) > 1, verbosity, live)
            # Its trace jobs and code mutations (with --only, those it names): in shard 1, where
            # the coverage check runs, never with --quick nor beyond the shipped bounds.
            stage = None
            if (
                beyond is None
                and not mode.quick
                and (p.selection is None or p.selection.index == 1)
            ):
                stage = trace_stage.Stage(p.manifest, tm, cache, progress, live, p.only)
                stage = stage if stage.jobs or stage.mutations else None
            rule = judge if beyond is None else deep.judge_for(beyond, p.manifest)
            # Its planned TLC jobs, and its stage's tasks (tasks() fills in stage.first).
            tasks, first = ((), ()) if stage is None else (stage.tasks(), stage.first)
            works.append(pool.Work(p.manifest, p.planned, rule, progress, tasks, first))
            stages.append(stage)
        # A deep job's wall time says nothing of the shipped bounds' order: not recorded.
        timings = None if beyond is not None else pool.Timings(results_folder(root).parent)
        at_once = mode.jobs or (beyond.at_once() if beyond else os.cpu_count() or 1)
        done = iter(zip(ready, stages, pool.run(works, t, cache, at_once, timings, live)))
        results: list[ModelResult | Refused] = []
        for x in order:
            if isinstance(x, Refused):
                results.append(x)
                print_refused(x)
                continue
            (p, tm), stage, ran = next(done)
            if beyond is not None:
                r = deep.result(p, ran, tm)
            else:
                # The model's result, and its sync with --update-coverage; what stops either is
                # this model's problem (exit 2), beside the jobs it ran.
                try:
                    r = finish(p, ran, tm, stage)
                    if mode.update_coverage:
                        sync.update_coverage(r, mode.reason)
                except CannotRun as e:
                    r = ModelResult(p.manifest, jobs=list(ran), problems=[str(e)], tools=tm)
            results.append(r)
            # A deep job's own line (its states per second) is shown as -v shows a held job.
            print_model(r, verbosity + 1 if beyond is not None and verbosity >= 0 else verbosity)
    finally:
        if live is not None:
            live.close()
    code = outcomes.worst(r.exit_code for r in results)
    if outputs.wanted:  # --json, --format: the report (its JSON, the counterexamples located)
        data = report_build.results_json(results, t, code, root)
        if beyond is not None:
            data['mode'] = beyond.to_json()
        else:
            data['quick'] = mode.quick
            if mode.selection is not None:
                data['shard'] = mode.selection.to_json()
        head = repo.head(root) if tree == root else None
        outputs.finish(report_build.verify_report(results, data, code, head))
    # What the JVM's caches could not save: same verdicts, slower.
    say(*(f'note: {note}' for note in housekeeping.drain()))
    if cache.problem:
        print_lines(f'note: {cache.problem}')
    if t.jar.warning:
        print_lines(t.jar.warning)
    if beyond is not None:
        line = beyond.verdict(code)
    else:
        line = outcomes.RESULT_TEXT[code]
        selection = mode.selection
        if mode.quick and code == 0:
            line += ' (--quick: checks and coverage only; mutations, findings, trace jobs and code mutations were not run)'
        if selection is not None and code == 0:
            line += (
                f" (--shard {selection.index}/{selection.count}: this shard's jobs only; "
                '`execlease report merge` gives the verdict)'
                if selection.sharded
                else ' (--only: the named jobs only, no coverage check)'
            )
        line = term.wrap(line)
    print_lines('', term.paint(line, 'green' if code == 0 else 'red'))
    return Ran(code, results)


def coverage_results(m: Manifest, r: ModelResult, max_bytes: int) -> None:
    r.coverage = compare.compare(m, WorktreeSource(m.root), None, max_bytes)
    for s in r.coverage:
        if s.status in ('missing', 'ambiguous'):
            r.problems.append(
                f'coverage entry {s.entry.id} ({s.entry.action}) at {s.entry.path}: {s.problem}; '
                'update the anchors in manifest.json',
            )
        elif s.status == 'changed':
            r.failures.append(
                f'covered code changed: entry {s.entry.id} at {s.where}, action {s.entry.action}; '
                're-read the action, make the model match the code, run execlease verify, then '
                'execlease verify --update-coverage',
            )
        elif s.status == 'never synced':
            r.failures.append(
                f'covered code never synced: entry {s.entry.id} at {s.where}, action {s.entry.action}: '
                'no hash recorded yet; once the model describes it, run execlease verify '
                '--update-coverage',
            )


def map_results(m: Manifest, r: ModelResult) -> None:
    """Both directions of the map between the spec's actions and the covered entries, and the
    protocol code that the watch rules find outside them."""
    view = record.read(m, WorktreeSource(m.root))
    r.modules = modules.listing(view.module_list())
    mapped = action_map.check(m, view.model_index, view.actions())
    r.problems.extend(mapped.problems)
    r.failures.extend(mapped.gaps)

    watched = watch.check_worktree(m, r.coverage)
    r.problems.extend(watched.problems)
    r.failures.extend(u.message() for u in watched.uncovered)


def _notes(m: Manifest, r: ModelResult) -> None:
    if m.coverage.model_hash is not None:
        source = WorktreeSource(m.root)
        compared = record.compare(record.read(m, source), source)
        if compared.changes:
            r.notes.append(
                'the model (spec or a cfg) changed since the last sync ('
                + '; '.join(compared.changes)
                + '); once everything holds, '
                'run execlease verify --update-coverage to record it',
            )
        if compared.upgrade:
            r.notes.append(
                'the model record an older execlease wrote differs from the modules '
                'the model reads (' + '; '.join(compared.upgrade) + '); once '
                'everything holds, run execlease verify --update-coverage to record them'
            )
    r.notes += result.states_moved(r.jobs, {c.name: c.states for c in m.checks}, deep=False)


def finish(
    p: Prepared, ran: list[JobResult], t: Tools, stage: trace_stage.Stage | None = None
) -> ModelResult:
    """The model's result once its pool work is done (`ran`: its TLC jobs, in plan order;
    `stage`: its trace stage, whose tasks ran in the pool): coverage, trace jobs, the map, notes."""
    m, selection = p.manifest, p.selection
    translated = cfg.translation_note(
        sorted({q.job.config for q in p.planned if q.translated}), t.jar.tlc_version
    )
    notes = [translated, *p.notes, deadlock_default_note(m, ran)]
    r = ModelResult(m, jobs=ran, notes=[n for n in notes if n], plan=p.plan, tools=t)
    # The coverage check, and the trace jobs that need it, run once: in shard 1, not with --only.
    runs_coverage = selection is None or selection.runs_coverage
    if runs_coverage:
        coverage_results(m, r, t.settings.max_covered_bytes)
    if stage is not None:  # its tasks ran in the pool, beside the TLC jobs
        r.jobs += stage.results(r.coverage)
        r.notes += stage.notes
    r.failures += [j.message for j in r.jobs if j.outcome == DID_NOT_HOLD]
    r.problems += [j.message for j in r.jobs if j.outcome == COULD_NOT_RUN]
    if runs_coverage and m.covers_code:  # a model of no code has no map to check
        map_results(m, r)
    _notes(m, r)
    return r
