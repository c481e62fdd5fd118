"""`verify --deep` and `verify --simulate`: the checks beyond their shipped bounds, for nightly CI.

--deep runs each check that declares a `deep` block in manifest.json with those constants
(spec/cfg_constants.py), `-workers` = the cores this process may use, TLC's `-fpmem`, a time budget
and its live progress line on stderr (verify/live.py, as plain verify's); one deep job at a time by default, since each takes every
core. --simulate runs every check's cfg (with --deep: its deep constants) in TLC's random
simulation, `-simulate num=TRACES -depth DEPTH -seed SEED`, one worker per job so that a seed
gives the same behaviours again. Both report states per second.

Exit 0: every job searched all it was asked to (a deep run its whole state space, a simulation
all its behaviours) and found nothing. A job stopped by its budget is exit 2 and says what it
covered: it is not a pass of the full space. Mutations, findings, coverage and trace jobs are
plain `verify`'s.
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlease_hook.core import outcomes
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD, HELD
from execlease_hook.manifest.model import Manifest
from execlease_hook.spec import cfg_constants
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.output import Verdict
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import plan, violations
from execlease_hook.verify.plan import Prepared
from execlease_hook.verify.result import ModelResult, states_moved

DEFAULT_BUDGET = 3600.0  # seconds per job, when neither --budget nor deep.timeout says
DEFAULT_FPMEM = 0.5  # of the heap, for TLC's set of fingerprints (TLC's own default: 0.25)
DEFAULT_DEPTH = 100  # TLC's default simulation depth
DEFAULT_TRACES = 10_000
SIMULATE_OPTIONS = ('depth', 'traces', 'seed')  # the options of --simulate alone


@dataclass(frozen=True)
class Beyond:
    """What --deep and --simulate ask of a run (verify/pipeline.Mode.beyond)."""

    deep: bool
    simulate: bool
    depth: int = DEFAULT_DEPTH
    traces: int = DEFAULT_TRACES
    seed: int = 0
    budget: float | None = None
    fpmem: float = DEFAULT_FPMEM
    workers: int = 1

    @classmethod
    def of(cls, options: Any) -> Beyond:
        """From `execlease verify`'s options (argparse's: None, not given); a seed not given is a
        new one."""
        for name in SIMULATE_OPTIONS:
            if getattr(options, name) is not None and not options.simulate:
                raise CannotRun(f'--{name} is an option of --simulate; add --simulate or drop it')
        fpmem, seed = options.fpmem, options.seed
        if fpmem is not None and not 0 < fpmem < 1:
            raise CannotRun(
                f'--fpmem {fpmem:g}: give the fraction of the heap for fingerprints, between 0 and 1'
            )
        seed = random.SystemRandom().randrange(1, 2**31) if seed is None else seed
        # An option not given keeps its field's default.
        given = {name: getattr(options, name) for name in ('depth', 'traces', 'fpmem')}
        given = {name: value for name, value in given.items() if value is not None}
        deep, simulate = bool(options.deep), bool(options.simulate)
        return cls(deep, simulate, seed=seed, budget=options.budget, workers=cores(), **given)

    def words(self) -> str:
        if self.simulate:
            bounds = ', deep bounds' if self.deep else ''
            return f'--simulate: {self.traces:,} behaviours of depth {self.depth}, seed {self.seed}{bounds}'
        return f'--deep: {self.workers} workers, -fpmem {self.fpmem:g}'

    def at_once(self) -> int:
        """TLC jobs at once without --jobs: a deep job takes every core, a simulation one."""
        return cores() if self.simulate else 1

    def to_json(self) -> dict[str, Any]:
        data = {'deep': self.deep, 'simulate': self.simulate, 'fpmem': self.fpmem}
        data['workers'] = 1 if self.simulate else self.workers  # per TLC job
        if self.simulate:
            data.update(traces=self.traces, depth=self.depth, seed=self.seed)
        return data

    def verdict(self, code: int) -> str:
        result = outcomes.RESULT_TEXT[code]
        if code == 0:
            result += f' ({self.words()}; checks only)'
        if self.simulate:
            result += f'; reproduce with --seed {self.seed}'
        return result


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def prepare(m: Manifest, t: Any, beyond: Beyond) -> Prepared:
    """The model's deep or simulation jobs, and notes on the checks it leaves out."""
    planned, notes = [], []
    flags: tuple[str, ...] = ('-fpmem', f'{beyond.fpmem:g}')
    if beyond.simulate:
        flags = (
            '-simulate',
            f'num={beyond.traces}',
            '-depth',
            str(beyond.depth),
            '-seed',
            str(beyond.seed),
        )
    for i, (p, c) in enumerate(zip(plan.plan(m, True, t), m.checks)):
        config_text = p.job.config_text
        budget = beyond.budget if beyond.budget is not None else DEFAULT_BUDGET
        if beyond.deep:
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
            if beyond.budget is None and c.deep.timeout is not None:
                budget = c.deep.timeout
        job = dataclasses.replace(
            p.job,
            config_text=config_text,
            mode=flags,
            workers=1 if beyond.simulate else beyond.workers,
            timeout=budget,
        )
        planned.append(dataclasses.replace(p, job=job))
    return Prepared(m, planned, plan.names(planned), notes=notes)


def require_jobs(prepared: list[Prepared], root: Path) -> None:
    """Every model planned, and not one job among them: the manifests need a deep block."""
    if not any(p.planned for p in prepared):
        raise CannotRun(
            '--deep: no check declares a "deep" block (constants at larger bounds) in '
            + ', '.join(str(p.manifest.path.relative_to(root)) for p in prepared)
            + '; add one, e.g. "deep": {"constants": {"MaxGen": "4"}}'
        )


def judge_for(beyond: Beyond, m: Manifest) -> Callable[[TlcJob, Verdict, bool], JobResult]:
    checks = {c.name: c for c in m.checks}

    def judged(job: TlcJob, verdict: Verdict, cached: bool) -> JobResult:
        deep = checks[job.name].deep
        bounds = ', '.join(f'{name} = {value}' for name, value in deep.constants) if deep else ''
        label = f'check {job.name}' + (f' ({bounds})' if beyond.deep else '')
        per_second = max(verdict.seconds, 1e-9)
        rate = (
            f'{(verdict.states or 0) / per_second:,.0f} states/s'
            if verdict.distinct is None
            else f'{verdict.distinct / per_second:,.0f} distinct states/s'
        )
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
            message = (
                f'{label}: the time budget of {job.timeout:g} s ran out; {covered}: not a pass, the rest '
                'was not searched; raise the budget (--budget, or "timeout" in the deep block) or lower '
                'the bounds'
            )
            return JobResult(job, verdict, cached, COULD_NOT_RUN, message)
        result = violations.judge(job, verdict, cached)
        if verdict.outcome != 'passed':
            return dataclasses.replace(
                result, message=result.message.replace(f'check {job.name}', label, 1)
            )
        if beyond.simulate:
            what = (
                f'{beyond.traces:,} random behaviours of depth up to {beyond.depth} (seed {beyond.seed}), '
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

    return judged


def result(p: Prepared, ran: list[JobResult], t: Any) -> ModelResult:
    """The model's result: its jobs alone (coverage, the map and trace jobs are plain verify's)."""
    m = p.manifest
    r = ModelResult(m, jobs=ran, notes=list(p.notes), tools=t, plan=p.plan)
    deep = {c.name: c.deep.states for c in m.checks if c.deep is not None}
    r.notes += states_moved([j for j in ran if '-simulate' not in j.job.mode], deep, deep=True)
    r.failures = [j.message for j in ran if j.outcome == DID_NOT_HOLD]
    r.problems = [j.message for j in ran if j.outcome == COULD_NOT_RUN]
    return r
