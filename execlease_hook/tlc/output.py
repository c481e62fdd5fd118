"""TLC's output -> Verdict: the `-tool` messages, the exit code, and what they mean together.

TLC frames each message as `@!@!@STARTMSG code:severity @!@!@` ... `@!@!@ENDMSG code @!@!@`;
the codes and exit codes read here are listed in docs/architecture.md#tlc-facts-the-code-relies-on.
The verdict is read from the messages and the exit code together; any disagreement is an error,
never a pass. Running a job is tlc/job.py's; this module only reads what a run printed.

It is kept whole: the message framing, the counterexample reader and `classify`'s
rules read one output for one answer, and each rule of `classify` leans on the other two.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from execlease_hook.spec import cfg
from execlease_hook.tlc.messages import (
    ACTION_PROPERTY,
    ASSERT_FAILED,
    ASSUMPTION,
    BACK_TO_STATE,
    BAD_ARGUMENTS,
    DEADLOCK,
    DEPTH,
    FINISHED,
    INVARIANT,
    INVARIANT_INITIAL,
    NESTED_POSITIONS,
    NO_ERROR,
    PARSED,
    SEVERITY_ERROR,
    STATS,
    STUTTERING,
    TEMPORAL,
    TRACE_STATE,
    VIOLATION_CODES,
    number,
)
from execlease_hook.tlc.progress import last

# TLC exit codes (same in 2.15 and 2.19).
EXIT_OK = 0
EXIT_EVALUATION = 75
EXIT_VIOLATION = {10: 'assumption', 11: 'deadlock', 12: 'invariant', 13: 'property'}
EXIT_ERRORS = {
    1: 'TLC rejected its arguments',
    75: 'evaluation error',
    150: 'parse error',
    151: 'configuration error',
    255: 'configuration syntax error or out of memory',
}
PRINTED_KEPT = 40  # lines of what the spec printed kept in a verdict
# What to do next, per TLC exit code: every message that blocks says what to do.
ERROR_HINTS = {
    1: "a bug in execlease's TLC arguments or an unknown jar: report it with the lines below",
    75: "fix the expression TLC could not evaluate (in the spec or the cfg's constants)",
    150: 'fix the spec (or a module it extends) where SANY points',
    151: 'fix the cfg: it names something the spec does not define, or is not valid cfg syntax',
    255: 'fix the cfg syntax; if Java ran out of memory, give it more (JAVA_TOOL_OPTIONS=-Xmx4g)',
}
# TLC catches an OutOfMemoryError and reports it as an evaluation error (exit 75): while computing
# the initial states it says only "Java heap space", later "java.lang.OutOfMemoryError".
OUT_OF_MEMORY = (b'OutOfMemoryError', b'Java heap space', b'GC overhead limit exceeded')
OUT_OF_MEMORY_HINT = 'give Java more memory (JAVA_TOOL_OPTIONS=-Xmx4g, or more), then run again'
# A recursion deeper than Java's stack: TLC says "This was a Java StackOverflowError" (exit 75 while
# evaluating, 255 where it does not catch it). Neither the cfg nor the heap is the cause.
STACK_OVERFLOW = b'StackOverflowError'
STACK_OVERFLOW_HINT = (
    "a recursive operator went deeper than Java's stack (over a long trace, a "
    'RECURSIVE operator that walks it line by line): give Java a larger stack '
    '(JAVA_TOOL_OPTIONS=-Xss64m), or write the recursion as a fold (FoldLeft '
    "of the CommunityModules' SequencesExt, or a function defined over "
    '1..Len(s))'
)


@dataclass(frozen=True)
class Message:
    code: int
    severity: int
    text: str


@dataclass(frozen=True)
class TraceStep:
    number: int
    action: str  # as TLC names it: 'Initial predicate', 'Claim', 'Stuttering', ...
    location: str = ''  # 'line 13, col 8 to line 13, col 41 of module Counter'
    variables: tuple[tuple[str, str], ...] = ()
    back_to: int | None = None  # for 'Back to state': the number of the state the loop returns to


@dataclass(frozen=True)
class Verdict:
    outcome: str  # 'passed' | 'violated' | 'error'
    seconds: float
    exit_code: int | None = None
    states: int | None = None
    distinct: int | None = None
    depth: int | None = None
    # violated: 'invariant' | 'property' | 'deadlock' | 'assumption' | 'assert'
    kind: str | None = None
    # violated: the property's name as TLC names it (None: TLC did not say); an assumption's
    # name or expression (verify/violations.refine), an Assert's message
    property: str | None = None
    location: str | None = None  # assumption, assert: 'line 5, col 8 to line 5, col 12 of module M'
    trace: tuple[TraceStep, ...] = ()
    reason: str | None = None  # error: what went wrong
    last_lines: tuple[str, ...] = ()
    printed: tuple[str, ...] = ()  # what the spec printed (Print, PrintT): its first PRINTED_KEPT
    printed_total: int = 0  # lines, shown apart as the spec's output, never read for a verdict

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        plain = 'outcome seconds exit_code states distinct depth kind property reason'.split()
        if data['outcome'] not in ('passed', 'violated', 'error'):
            raise ValueError(f'bad outcome {data["outcome"]!r}')
        return cls(
            **{k: data[k] for k in plain},
            location=data.get('location'),  # absent in results cached before it was read
            trace=tuple(
                TraceStep(
                    int(s['number']),
                    str(s['action']),
                    str(s['location']),
                    tuple((str(n), str(v)) for n, v in s['variables']),
                    None if s['back_to'] is None else int(s['back_to']),
                )
                for s in data['trace']
            ),
            last_lines=tuple(str(x) for x in data['last_lines']),
            printed=tuple(str(x) for x in data.get('printed', ())),  # absent in older results
            printed_total=int(data.get('printed_total', 0)),
        )

    def violation(self) -> str:
        """What was violated: 'deadlock', 'invariant TypeOK', 'property (TLC does not name it)'"""
        if self.kind == 'deadlock':
            return 'deadlock'
        return f'{self.kind} {self.property or "(TLC does not name it)"}'

    def describe(self) -> str:
        if self.outcome == 'passed':
            return 'passed'
        if self.outcome == 'violated' and self.kind == 'assert':
            what = self.property or '(TLC does not name it)'
            return f'violated: assert {what!r}' + (f' at {self.location}' if self.location else '')
        if self.outcome == 'violated':
            return f'violated: {self.violation()}'
        return f'error: {self.reason}'


_MARKER = re.compile(rb'@!@!@STARTMSG (\d+):(\d+) @!@!@\n?|@!@!@ENDMSG (\d+) @!@!@\n?')


def _markers(output: bytes) -> Iterator[re.Match[bytes]]:
    """TLC's markers, not those inside a TLA+ string literal on the marker's line.

    TLC prints every value a spec computes in TLA+ syntax, strings quoted with `\\"`, `\\n` and
    `\\\\` escaped, so a string never spans lines; a marker inside one is the spec's text, not
    TLC's framing (a state variable holding "@!@!@STARTMSG 2110:1 @!@!@..." must not read as a
    violation message)."""
    for match in _MARKER.finditer(output):
        inside = escaped = False
        for byte in output[output.rfind(b'\n', 0, match.start()) + 1 : match.start()]:
            if escaped:
                escaped = False
            elif inside and byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # double quote
                inside = not inside
        if not inside:
            yield match


def parse_messages(output: bytes) -> list[Message]:
    """Every -tool message, nested ones included (TLC nests e.g. 2179 inside 1000)."""
    messages: list[Message] = []
    stack: list[tuple[int, int, list[bytes]]] = []
    pos = 0
    for match in _markers(output):
        if stack:
            stack[-1][2].append(output[pos : match.start()])
        pos = match.end()
        if match.group(1) is not None:
            stack.append((int(match.group(1)), int(match.group(2)), []))
        elif stack:
            code, severity, body = stack.pop()
            raw = b''.join(body)
            messages.append(Message(code, severity, raw.decode('utf-8', 'replace')))
            if stack:
                stack[-1][2].append(raw)
    return messages


def spec_printed(output: bytes) -> tuple[tuple[str, ...], int]:
    """What the spec printed, and how many lines: the non-blank text outside every TLC message
    once SANY has finished (before, the lines outside messages are SANY's). A spec's Print and
    PrintT write TLA+ values, strings quoted, so none of it can open a message (`_markers`); it
    is kept to be shown as the spec's output and never read for a verdict."""
    lines: list[str] = []
    depth = 0
    started = False
    pos = 0
    for match in [*_markers(output), None]:  # None: the text after the last marker
        if depth == 0 and started:
            text = output[pos : None if match is None else match.start()]
            lines += [line for line in text.decode('utf-8', 'replace').splitlines() if line.strip()]
        if match is None:
            break
        if match.group(1) is not None:
            depth += 1
        else:
            depth = max(0, depth - 1)
            started = started or int(match.group(3)) == PARSED
        pos = match.end()
    return tuple(lines[:PRINTED_KEPT]), len(lines)


def with_printed(verdict: Verdict, output: bytes) -> Verdict:
    kept, total = spec_printed(output)
    return dataclasses.replace(verdict, printed=kept, printed_total=total) if total else verdict


_STEP_AT = r'<(.*?)(?: (line \d+, col \d+ to line \d+, col \d+ of module \S+))?>'
_STEP_HEAD = re.compile(r'^(\d+): ' + _STEP_AT + r'\s*$')
_BACK = re.compile(r'^(\d+): Back to state: ' + _STEP_AT)


def parse_state(text: str) -> tuple[tuple[str, str], ...]:
    """'/\\ x = 1\\n/\\ y = <<1, 2>>' -> (('x', '1'), ('y', '<<1, 2>>')); values may span lines."""
    text = '\n'.join(text.strip('\n').splitlines())
    if not text.startswith('/\\ '):
        text = '/\\ ' + text
    pairs = (chunk.rstrip().partition(' = ') for chunk in ('\n' + text).split('\n/\\ ')[1:])
    return tuple((name.strip(), value) for name, sep, value in pairs if sep)


def parse_trace(messages: list[Message]) -> tuple[TraceStep, ...]:
    steps: list[TraceStep] = []

    def place(text: str) -> int:
        """The number TLC gives a step, else its place in the trace."""
        return int(text.split(':', 1)[0]) if text[:1].isdigit() else len(steps) + 1

    for m in messages:
        if m.code == TRACE_STATE:
            head, _, rest = m.text.partition('\n')
            if match := _STEP_HEAD.match(head.strip()):
                step = TraceStep(int(match[1]), match[2], match[3] or '', parse_state(rest))
            else:
                step = TraceStep(place(head), head.strip(), '', parse_state(rest))
            steps.append(step)
        elif m.code == STUTTERING:
            steps.append(TraceStep(place(m.text), 'Stuttering'))
        elif m.code == BACK_TO_STATE and (match := _BACK.match(m.text.strip())):
            # The loop back: TLC names the action that returns to state N.
            steps.append(TraceStep(len(steps) + 1, match[2], match[3] or '', (), int(match[1])))
    return tuple(steps)


_NUMBER = r'([\d,]+)'
# Each message body must start with TLC's own words (the markers are TLC's, see _markers).
_STATS = re.compile(
    r'\s*' + _NUMBER + r' states generated, ' + _NUMBER + r' distinct states found'
    r'(?:, ' + _NUMBER + r' states left on queue)?'
)
_DEPTH = re.compile(r'\s*The depth of the complete state graph search is ' + _NUMBER)
_INVARIANT_NAME = re.compile(r'\s*Invariant (\S+) is violated')
# The violations whose message names what was violated, and how.
_NAMED = {
    INVARIANT: _INVARIANT_NAME,
    INVARIANT_INITIAL: _INVARIANT_NAME,
    ACTION_PROPERTY: re.compile(r'\s*Action property (\S+) is violated'),
    ASSUMPTION: re.compile(r'\s*Assumption (.*?) is false'),
}
_ASSERT = re.compile(
    r'\s*The first argument of Assert evaluated to FALSE; the second argument was:\s*\n(.*)', re.S
)
# 2.15: '2. Line 6, column 12 to line 6, column 43 in A'; also TLC's usual location words.
_POSITION = re.compile(
    r'[Ll]ine (\d+), col(?:umn)? (\d+) to line (\d+), col(?:umn)? (\d+) (?:in|of module) (\w+)'
)
_COMPLETED = re.compile(r'\s*Model checking completed\. No error has been found\.')


def location_text(line: int, col: int, end_line: int, end_col: int, module: str) -> str:
    return f'line {line}, col {col} to line {end_line}, col {end_col} of module {module}'


def parse_location(text: str) -> tuple[int, int, int, int, str] | None:
    if (found := _POSITION.search(text)) is None:
        return None
    a, b, c, d, module = found.groups()
    return int(a), int(b), int(c), int(d), module


# One TLA+ string value as TLC prints it: quoted, `\"`, `\n`, `\t` and `\\` escaped, on one line.
_TLA_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*\\?)"')
_ESCAPED = re.compile(r'\\(.)')


def tla_string(value: str) -> str:
    """'"x reached three"' -> 'x reached three' (TLC prints a string value quoted and escaped);
    any other value (two strings and an operator between them, say) is kept as TLC printed it."""
    found = _TLA_STRING.fullmatch(value)
    if found is None:
        return value
    return _ESCAPED.sub(lambda m: {'n': '\n', 't': '\t'}.get(m[1], m[1]), found[1])


def _read_by_people(line: str) -> bool:
    """Not a -tool marker, nor module-loading noise."""
    return '@!@!@' not in line and not line.startswith(('Parsing file', 'Semantic processing'))


def last_lines(output: bytes) -> tuple[str, ...]:
    """The end of TLC's output as a person reads it: its last 25 lines."""
    return tuple(filter(_read_by_people, output.decode('utf-8', 'replace').splitlines()))[-25:]


def classify(
    exit_code: int,
    output: bytes,
    seconds: float,
    config_text: str = '',
) -> Verdict:
    messages = parse_messages(output)
    out_of_memory = any(sign in output for sign in OUT_OF_MEMORY)
    stack_overflow = STACK_OVERFLOW in output and not out_of_memory
    tail = last_lines(output)
    states = distinct = depth = left = None
    stats = [m for m in messages if m.code == STATS]
    for m in stats:
        if found := _STATS.match(m.text):
            states, distinct = number(found.group(1)), number(found.group(2))
            left = None if found.group(3) is None else number(found.group(3))
    for m in messages:
        if m.code == DEPTH and (found := _DEPTH.match(m.text)):
            depth = number(found.group(1))

    counted = (seconds, exit_code, states, distinct, depth)

    def error(reason: str, hint: str | None = None) -> Verdict:
        details = [
            m.text.strip()
            for m in messages
            if m.severity == SEVERITY_ERROR and m.text.strip() and m.code not in VIOLATION_CODES
        ]
        if out_of_memory and 'out of memory' not in reason:
            reason += ' (Java ran out of memory)'
        if details:
            reason += ': ' + ' | '.join(' '.join(d.split()) for d in details)[:800]
        if hint:
            reason = f'{reason.rstrip(".")}; {hint}'
        return Verdict('error', *counted, reason=reason, last_lines=tail)

    violations = [m for m in messages if m.code in VIOLATION_CODES]
    if exit_code == EXIT_OK:
        # A pass is TLC saying so once, and a search that emptied its queue: TLCSet("exit", ...)
        # also ends TLC with exit 0 and "No error has been found", with states left unexplored.
        if violations:
            return error('TLC exited 0 but reported a violation')
        completed = [m for m in messages if m.code == NO_ERROR]
        if len(completed) != 1 or not _COMPLETED.match(completed[0].text):
            return error(
                'TLC exited 0 without its "No error has been found" message'
                if not completed
                else f'TLC exited 0 with {len(completed)} completion messages (one expected)'
            )
        if len(stats) != 1 or distinct is None:
            return error(
                'TLC passed but printed no state counts'
                if not stats
                else f'TLC passed but printed {len(stats)} final state counts (one expected)'
            )
        if left != 0:
            return error(
                f'TLC stopped with {left if left is not None else "an unknown number of"} states '
                'left on its queue: the search did not complete, so this is not a pass'
            )
        return Verdict('passed', *counted)
    if exit_code in EXIT_VIOLATION:
        kind = EXIT_VIOLATION[exit_code]
        kinds = {VIOLATION_CODES[m.code] for m in violations}
        if kinds != {kind}:
            found_kinds = ', '.join(sorted(kinds)) or 'no violation message'
            return error(
                f'TLC exit code {exit_code} means {kind}, but its messages say {found_kinds}'
            )
        if len(violations) != 1:
            # TLC stops at the first violation (no -continue): more than one means some were
            # not TLC's, so none can be trusted to name the property.
            return error(f'TLC reported {len(violations)} violations where it stops at the first')
        first = violations[0]
        named = _NAMED.get(first.code)
        found = named.match(first.text) if named else None
        name = found.group(1) if found else None
        trace = parse_trace(messages)
        if first.code == INVARIANT_INITIAL:
            state = parse_state(first.text.partition('\n')[2])
            trace = (TraceStep(1, 'Initial predicate', '', state),)
        elif first.code == TEMPORAL:
            # TLC does not name the temporal property; when the cfg lists one, it is that one.
            listed = cfg.names(config_text.encode('utf-8'), cfg.PROPERTY_KEYWORDS)
            name = listed[0] if len(listed) == 1 else None
        elif first.code == DEADLOCK:
            name = 'deadlock'
        if first.code not in (ASSUMPTION, INVARIANT_INITIAL) and not trace:
            return error(f'TLC reported a {kind} violation without a trace')
        return Verdict('violated', *counted, kind, name, None, trace, last_lines=tail)
    # TLC's end, then the JVM's exit 1.
    java_ended = (
        exit_code == 1
        and any(m.code == FINISHED for m in messages)
        and not any(m.code == BAD_ARGUMENTS for m in messages)
    )
    if violations and not java_ended:
        return error(f'TLC exit code {exit_code} with a violation message')
    asserts = [m for m in messages if m.code == ASSERT_FAILED]
    if exit_code == EXIT_EVALUATION and asserts and not out_of_memory and not stack_overflow:
        if len(asserts) != 1:
            return error(f'TLC reported {len(asserts)} failed Asserts where it stops at the first')
        if (found := _ASSERT.match(asserts[0].text)) is None:
            return error('TLC reported a failed Assert in words this execlease does not read')
        # The innermost position TLC names, in its usual words (whatever words it used).
        nested = [_POSITION.findall(m.text) for m in messages if m.code == NESTED_POSITIONS]
        where = None
        if nested and nested[-1]:
            a, b, c, d, module = nested[-1][-1]
            where = location_text(int(a), int(b), int(c), int(d), module)
        message = tla_string(found.group(1).strip())
        trace = parse_trace(messages)
        return Verdict('violated', *counted, 'assert', message, where, trace, last_lines=tail)
    reason = EXIT_ERRORS.get(exit_code, f'TLC crashed (exit code {exit_code})')
    hint = ERROR_HINTS.get(exit_code, 'read the last lines of its output below, then run again')
    if out_of_memory:
        reason = f'Java ran out of memory (TLC exit code {exit_code})'
        hint = OUT_OF_MEMORY_HINT
    elif stack_overflow:
        reason = f'Java ran out of stack (StackOverflowError, TLC exit code {exit_code})'
        hint = STACK_OVERFLOW_HINT
    elif exit_code == 150:  # what SANY said between 'Starting SANY...' and 'SANY finished.'
        said: list[str] = []
        inside = False
        for line in output.decode('utf-8', 'replace').splitlines():
            if 'Starting SANY' in line:
                inside = True
            elif 'SANY finished' in line:
                break
            elif inside and line.strip() and _read_by_people(line):
                said.append(line.strip())
        reason += ': ' + ' '.join(said[:12])[:800]
    elif java_ended:  # the JVM's exit 1, not TLC's: it failed on its way out, after TLC
        reason, hint = (
            "TLC finished, then its Java exited 1 (its lines below say why), so TLC's own "
            'exit code was lost',
            'fix what the Java lines below name (a full disk, a file-size '
            'limit, a Java option), then run again',
        )
    elif exit_code == 1 and not messages:  # nor is this one: a JVM that could not start
        reason, hint = (
            'Java exited 1 before TLC started',
            "read Java's lines below: a Java option "
            '(JAVA_TOOL_OPTIONS) or the Java itself (EXECLEASE_JAVA, JAVA_HOME); fix it, then run again',
        )
    elif exit_code == 1 and not any(m.code == BAD_ARGUMENTS for m in messages):
        reason, hint = (
            "TLC's Java exited 1 before TLC finished, without TLC saying why",
            'read the last lines of its output below, then run again',
        )
    return error(reason, hint)


def classify_simulation(
    exit_code: int, output: bytes, seconds: float, config_text: str = ''
) -> Verdict:
    """A simulation's verdict (the deep tier's `--simulate`): a violation is read as in model
    checking; exit 0 is a pass of the behaviours drawn (`states`: the states generated), with a
    last progress report (2209) and TLC's end message (2186), never model checking's "No error
    has been found"."""
    found = last(output)
    if exit_code != EXIT_OK:
        verdict = classify(exit_code, output, seconds, config_text)
        if found is not None and verdict.states is None:
            verdict = dataclasses.replace(verdict, states=found.generated)
        return verdict
    messages = parse_messages(output)
    if any(m.code in VIOLATION_CODES for m in messages):
        reason = 'TLC exited 0 but reported a violation'
    elif found is None or not any(m.code == FINISHED for m in messages):
        reason = 'TLC exited 0 without its simulation progress and "Finished" messages'
    else:
        return Verdict('passed', seconds, exit_code, states=found.generated)
    return Verdict('error', seconds, exit_code, reason=reason, last_lines=last_lines(output))


def finished_exit_code(output: bytes) -> int | None:
    """The exit code TLC gives the end its messages report, when they report one and TLC said it
    finished: 0 for no error, a violation's code by its kind, 75 for a failed Assert; None for
    anything else. For a run whose exit code the JVM replaced with its own on its way out (it
    could not write its class-data archive, tlc/cds.lost): `classify` then checks the
    messages against that code as it checks any run's."""
    messages = parse_messages(output)
    if not any(m.code == FINISHED for m in messages):
        return None
    kinds = {VIOLATION_CODES[m.code] for m in messages if m.code in VIOLATION_CODES}
    if kinds:  # the code of its one kind (two kinds: no end TLC reports)
        return next((code for code, kind in EXIT_VIOLATION.items() if {kind} == kinds), None)
    if any(m.code == ASSERT_FAILED for m in messages):
        return EXIT_EVALUATION
    if any(m.code == NO_ERROR for m in messages):
        return EXIT_OK
    return None
