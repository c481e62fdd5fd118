"""The slow stage, `execlease verify`.

Exit 0: every check passed, every mutation still fails on its named property, every known
finding still reproduces, no covered entry changed. Exit 1: one of those did not hold. Exit 2:
something could not run; every exit-1 failure is still printed, and 2 is never a pass.

About 550 lines, kept whole: planning a model's jobs, judging each verdict and gathering the
model's result (ModelResult) are one pass over one model. Around it, each part with a job of its
own is apart: TLC runs in tlc.py, the one pool of every model's jobs in pool.py (longest first,
schedule.py), the words in report.py, a sync in sync.py, trace validation in trace_suite.py, a
commit's tree in push_range.py, the deep tier in deep.py.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlease_hook import manifest as manifest_mod
from execlease_hook import paths, report, settings, spec_scan, tlc, tools
from execlease_hook.cache import ResultCache, results_folder
from execlease_hook.errors import CannotRun
from execlease_hook.manifest import Manifest
from execlease_hook.report import COULD_NOT_RUN, DID_NOT_HOLD, HELD, JobResult
from execlease_hook.tlc import TlcJob, Verdict

if TYPE_CHECKING:
    from execlease_hook.coverage import EntryStatus

NO_LONGER_FAILS = (
    'mutation {name} no longer fails: the check has lost the ability to catch it; '
    'fix the model before anything else'
)
WRONG_REASON = '{what} fails for the wrong reason: expected {expected}, got {got}'
NO_LONGER_REPRODUCES = (
    '{id} no longer reproduces: move its config into checks in manifest.json and update NOTES.md'
)


@dataclass(frozen=True)
class Tools:
    jar: tools.ToolJar
    java: tools.Java


@dataclass
class ModelResult:
    manifest: Manifest
    jobs: list[JobResult] = field(default_factory=list)
    coverage: list[EntryStatus] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)      # exit 1
    problems: list[str] = field(default_factory=list)      # exit 2
    notes: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)         # --update-coverage
    plan: list[str] = field(default_factory=list)          # 'kind:name' of every job planned (before --shard)

    @property
    def exit_code(self) -> int:
        if self.problems:
            return 2
        return 1 if self.failures else 0


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise CannotRun(f'{path}: cannot read the {what}: {e.strerror}; restore it or fix manifest.json')


def _timeout(value: float | None) -> float:
    if value is not None:
        return value
    return settings.seconds_env('EXECLEASE_TLC_TIMEOUT', tlc.DEFAULT_TIMEOUT)


def _workers() -> int:
    return settings.count_env('EXECLEASE_TLC_WORKERS', 1, 1, 256)


@dataclass(frozen=True)
class PlannedJob:
    job: TlcJob
    problem: str | None = None   # set: cannot run (e.g. a mutation anchor that does not match once)
    translated: bool = False     # the cfg's CHECK_DEADLOCK given to TLC as its flag (tlc_config)


def _shown(m: Manifest, path: Path) -> str:
    return path.relative_to(m.root).as_posix() if path.is_relative_to(m.root) else str(path)


def plan(m: Manifest, quick: bool, t: Tools) -> list[PlannedJob]:
    spec_path = m.folder / m.spec
    spec_text = _read(spec_path, 'spec')
    modules = paths.modules_beside(m.root, spec_path)   # each inside the repository
    cfgs: dict[str, bytes] = {}
    # Refuse, before anything runs or is read from the cache, a model that may print or stop
    # the search (spec_scan.py): exit 2 naming the file and line.
    owners = {c.config: f'check {c.name}' for c in reversed(m.checks)}
    for mu in () if quick else m.mutations:
        owners.setdefault(mu.config, f'mutation {mu.name}')
    for f in () if quick else m.findings:
        owners.setdefault(f.config, f'finding {f.id}')
    spec_scan.refuse(
        [(_shown(m, spec_path.parent / name), text) for name, text in ((spec_path.name, spec_text), *modules)],
        [(_shown(m, m.folder / c), cfgs.setdefault(c, _read(m.folder / c, f'config of {owner}')))
         for c, owner in owners.items()],
    )

    def job(kind: str, name: str, config: str, text: bytes, deadlock: bool | None, timeout: float | None,
            expect: str | None) -> PlannedJob:
        if config not in cfgs:
            cfgs[config] = _read(m.folder / config, f'config of {kind} {name}')
        from execlease_hook import tlc_config

        given = tlc_config.prepare(cfgs[config], config, deadlock, t.jar.tlc_version, f'{kind} {name}', expect)
        return PlannedJob(TlcJob(
            kind=kind, name=name, spec=spec_path.name, spec_text=text, config=config,
            config_text=given.text, modules=modules, java=t.java.path, jar=t.jar.path,
            deadlock=given.deadlock, timeout=_timeout(timeout), workers=_workers(), expect=expect,
        ), given.problem, given.translated)

    planned = [job('check', c.name, c.config, spec_text, c.deadlock, c.timeout, None) for c in m.checks]
    if quick:
        return planned
    from execlease_hook import spec_mutation

    for mu in m.mutations:
        try:
            mutated = spec_mutation.apply(spec_text, m.spec, mu)
        except CannotRun as e:
            planned.append(dataclasses.replace(
                job('mutation', mu.name, mu.config, spec_text, mu.deadlock, mu.timeout, mu.violates),
                problem=str(e)))
            continue
        uses = spec_scan.scan_module(f'{_shown(m, spec_path)} (mutation {mu.name})', mutated)
        if uses:
            planned.append(dataclasses.replace(
                job('mutation', mu.name, mu.config, spec_text, mu.deadlock, mu.timeout, mu.violates),
                problem=f'mutation {mu.name}: ' + spec_scan.refusal(uses)))
            continue
        planned.append(job('mutation', mu.name, mu.config, mutated, mu.deadlock, mu.timeout, mu.violates))
    for f in m.findings:
        planned.append(job('finding', f.id, f.config, spec_text, f.deadlock, f.timeout, f.violates))
    return planned


def judge(job: TlcJob, verdict: Verdict, cached: bool) -> JobResult:
    label = {'check': 'check', 'mutation': 'mutation', 'finding': 'finding'}[job.kind] + f' {job.name}'
    if verdict.outcome == 'error':
        return JobResult(job, verdict, cached, COULD_NOT_RUN, f'{label} ({job.config}): TLC error: {verdict.reason}')
    if job.kind == 'check':
        if verdict.outcome == 'passed':
            return JobResult(job, verdict, cached, HELD, f'{label} passed')
        return JobResult(
            job, verdict, cached, DID_NOT_HOLD,
            f'{label} ({job.config}) failed: {verdict.describe()}; a real bug or a modelling error: '
            'walk its counterexample (printed above) step by step against the cited code', show_trace=True,
        )
    assert job.expect is not None
    if verdict.outcome == 'passed':
        message = (
            NO_LONGER_FAILS.format(name=job.name) if job.kind == 'mutation'
            else NO_LONGER_REPRODUCES.format(id=job.name)
        )
        return JobResult(job, verdict, cached, DID_NOT_HOLD, message)
    if verdict.kind == 'property' and verdict.property is None:
        return JobResult(
            job, verdict, cached, COULD_NOT_RUN,
            f'{label}: TLC reported a temporal property violation without naming it, and one TLC '
            f'run per PROPERTY entry of {job.config} did not single it out; give it a cfg whose '
            f'only PROPERTY is {job.expect}',
            show_trace=True,
        )
    from execlease_hook import violations

    if violations.matches(job, verdict, job.expect):
        what = 'still fails' if job.kind == 'mutation' else 'still reproduces'
        return JobResult(job, verdict, cached, HELD, f'{label} {what} on {job.expect}')
    return JobResult(
        job, verdict, cached, DID_NOT_HOLD,
        WRONG_REASON.format(what=label, expected=job.expect, got=violations.got(verdict)), show_trace=True,
    )


def coverage_results(m: Manifest, r: ModelResult) -> None:
    from execlease_hook import coverage

    r.coverage = coverage.compare(m, coverage.WorktreeSource(m.root))
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
                f'covered code changed: entry {s.entry.id} at {s.where}, action {s.entry.action}, has no '
                'recorded hash yet; once the model describes it run execlease verify --update-coverage',
            )


def map_results(m: Manifest, r: ModelResult) -> None:
    """Both directions of the map between the spec's actions and the covered entries, and the
    protocol code that the watch rules find outside them."""
    from execlease_hook import action_map, coverage, model_record

    view = model_record.read(m, coverage.WorktreeSource(m.root))
    mapped = action_map.check(m, view.index, view.actions())
    r.problems.extend(mapped.problems)
    r.failures.extend(mapped.gaps)
    from execlease_hook import watch

    watched = watch.check_worktree(m, r.coverage)
    r.problems.extend(watched.problems)
    r.failures.extend(u.message() for u in watched.uncovered)


def _notes(m: Manifest, r: ModelResult) -> None:
    from execlease_hook import coverage

    if m.coverage.model_hash is not None:
        from execlease_hook import model_record

        source = coverage.WorktreeSource(m.root)
        changed = model_record.changes(model_record.read(m, source), source)
        if changed:
            r.notes.append(
                'the model (spec or a cfg) changed since the last sync ('
                + '; '.join(changed) + '); once everything holds, '
                'run execlease verify --update-coverage to record it',
            )
    recorded = {c.name: c.states for c in m.checks}
    for j in r.jobs:
        if j.job.kind != 'check' or j.verdict is None or j.verdict.outcome != 'passed':
            continue
        before = recorded.get(j.job.name)
        if before is not None and j.verdict.distinct != before:
            r.notes.append(
                f'check {j.job.name}: {j.verdict.distinct:,} distinct states, {before:,} recorded at '
                'the last sync: the model\'s meaning changed?',
            )


@dataclass
class Prepared:
    """One model's jobs, planned and selected, before any runs (`plan`: every job planned)."""
    manifest: Manifest
    planned: list[PlannedJob]
    plan: list[str]
    selection: Any = None


def prepare(m: Manifest, t: Tools, quick: bool, selection: Any = None) -> Prepared:
    """`selection`: a shard.Selection (--shard K/N, --only NAME...), or None for every job."""
    planned = plan(m, quick, t)
    names = [f'{p.job.kind}:{p.job.name}' for p in planned]
    if selection is not None:
        from execlease_hook import shard

        planned = shard.select(m, planned, [p.job for p in planned], selection)
        names = [f'{p.job.kind}:{p.job.name}' for p in planned]
        if selection.sharded:
            everything = plan(m, quick, t)
            names = [f'{p.job.kind}:{p.job.name}' for p in shard.select(
                m, everything, [p.job for p in everything], shard.Selection(only=selection.only))]
    return Prepared(m, planned, names, selection)


def finish(p: Prepared, ran: list[JobResult], t: Tools, stage: Any = None) -> ModelResult:
    """The model's result once its pool work is done (`ran`: its TLC jobs, in plan order;
    `stage`: its trace_stage.Stage, whose tasks ran in the pool): coverage, trace jobs, the map, notes."""
    m, selection = p.manifest, p.selection
    r = ModelResult(m)
    r.plan = p.plan
    from execlease_hook import tlc_config, violations

    translated = tlc_config.translation_note(
        sorted({q.job.config for q in p.planned if q.translated}), t.jar.tlc_version)
    r.notes.extend([translated] if translated else [])
    r.jobs = ran
    if (migration := violations.deadlock_default_note(m, r.jobs)) is not None:
        r.notes.append(migration)
    # The coverage check, and the trace jobs that need it, run once: in shard 1, not with --only.
    runs_coverage = selection is None or selection.runs_coverage
    if runs_coverage:
        coverage_results(m, r)
    if stage is not None:   # its tasks ran in the pool, beside the TLC jobs
        r.jobs += stage.results(r.coverage)
    for j in r.jobs:
        if j.outcome == DID_NOT_HOLD:
            r.failures.append(j.message)
        elif j.outcome == COULD_NOT_RUN:
            r.problems.append(j.message)
    if runs_coverage and m.covers_code:    # a model of no code has no map to check
        map_results(m, r)
    _notes(m, r)
    return r


def verify_model(
        m: Manifest, t: Tools, quick: bool, cache: ResultCache, jobs: int,
        progress: Callable[[JobResult], None] = lambda r: None, selection: Any = None,
) -> ModelResult:
    """One model alone (run_suite runs every model's jobs in one pool)."""
    from execlease_hook import pool

    from execlease_hook import trace_stage

    p = prepare(m, t, quick, selection)
    stage = trace_stage.of_model(p, t, quick, cache, progress)
    (ran,) = pool.run([trace_stage.work(p, stage, judge, progress)], t, cache, jobs)
    return finish(p, ran, t, stage)


def exit_code(results: Sequence[ModelResult]) -> int:
    codes = [r.exit_code for r in results]
    return 2 if 2 in codes else max(codes, default=0)


def results_json(results: Sequence[ModelResult], t: Tools, code: int) -> dict[str, Any]:
    return {
        'exit_code': code,
        'result': report.RESULT_TEXT[code],
        'tools': {
            'jar': str(t.jar.path), 'sha256': t.jar.sha256, 'source': t.jar.source,
            'verified': t.jar.verified, 'tlc_version': t.jar.tlc_version,
        },
        'java': {'path': str(t.java.path), 'major': t.java.major, 'version': t.java.version_text},
        'models': [
            {
                'manifest': str(r.manifest.path),
                'exit_code': r.exit_code,
                'jobs': [report.result_json(j) for j in r.jobs],
                'coverage': [report.entry_json(s) for s in r.coverage],
                'did_not_hold': r.failures,
                'could_not_run': r.problems,
                'notes': r.notes,
                'moved': r.moved,
            }
            for r in results
        ],
    }


def _print(*lines: str) -> None:
    for line in lines:
        print(line, flush=True)


def print_model(r: ModelResult, verbosity: int = 0) -> None:
    from execlease_hook import term

    m = r.manifest
    _print('', f'model {m.folder.relative_to(m.root) if m.folder.is_relative_to(m.root) else m.folder}:')
    if verbosity >= 0:
        _print(*('  ' + line for line in report.summary_table(r.jobs, term.width() - 2)))
    if verbosity > 0:
        _print(*(term.wrap(f'  {j.message}') for j in r.jobs if j.outcome == HELD))
    if r.coverage:
        counts: dict[str, int] = {}
        for s in r.coverage:
            counts[s.status] = counts.get(s.status, 0) + 1
        _print('  coverage: ' + ', '.join(f'{n} {k}' for k, n in sorted(counts.items())))
    # What the accepted traces exercised (lines per action): the trace jobs' own summary.
    _print(*(term.wrap(f'  {j.message}') for j in r.jobs if j.job.kind == 'traces' and j.outcome == HELD))
    shown: dict[str | None, str] = {}   # error reason -> the job whose details were printed
    for j in r.jobs:
        if j.show_trace and j.verdict is not None and j.verdict.trace:
            _print('', f'{j.job.kind} {j.job.name} ({j.job.config}):')
            abstract = {a.action: a.reason for a in r.manifest.coverage.abstract}
            _print(*report.counterexample(j.verdict, r.coverage, abstract))
        elif j.outcome == COULD_NOT_RUN and j.verdict is not None and j.verdict.outcome == 'error':
            # A parse error in the spec fails every job the same way: show its details once.
            label = f'{j.job.kind} {j.job.name}'
            if j.verdict.reason in shown:
                _print(term.wrap(f'{label} ({j.job.config}): could not run: the same error as '
                                 f'{shown[j.verdict.reason]}'))
                continue
            shown[j.verdict.reason] = label
            _print('', f'{label} ({j.job.config}): could not run')
            _print(*report.error_details(j.verdict))
    for note in r.notes:
        _print(term.wrap(f'note: {note}'))
    if r.moved:
        _print('', f'coverage updated in {m.path.relative_to(m.root).as_posix()}:')
        _print(*(term.wrap(f'  {line}') for line in r.moved))
    for f in r.failures:
        _print(term.wrap(f'DID NOT HOLD: {f}'))
    for p in r.problems:
        _print(term.wrap(f'COULD NOT RUN: {p}'))


def _progress(result: JobResult, model: str = '', live: Any = None) -> None:
    # Progress goes to stderr as each job ends (and, while jobs run, progress_line.py's live
    # lines, which `live` clears first), so a long run shows it is alive.
    from execlease_hook import term

    seconds = '-' if result.verdict is None else f'{result.verdict.seconds:.1f} s'
    cached = ', cached' if result.cached else ''
    line = term.wrap(f'  {model}{result.job.kind} {result.job.name}: {result.outcome} ({seconds}{cached})',
                     term.width(sys.stderr))
    if live is not None:
        live.print(line)
    else:
        print(line, file=sys.stderr, flush=True)


def _progress_of(m: Manifest, several: bool, verbosity: int, live: Any = None) -> Callable[[JobResult], None]:
    """The progress line of one model's jobs; named by the model folder when the pool holds
    several models' jobs at once."""
    if verbosity < 0:
        return lambda r: None
    prefix = f'{_shown(m, m.folder)}: ' if several else ''
    return lambda r: _progress(r, prefix, live)


def run(options: argparse.Namespace) -> int:
    from execlease_hook.formats.emit import Outputs

    outputs = Outputs('verify', getattr(options, 'format', None), getattr(options, 'output', None),
                      options.json)
    outputs.start()
    try:
        # A machine format on stdout: the human text goes to stderr.
        with outputs.human_text():
            return _run(options, outputs)
    except CannotRun as e:
        outputs.fail(str(e), 2)
        raise
    except KeyboardInterrupt as e:
        from execlease_hook import signals

        outputs.fail(*signals.interrupted(e))
        raise


def _run(options: argparse.Namespace, outputs: Any) -> int:
    from execlease_hook import git

    if options.update_coverage and options.quick:
        raise CannotRun('--update-coverage runs the full suite; drop --quick')
    root = git.repo_root()
    if getattr(options, 'deep', False) or getattr(options, 'simulate', False):
        if getattr(options, 'rev', None) or getattr(options, 'pushed', False):
            raise CannotRun('--deep and --simulate run on the working tree; drop --rev/--pushed')
        from execlease_hook import deep  # the checks beyond their shipped bounds

        return deep.run_suite(options, outputs, root)
    for name in ('depth', 'traces', 'seed', 'budget', 'fpmem'):
        if getattr(options, name, None) is not None:
            owner = '--simulate' if name in ('depth', 'traces', 'seed') else '--deep and --simulate'
            raise CannotRun(f'--{name} is an option of {owner}; add it or drop --{name}')
    if getattr(options, 'rev', None) or getattr(options, 'pushed', False):
        from execlease_hook import push_range  # a commit's tree, checked out alone

        return push_range.verify(options, root, outputs)
    return run_suite(options, outputs, root, root)


def run_suite(options: argparse.Namespace, outputs: Any, tree: Path, root: Path) -> int:
    """The suite on the models under `tree` (the working tree, or a commit checked out alone),
    with the TLA+ tools and the result cache of the repository at `root`; `outputs` (a
    formats.emit.Outputs) receives the reports."""
    from execlease_hook import git

    selection = None
    if getattr(options, 'shard', None) or getattr(options, 'only', None):
        from execlease_hook import shard

        if options.update_coverage:
            raise CannotRun('--update-coverage runs the full suite; drop --shard and --only')
        index, count = shard.parse_shard(options.shard) if options.shard else (1, 1)
        selection = shard.Selection(index, count, tuple(options.only or ()))
    from execlease_hook import term

    verbosity = getattr(options, 'verbose', 0) - getattr(options, 'quiet', 0)
    manifests = [manifest_mod.load(p, tree) for p in manifest_mod.find_models(tree, options.model)]
    t = Tools(tools.resolve_jar(root), tools.find_java(results_folder(root).parent))
    if t.jar.warning:
        print(t.jar.warning, file=sys.stderr, flush=True)
    if verbosity >= 0:
        _print(term.wrap(f'TLA+ tools: {t.jar.tlc_version}, sha256 {t.jar.sha256[:16]}... '
                         f'({t.jar.source}); Java {t.java.major} ({t.java.path})'))
    cache = ResultCache(results_folder(root), enabled=not options.no_cache)
    tlc.sweep(t.jar.path)   # what a killed run left: its temporary folders, its JVM's half-made caches
    from execlease_hook import housekeeping

    housekeeping.drain()    # this run's notes only
    jobs = options.jobs or os.cpu_count() or 1
    # Every model's TLC jobs in one pool, longest first (pool.py); then each model's result in
    # order. A model that cannot be planned stops the run where a model-by-model run stopped:
    # the models before it are run and reported, then its error (exit 2).
    prepared: list[Prepared] = []
    stop: CannotRun | None = None
    for m in manifests:
        try:
            prepared.append(prepare(m, t, options.quick, selection))
        except CannotRun as e:
            stop = e
            break
    from execlease_hook import pool, schedule, trace_stage

    from execlease_hook.progress_line import Live

    live = Live() if verbosity >= 0 else None   # each running TLC job's live line, on stderr
    try:
        progress = [_progress_of(p.manifest, len(manifests) > 1, verbosity, live) for p in prepared]
        stages = [trace_stage.of_model(p, t, options.quick, cache, progress[k], live) for k, p in enumerate(prepared)]
        ran = pool.run([trace_stage.work(p, stages[k], judge, progress[k]) for k, p in enumerate(prepared)],
                       t, cache, jobs, schedule.Timings(results_folder(root).parent), live)
        results = []
        for k, p in enumerate(prepared):
            r = finish(p, ran[k], t, stages[k])
            if options.update_coverage:
                from execlease_hook import sync

                sync.update_coverage(r, getattr(options, 'reason', None))
            results.append(r)
            print_model(r, verbosity)
    finally:
        if live is not None:
            live.close()
    if stop is not None:
        raise stop
    code = exit_code(results)
    if outputs.wanted:   # --json, --format: the report (its JSON, the counterexamples located)
        from execlease_hook.formats import build

        data = results_json(results, t, code)
        data['quick'] = bool(options.quick)
        if selection is not None:
            data['shard'] = selection.to_json()
        outputs.finish(build.verify_report(results, data, code, git.head(root) if tree == root else None))
    if cache.problem:
        _print(f'note: {cache.problem}')
    for note in housekeeping.drain():   # what the JVM's caches could not save: same verdicts, slower
        _print(term.wrap(f'note: {note}'))
    if t.jar.warning:
        _print(t.jar.warning)
    result = report.RESULT_TEXT[code]
    if options.quick and code == 0:
        result += ' (--quick: checks and coverage only; mutations, findings, trace jobs and code mutations were not run)'
    if selection is not None and code == 0:
        result += (f' (--shard {selection.index}/{selection.count}: this shard\'s jobs only; '
                   '`execlease report merge` gives the verdict)' if selection.sharded
                   else ' (--only: the named jobs only, no coverage check)')
    _print('', term.paint(term.wrap(result), 'green' if code == 0 else 'red'))
    return code
