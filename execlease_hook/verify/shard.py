"""`verify --shard K/N` and `--only NAME...`: which jobs of a model this run takes (`--only` also
names trace jobs and code mutations, verify/trace_stage.py).

Shards split the planned jobs deterministically (the same manifest gives every CI machine the
same split) and balance them by cost: a check weighs its recorded distinct states, a mutation
or finding the states of the check that uses the same cfg (else the largest recorded count), so
the big jobs spread out first. The coverage check runs in shard 1 only; `execlease report merge`
puts the shards' JSON reports back together into one verdict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from execlease_hook.core.errors import CannotRun, CannotRunAny
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.kinds import KINDS


@dataclass(frozen=True)
class Selection:
    index: int = 1  # K, 1-based
    count: int = 1  # N
    only: tuple[str, ...] = ()

    @property
    def sharded(self) -> bool:
        return self.count > 1

    @property
    def runs_coverage(self) -> bool:
        return self.index == 1 and not self.only

    def to_json(self) -> dict[str, object]:
        return {'index': self.index, 'count': self.count, 'only': list(self.only)}


def parse_shard(text: str) -> tuple[int, int]:
    match = re.fullmatch(r'(\d+)/(\d+)', text)
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise CannotRun(f'--shard {text}: give K/N with 1 <= K <= N, e.g. --shard 2/4')
    return int(match.group(1)), int(match.group(2))


def weight(m: Manifest, job: TlcJob) -> int:
    by_config = {c.config: c.states for c in m.checks if c.states is not None}
    largest = max(by_config.values(), default=1)
    if KINDS[job.kind].records_states:  # its own recorded count
        states = next((c.states for c in m.checks if c.name == job.name), None)
        return states if states is not None else largest
    return by_config.get(job.config, largest)


def assign(m: Manifest, jobs: Sequence[TlcJob], count: int) -> list[int]:
    """The 0-based shard of each job: greedy, heaviest first, onto the lightest shard."""
    order = sorted(
        range(len(jobs)), key=lambda i: (-weight(m, jobs[i]), jobs[i].kind, jobs[i].name)
    )
    load = [0] * count
    shard = [0] * len(jobs)
    for i in order:
        target = min(range(count), key=lambda k: (load[k], k))
        shard[i] = target
        load[target] += max(1, weight(m, jobs[i]))
    return shard


def chosen(
    m: Manifest, jobs: Sequence[TlcJob], only: Sequence[str], traced: bool = True
) -> frozenset[tuple[str, str]]:
    """The (kind, name) of every job `--only` names: the TLC jobs `jobs` and, when `traced` (not
    --quick), the model's trace jobs and code mutations. A name is a job's name, or `KIND:NAME`
    when jobs of two kinds share it (`code-mutation:unfenced` beside the spec mutation
    `unfenced`); a name two kinds share is refused, so that nothing runs that was not meant."""
    every = [(j.kind, j.name) for j in jobs]
    if traced:
        every += [('traces', j.name) for j in m.traces]
        every += [('code-mutation', c.name) for c in m.code_mutations]
    found: set[tuple[str, str]] = set()
    unknown = []
    for word in only:
        kind, sep, name = word.partition(':')
        matches = [e for e in every if e == (kind, name)] if sep and kind in KINDS else []
        matches = matches or [e for e in every if e[1] == word]
        kinds = sorted({k for k, _ in matches})
        if len(kinds) > 1:
            raise CannotRunAny(
                f'--only {word}: {" and ".join(f"a {k}" for k in kinds)} share that name in '
                f'{m.path.name}; say which: {" or ".join(f"{k}:{word}" for k in kinds)}'
            )
        if not matches:
            unknown.append(word)
        found.update(matches)
    if unknown:
        names = sorted({n for _, n in every})
        raise CannotRunAny(
            f'--only {" ".join(unknown)}: no such job in {m.path.name} '
            f'(jobs: {", ".join(names)}; KIND:NAME picks one of two of the same name)'
        )
    return frozenset(found)
