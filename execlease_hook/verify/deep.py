"""`verify --deep` and `verify --simulate`: the checks beyond their shipped bounds, for nightly CI.

--deep runs each check that declares a `deep` block in manifest.json with those constants
(spec/cfg_constants.py), `-workers` = the cores this process may use, TLC's `-fpmem`, a time budget
and TLC's progress reports on stderr; one deep job at a time by default, since each takes every
core. --simulate runs every check's cfg (with --deep: its deep constants) in TLC's random
simulation, `-simulate num=TRACES -depth DEPTH -seed SEED`, one worker per job so that a seed
gives the same behaviours again. Both report states per second.

Exit 0: every job searched all it was asked to (a deep run its whole state space, a simulation
all its behaviours) and found nothing. A job stopped by its budget is exit 2 and says what it
covered: it is not a pass of the full space. Mutations, findings, coverage and trace jobs are
plain `verify`'s.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlease_hook.core import outcomes
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.outcomes import COULD_NOT_RUN, HELD
from execlease_hook.manifest.model import Check, Manifest
from execlease_hook.spec import cfg_constants
from execlease_hook.tlc import modes
from execlease_hook.tlc.output import Verdict
from execlease_hook.tlc.result import JobResult
from execlease_hook.tlc.run import TlcJob

DEFAULT_BUDGET = 3600.0  # seconds per job, when neither --budget nor deep.timeout says
DEFAULT_FPMEM = 0.5  # of the heap, for TLC's set of fingerprints (TLC's own default: 0.25)
DEFAULT_DEPTH = 100  # TLC's default simulation depth
DEFAULT_TRACES = 10_000


@dataclass(frozen=True)
class Mode:
    deep: bool
    simulate: bool
    depth: int = DEFAULT_DEPTH
    traces: int = DEFAULT_TRACES
    seed: int = 0
    budget: float | None = None
    fpmem: float = DEFAULT_FPMEM
    workers: int = 1

    def words(self) -> str:
        if self.simulate:
            bounds = ', deep bounds' if self.deep else ''
            return f'--simulate: {self.traces:,} behaviours of depth {self.depth}, seed {self.seed}{bounds}'
        return f'--deep: {self.workers} workers, -fpmem {self.fpmem:g}'


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def mode_of(options: argparse.Namespace) -> Mode:
    simulate = bool(getattr(options, 'simulate', False))
    for name in ('depth', 'traces', 'seed'):
        if getattr(options, name, None) is not None and not simulate:
            raise CannotRun(f'--{name} is an option of --simulate; add --simulate or drop it')
    seed = (
        options.seed
        if getattr(options, 'seed', None) is not None
        else random.SystemRandom().randrange(1, 2**31)
    )
    fpmem = getattr(options, 'fpmem', None)
    if fpmem is not None and not 0 < fpmem < 1:
        raise CannotRun(
            f'--fpmem {fpmem:g}: give the fraction of the heap for fingerprints, between 0 and 1'
        )
    return Mode(
        deep=bool(getattr(options, 'deep', False)),
        simulate=simulate,
        depth=options.depth if getattr(options, 'depth', None) is not None else DEFAULT_DEPTH,
        traces=options.traces if getattr(options, 'traces', None) is not None else DEFAULT_TRACES,
        seed=seed,
        budget=getattr(options, 'budget', None),
        fpmem=fpmem if fpmem is not None else DEFAULT_FPMEM,
        workers=cores(),
    )


def _bounds(c: Check) -> str:
    assert c.deep is not None
    return ', '.join(f'{name} = {value}' for name, value in c.deep.constants)


def _progress_line(m: Manifest, c: Check, several: bool) -> Callable[[modes.Progress, float], None]:
    where = (
        f'{m.folder.relative_to(m.root).as_posix()}: '
        if several and m.folder.is_relative_to(m.root)
        else ''
    )

    def line(p: modes.Progress, seconds: float) -> None:
        rate = (p.distinct if p.distinct is not None else p.generated) / max(seconds, 1e-9)
        unit = 'distinct states/s' if p.distinct is not None else 'states/s'
        print(
            f'  {where}check {c.name}: {p.describe()} after {seconds:.0f} s ({rate:,.0f} {unit})',
            file=sys.stderr,
            flush=True,
        )

    return line


def plan(m: Manifest, t: Any, mode: Mode, several: bool = False) -> tuple[list[Any], list[str]]:
    """The model's deep or simulation jobs, and notes on the checks it leaves out."""
    from execlease_hook.verify import plan as verify_plan

    planned, notes = [], []
    for i, (p, c) in enumerate(zip(verify_plan.plan(m, True, t), m.checks)):
        config_text = p.job.config_text
        budget = mode.budget if mode.budget is not None else DEFAULT_BUDGET
        if mode.deep:
            if c.deep is None:
                notes.append(f'check {c.name} declares no "deep" block: not run by --deep')
                continue
            try:
                config_text = cfg_constants.override(
                    config_text.decode('utf-8'), c.deep.constants
                ).encode('utf-8')
            except (ValueError, UnicodeDecodeError) as e:
                raise CannotRun(
                    f'{m.path}: checks[{i}].deep.constants: {c.config}: {e}; give only '
                    'constants the cfg assigns'
                ) from None
            if mode.budget is None and c.deep.timeout is not None:
                budget = c.deep.timeout
        if mode.simulate:
            flags: tuple[str, ...] = (
                '-simulate',
                f'num={mode.traces}',
                '-depth',
                str(mode.depth),
                '-seed',
                str(mode.seed),
            )
        else:
            flags = ('-fpmem', f'{mode.fpmem:g}')
        job = dataclasses.replace(
            p.job,
            config_text=config_text,
            mode=flags,
            workers=1 if mode.simulate else mode.workers,
            timeout=budget,
            progress=_progress_line(m, c, several),
        )
        planned.append(dataclasses.replace(p, job=job))
    return planned, notes


def judge_for(mode: Mode, m: Manifest) -> Callable[[TlcJob, Verdict, bool], JobResult]:
    from execlease_hook.verify import judge as verify_judge

    checks = {c.name: c for c in m.checks}

    def judge(job: TlcJob, verdict: Verdict, cached: bool) -> JobResult:
        c = checks[job.name]
        label = f'check {job.name}' + (f' ({_bounds(c)})' if mode.deep else '')
        rate = _rate(verdict)
        if (
            verdict.outcome == 'error'
            and verdict.exit_code is None
            and (verdict.reason or '').startswith('timed out')
        ):
            if verdict.states is None:
                covered = (
                    'TLC had printed no progress report yet (one after the initial states, then '
                    'about one a minute)'
                )
            elif verdict.distinct is None:
                covered = f'TLC had generated {verdict.states:,} states at its last progress report'
            else:
                covered = (
                    f'TLC had covered {verdict.distinct:,} distinct states found, {verdict.states:,} '
                    f'generated, depth {verdict.depth}, at its last progress report'
                )
            return JobResult(
                job,
                verdict,
                cached,
                COULD_NOT_RUN,
                (
                    f'{label}: the time budget of {job.timeout:g} s ran out; {covered}: not a pass, the rest '
                    'was not searched; raise the budget (--budget, or "timeout" in the deep block) or lower '
                    'the bounds'
                ),
            )
        result = verify_judge.judge(job, verdict, cached)
        if verdict.outcome != 'passed':
            return dataclasses.replace(
                result, message=result.message.replace(f'check {job.name}', label, 1)
            )
        if mode.simulate:
            what = (
                f'{mode.traces:,} random behaviours of depth up to {mode.depth} (seed {mode.seed}), '
                f'{verdict.states or 0:,} states generated in {verdict.seconds:.1f} s ({rate}): '
                'no violation; random behaviours, not the whole state space'
            )
        else:
            what = (
                f'the whole state space: {verdict.distinct or 0:,} distinct states, {verdict.states or 0:,} '
                f'generated, depth {verdict.depth}, in {verdict.seconds:.1f} s ({rate}, '
                f'{job.workers} workers)'
            )
        return JobResult(job, verdict, cached, HELD, f'{label} passed: {what}')

    return judge


def _rate(v: Verdict) -> str:
    seconds = max(v.seconds, 1e-9)
    if v.distinct is not None:
        return f'{v.distinct / seconds:,.0f} distinct states/s'
    return f'{(v.states or 0) / seconds:,.0f} states/s'


def notes(m: Manifest, jobs: list[JobResult]) -> list[str]:
    found = []
    for j in jobs:
        c = next(c for c in m.checks if c.name == j.job.name)
        v = j.verdict
        if (
            c.deep is not None
            and c.deep.states is not None
            and v is not None
            and v.outcome == 'passed'
            and '-simulate' not in j.job.mode
            and v.distinct != c.deep.states
        ):
            found.append(
                f'check {c.name} (deep): {v.distinct:,} distinct states, {c.deep.states:,} '
                "recorded in its deep block: the model's meaning changed?"
            )
    return found


def run_suite(options: argparse.Namespace, outputs: Any, root: Path) -> int:
    from execlease_hook.core import term
    from execlease_hook.git import repo
    from execlease_hook.tlc import jar
    from execlease_hook.tlc.cache import ResultCache, results_folder
    from execlease_hook.tlc.jar import Tools
    from execlease_hook.verify import models, pool, show
    from execlease_hook.verify.result import ModelResult, Refused, exit_code, results_json

    flag = '--simulate' if getattr(options, 'simulate', False) else '--deep'
    for name, given in (
        ('--quick', options.quick),
        ('--update-coverage', options.update_coverage),
        ('--shard', getattr(options, 'shard', None)),
        ('--only', getattr(options, 'only', None)),
    ):
        if given:
            raise CannotRun(
                f'{flag} runs the checks beyond their shipped bounds only; drop {name} '
                '(plain `execlease verify` runs the rest)'
            )
    mode = mode_of(options)
    verbosity = getattr(options, 'verbose', 0) - getattr(options, 'quiet', 0)
    loaded = models.load(
        root, options.model
    )  # a refused model is its own exit 2 (verify/models.py)
    manifests = [m for m in loaded if not isinstance(m, Refused)]
    from execlease_hook.tlc import pin

    default, t = pin.default_tools(root, manifests, jar.find_java())
    if t.jar.warning:
        print(t.jar.warning, file=sys.stderr, flush=True)
    several = len(loaded) > 1

    def planned_model(m: Manifest) -> tuple[Manifest, list[Any], list[str], Tools]:
        tm = pin.tools_for(m, default, t.java, root)
        return (m, *plan(m, tm, mode, several), tm)

    from execlease_hook.verify.plan import check_settings

    check_settings()
    order = models.each(loaded, planned_model)
    planned = [x for x in order if not isinstance(x, Refused)]
    if len(planned) == len(order) and not any(jobs for _, jobs, _, _ in planned):
        raise CannotRun(
            '--deep: no check declares a "deep" block (constants at larger bounds) in '
            + ', '.join(str(m.path.relative_to(root)) for m in manifests)
            + '; add one, e.g. "deep": {"constants": {"MaxGen": "4"}}'
        )
    if verbosity >= 0:
        show.print_lines(
            term.wrap(
                f'TLA+ tools: {t.jar.tlc_version}, sha256 {t.jar.sha256[:16]}... '
                f'({t.jar.source}); Java {t.java.major} ({t.java.path}); {mode.words()}'
            )
        )
    cache = ResultCache(results_folder(root), enabled=not options.no_cache)
    at_once = options.jobs or (cores() if mode.simulate else 1)
    works = [
        pool.Work(m, jobs, judge_for(mode, m), show.progress_of(m, several, verbosity))
        for m, jobs, _, _ in planned
    ]
    ran = iter(pool.run(works, t, cache, at_once))
    results: list[ModelResult | Refused] = []
    for x in order:
        if isinstance(x, Refused):
            results.append(x)
            show.print_refused(x)
            continue
        m, jobs, skipped, tm = x
        done = next(ran)
        r = ModelResult(m, jobs=done, notes=[*skipped, *notes(m, done)], tools=tm)
        r.plan = [f'check:{p.job.name}' for p in jobs]
        r.failures = [j.message for j in done if j.outcome == outcomes.DID_NOT_HOLD]
        r.problems = [j.message for j in done if j.outcome == COULD_NOT_RUN]
        results.append(r)
        show.print_model(r, max(verbosity + 1, 0) if verbosity >= 0 else verbosity)
    code = exit_code(results)
    from execlease_hook.verify import report_build

    data = results_json(results, t, code, root)
    data['mode'] = {
        'deep': mode.deep,
        'simulate': mode.simulate,
        'fpmem': mode.fpmem,
        'workers': 1 if mode.simulate else mode.workers,  # per TLC job
        **(
            {'traces': mode.traces, 'depth': mode.depth, 'seed': mode.seed} if mode.simulate else {}
        ),
    }
    outputs.finish(report_build.verify_report(results, data, code, repo.head(root)))
    if cache.problem:
        show.print_lines(f'note: {cache.problem}')
    result = outcomes.RESULT_TEXT[code]
    if code == 0:
        result += f' ({mode.words()}; checks only)'
    if mode.simulate:
        result += f'; reproduce with --seed {mode.seed}'
    show.print_lines('', term.paint(result, 'green' if code == 0 else 'red'))
    return code
