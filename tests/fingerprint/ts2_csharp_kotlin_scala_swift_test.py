"""ts2 for C#, Kotlin, Scala and Swift: each normalisation with a pair that must be equal and a
near miss that must differ; the context of a nested definition; one-token edits of real code."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.git.blobs import WorktreeSource
from execlease_hook.locate.entry import every_definition, find_functions, locate
from execlease_hook.manifest.model import CoveredEntry, Region

REAL = Path(__file__).parents[1] / 'fixtures' / 'real'
QUALNAME = {'K.cs': 'K.M', 'K.kt': 'K.m', 'K.scala': 'K.m', 'K.swift': 'K.m'}


def fp(path: str, source: str, qualname: str | None = None) -> str:
    (located,) = find_functions(path, source.encode(), qualname or QUALNAME[path])
    return fingerprint(located, 'ts2')


def cs(code: str) -> str:
    return 'class K {\n    object M(int a, int b) {\n        ' + code + '\n    }\n}\n'


def kt(code: str) -> str:
    return 'class K {\n    fun m(a: Int, b: Int) {\n        ' + code + '\n    }\n}\n'


def scala(code: str) -> str:
    return 'object K {\n  def m(a: Int, b: Int): Any = {\n    ' + code + '\n  }\n}\n'


def swift(code: str) -> str:
    return 'struct K {\n    func m(a: Int, b: Int) -> Any {\n        ' + code + '\n    }\n}\n'


# (id, path, one, other): same meaning, different spelling
EQUAL = (
    (
        'cs-comment-and-layout',
        'K.cs',
        cs('return g(a, /* why */ b);  // note'),
        cs('return g(a,\n            b);'),
    ),
    ('cs-escapes', 'K.cs', cs('return "\\x41\\u0042\\x0043";'), cs('return "ABC";')),
    ('cs-verbatim', 'K.cs', cs('return @"a\\b ""c""";'), cs('return "a\\\\b \\"c\\"";')),
    (
        'cs-raw-multiline',
        'K.cs',
        cs('return """\n            a\n              b\n            """;'),
        cs('return """\n    a\n      b\n    """;'),
    ),
    ('cs-raw-vs-regular', 'K.cs', cs('return """a "q" b""";'), cs('return "a \\"q\\" b";')),
    ('cs-interpolated-verbatim', 'K.cs', cs('return $@"{a}\\n""";'), cs('return $"{a}\\\\n\\"";')),
    ('cs-interpolated-braces', 'K.cs', cs('return $"{{{a}}}";'), cs('return $@"{{{a}}}";')),
    ('cs-char', 'K.cs', cs("return '\\x41';"), cs("return 'A';")),
    ('cs-parens', 'K.cs', cs('return (a + b);'), cs('return a + b;')),
    ('cs-trailing-comma', 'K.cs', cs('return new[] { a, b, };'), cs('return new[] { a, b };')),
    (
        'cs-switch-arm-comma',
        'K.cs',
        cs('return a switch { 1 => 2, _ => 3, };'),
        cs('return a switch { 1 => 2, _ => 3 };'),
    ),
    ('cs-empty-statement', 'K.cs', cs('g();;'), cs('g();')),
    (
        'kt-comment-and-layout',
        'K.kt',
        kt('g(a, /* why */ b) // note'),
        kt('g(\n            a,\n            b\n        )'),
    ),
    ('kt-semicolons', 'K.kt', kt('g(a); g(b);'), kt('g(a)\n        g(b)')),
    ('kt-escapes', 'K.kt', kt('g("\\u0041\\$")'), kt('g("A\\$")')),
    ('kt-template-braces', 'K.kt', kt('g("${a} and ${b}.")'), kt('g("$a and $b.")')),
    ('kt-raw-template-braces', 'K.kt', kt('g("""${a}\\n""")'), kt('g("""$a\\n""")')),
    ('kt-escaped-dollar', 'K.kt', kt('g("\\$a")'), kt('g("\\u0024a")')),
    ('kt-raw-crlf', 'K.kt', kt('g("""a\r\n  b""")'), kt('g("""a\n  b""")')),
    ('kt-raw-vs-plain', 'K.kt', kt('g("""a "b" c""")'), kt('g("a \\"b\\" c")')),
    ('kt-char', 'K.kt', kt("g('\\u0041')"), kt("g('A')")),
    ('kt-parens', 'K.kt', kt('g((a + b))'), kt('g(a + b)')),
    ('kt-trailing-comma', 'K.kt', kt('g(a, b,)'), kt('g(a, b)')),
    (
        'kt-when-trailing-comma',
        'K.kt',
        kt('when (a) {\n            1, 2, -> g()\n        }'),
        kt('when (a) {\n            1, 2 -> g()\n        }'),
    ),
    ('kt-lambda-trailing-comma', 'K.kt', kt('h { x, y, -> x }'), kt('h { x, y -> x }')),
    (
        'kt-if-braces',
        'K.kt',
        kt('if (a > b) {\n            throw E()\n        } else {\n            g()\n        }'),
        kt('if (a > b) throw E() else g()'),
    ),
    (
        'kt-loop-and-when-braces',
        'K.kt',
        kt('for (x in s) { g(x) }\n        when (a) { 1 -> { g() } }'),
        kt('for (x in s) g(x)\n        when (a) { 1 -> g() }'),
    ),
    (
        'kt-getter-expression-body',
        'K.kt',
        'class K {\n    val p: Int\n        get() {\n            return a\n        }\n}\n',
        'class K {\n    val p: Int\n        get() = a\n}\n',
        'K.p.get',
    ),
    (
        'kt-expression-body',
        'K.kt',
        'class K {\n    fun m(): Int {\n        return a + 1 // why\n    }\n}\n',
        'class K {\n    fun m(): Int = a + 1\n}\n',
    ),
    (
        'scala-comment-and-layout',
        'K.scala',
        scala('g(a, /* why */ b) // note'),
        scala('g(\n      a,\n      b\n    )'),
    ),
    ('scala-semicolons', 'K.scala', scala('g(a); g(b);'), scala('g(a)\n    g(b)')),
    ('scala-escapes', 'K.scala', scala('g("\\u0041\\t")'), scala('g("A\\u0009")')),
    ('scala-triple-quoted', 'K.scala', scala('g("""a "b" c""")'), scala('g("a \\"b\\" c")')),
    (
        'scala-interpolation-braces',
        'K.scala',
        scala('g(s"${a} and ${b}.")'),
        scala('g(s"$a and $b.")'),
    ),
    ('scala-parens', 'K.scala', scala('g((a + b))'), scala('g(a + b)')),
    ('scala-trailing-comma', 'K.scala', scala('g(\n      a,\n      b,\n    )'), scala('g(a, b)')),
    (
        'swift-comment-and-layout',
        'K.swift',
        swift('return g(a, /* why */ b) // note'),
        swift('return g(\n            a,\n            b\n        )'),
    ),
    ('swift-semicolons', 'K.swift', swift('g(a); return b;'), swift('g(a)\n        return b')),
    ('swift-escapes', 'K.swift', swift('return "\\u{41}\\t"'), swift('return "A\\u{9}"')),
    (
        'swift-multiline-indent',
        'K.swift',
        swift('return """\n            a\n              b\n            """'),
        swift('return """\n    a\n      b\n    """'),
    ),
    (
        'swift-multiline-vs-line',
        'K.swift',
        swift('return """\n            a\n            b\n            """'),
        swift('return "a\\nb"'),
    ),
    (
        'swift-multiline-continuation',
        'K.swift',
        swift('return """\n            a \\\n            b\n            """'),
        swift('return "a b"'),
    ),
    ('swift-raw', 'K.swift', swift('return #"a\\n"#'), swift('return "a\\\\n"')),
    ('swift-raw-hashes', 'K.swift', swift('return ##"a"b"##'), swift('return #"a"b"#')),
    ('swift-parens', 'K.swift', swift('return (a + b)'), swift('return a + b')),
    ('swift-trailing-comma', 'K.swift', swift('return [a, b,]'), swift('return [a, b]')),
)

# (id, path, one, other): a near miss that changes the meaning
DIFFERENT = (
    ('cs-string', 'K.cs', cs('return "a b";'), cs('return "a  b";')),
    ('cs-verbatim-backslash', 'K.cs', cs('return @"a\\n";'), cs('return "a\\n";')),
    ('cs-utf8-bytes', 'K.cs', cs('return "a"u8;'), cs('return "a";')),
    ('cs-interpolated-text', 'K.cs', cs('return $"a  {b}";'), cs('return $"a {b}";')),
    ('cs-interpolated-hole', 'K.cs', cs('return $"{a}";'), cs('return $"{b}";')),
    (
        'cs-interpolation-format',
        'K.cs',
        cs('return $"{a:yyyy MM}";'),
        cs('return $"{a:yyyy  MM}";'),
    ),
    (
        'cs-raw-relative-indent',
        'K.cs',
        cs('return """\n            a\n              b\n            """;'),
        cs('return """\n            a\n            b\n            """;'),
    ),
    ('cs-char-vs-string', 'K.cs', cs("return 'a';"), cs('return "a";')),
    ('cs-operator', 'K.cs', cs('return a < b;'), cs('return a <= b;')),
    ('cs-precedence', 'K.cs', cs('return (a + b) * 2;'), cs('return a + b * 2;')),
    ('kt-string', 'K.kt', kt('g("a b")'), kt('g("a  b")')),
    ('kt-template-then-letter', 'K.kt', kt('g("${a}b")'), kt('g("$ab")')),
    ('kt-escaped-dollar-is-text', 'K.kt', kt('g("\\$a")'), kt('g("${a}")')),
    ('kt-escaped-dollar-vs-template', 'K.kt', kt('g("\\$a")'), kt('g("$a")')),
    ('kt-unicode-dollar-is-text', 'K.kt', kt('g("\\u0024a")'), kt('g("$a")')),
    ('kt-raw-template-vs-dollar', 'K.kt', kt('g("""${\'$\'}a""")'), kt('g("""$a""")')),
    ('kt-raw-backslash', 'K.kt', kt('g("""a\\n""")'), kt('g("a\\n")')),
    ('kt-hole', 'K.kt', kt('g("${a + 1}")'), kt('g("${a + 2}")')),
    ('kt-statements-vs-expression', 'K.kt', kt('g(a); -b'), kt('g(a) - b')),
    ('kt-safe-call', 'K.kt', kt('a?.g()'), kt('a.g()')),
    ('kt-braces-with-a-declaration', 'K.kt', kt('if (a) { val b = 1 }'), kt('if (a) g()')),
    ('kt-braces-around-two', 'K.kt', kt('if (a) { g(); h() }'), kt('if (a) g(); h()')),
    (
        'kt-block-body-without-return',
        'K.kt',
        'class K {\n    fun m(): Int {\n        a + 1\n    }\n}\n',
        'class K {\n    fun m(): Int = a + 1\n}\n',
    ),
    (
        'kt-expression-body-without-a-type',
        'K.kt',
        'class K {\n    fun m() {\n        return a\n    }\n}\n',
        'class K {\n    fun m() = a\n}\n',
    ),
    (
        'kt-body-with-more-than-return',
        'K.kt',
        'class K {\n    fun m(): Int {\n        g()\n        return a\n    }\n}\n',
        'class K {\n    fun m(): Int = a\n}\n',
    ),
    ('scala-string', 'K.scala', scala('g("a b")'), scala('g("a  b")')),
    ('scala-interpolator', 'K.scala', scala('g(s"a$b")'), scala('g(f"a$b")')),
    ('scala-raw-interpolator', 'K.scala', scala('g(raw"a\\n")'), scala('g(s"a\\n")')),
    ('scala-interpolated-text', 'K.scala', scala('g(s"a  $b")'), scala('g(s"a $b")')),
    ('scala-triple-backslash', 'K.scala', scala('g("""a\\n""")'), scala('g("a\\n")')),
    ('swift-string', 'K.swift', swift('return "a b"'), swift('return "a  b"')),
    ('swift-interpolation', 'K.swift', swift('return "\\(a)"'), swift('return "\\(b)"')),
    ('swift-raw-escape', 'K.swift', swift('return #"a\\n"#'), swift('return "a\\n"')),
    (
        'swift-multiline-relative-indent',
        'K.swift',
        swift('return """\n            a\n              b\n            """'),
        swift('return """\n            a\n            b\n            """'),
    ),
    ('swift-labelled-tuple', 'K.swift', swift('return (x: a, y: b)'), swift('return (a, b)')),
    ('swift-optional-chain', 'K.swift', swift('return a?.b'), swift('return a!.b')),
)


@pytest.mark.parametrize(
    ('path', 'one', 'other', 'qualname'),
    [(*r[1:], None)[:4] for r in EQUAL],
    ids=[r[0] for r in EQUAL],
)
def test_same_meaning_same_fingerprint(path, one, other, qualname):
    assert one != other
    assert fp(path, one, qualname) == fp(path, other, qualname)


@pytest.mark.parametrize(
    ('path', 'one', 'other'), [r[1:] for r in DIFFERENT], ids=[r[0] for r in DIFFERENT]
)
def test_near_miss_changes_the_fingerprint(path, one, other):
    assert fp(path, one) != fp(path, other)


def test_a_kotlin_crlf_checkout_fingerprints_as_the_lf_checkout(git_repo, tmp_path):
    """The same commit cloned with core.autocrlf (CRLF in the working tree) and as committed (LF):
    a line break inside a raw string reads as LF, as in every other language."""
    source = kt('g("""\n            lease\n            """)')
    git_repo.write('K.kt', source)
    git_repo.add('K.kt')
    git_repo.commit()
    crlf = tmp_path / 'crlf'
    git_repo.git('clone', '-q', '-c', 'core.autocrlf=true', str(git_repo.path), str(crlf))
    checked_out = {where: WorktreeSource(where).read('K.kt') for where in (git_repo.path, crlf)}
    assert checked_out[git_repo.path] == source.encode()
    assert checked_out[crlf] == source.replace('\n', '\r\n').encode()
    (lf_entry,), (crlf_entry,) = (
        find_functions('K.kt', data or b'', 'K.m') for data in checked_out.values()
    )
    assert fingerprint(crlf_entry, 'ts2') == fingerprint(lf_entry, 'ts2')


CONTEXT = (
    # (path, source, local function, dead-branch variant, changed-header variant (seen by the
    # method: the context stops at the nearest enclosing function), moved-elsewhere variant)
    (
        'K.cs',
        'class K {\n    void M() {\n        if (a) {\n            void L() { g(); }\n        }\n    }\n}\n',
        'K.M.L',
        ('if (a)', 'if (false)'),
        ('class K', 'class K : B'),
        ('class K {', 'class K {\n    int x;'),
    ),
    (
        'K.kt',
        'class K {\n    fun m() {\n        if (a) {\n            fun l() { g() }\n        }\n    }\n}\n',
        'K.m.l',
        ('if (a)', 'if (false)'),
        ('class K', 'class K : B()'),
        ('class K {', 'class K {\n    val x = 1'),
    ),
    (
        'K.scala',
        'class K {\n  def m(): Unit = {\n    if (a) {\n      def l() = g()\n    }\n  }\n}\n',
        'K.m.l',
        ('if (a)', 'if (false)'),
        ('class K', 'class K extends B'),
        ('class K {', 'class K {\n  val x = 1'),
    ),
    (
        'K.swift',
        'class K {\n    func m() {\n        if a {\n            func l() { g() }\n        }\n    }\n}\n',
        'K.m.l',
        ('if a', 'if false'),
        ('class K', 'class K: B'),
        ('class K {', 'class K {\n    let x = 1'),
    ),
)


@pytest.mark.parametrize(
    ('path', 'source', 'qualname', 'dead', 'header', 'moved'), CONTEXT, ids=[r[0] for r in CONTEXT]
)
def test_context_counts_the_enclosing_control_flow_and_type_headers(
    path, source, qualname, dead, header, moved
):
    before = fp(path, source, qualname)
    assert fp(path, source.replace(*dead), qualname) != before
    assert fp(path, source.replace(*moved), qualname) == before
    method = qualname.rsplit('.', 1)[0]
    assert fp(path, source.replace(*header), method) != fp(path, source, method)
    assert fp(path, source.replace(*header), qualname) == before


@pytest.mark.parametrize(
    ('path', 'source', 'accessor', 'edit'),
    (
        (
            'K.cs',
            'class K {\n    int P {\n        get { return a; }\n        set { a = value; }\n    }\n}\n',
            'K.P.get',
            ('a = value', 'a = -value'),
        ),
        (
            'K.kt',
            'class K {\n    var p: Int = 0\n        get() = field\n        set(v) {\n            field = v\n        }\n}\n',
            'K.p.get',
            ('field = v', 'field = -v'),
        ),
        (
            'K.swift',
            'struct K {\n    var p: Int {\n        get { a }\n        set { a = newValue }\n    }\n}\n',
            'K.p.get',
            ('a = newValue', 'a = -newValue'),
        ),
    ),
    ids=('K.cs', 'K.kt', 'K.swift'),
)
def test_an_accessor_is_not_moved_by_an_edit_of_the_other_accessor(path, source, accessor, edit):
    assert fp(path, source.replace(*edit), accessor) == fp(path, source, accessor)
    assert fp(path, source.replace(*edit), accessor.replace('.get', '.set')) != fp(
        path, source, accessor.replace('.get', '.set')
    )


@pytest.mark.parametrize(
    ('path', 'wrap', 'other'),
    (
        ('K.cs', cs, '@"UPDATE lease SET owner = ?"'),
        ('K.cs', cs, '"""UPDATE lease SET owner = ?"""'),
        ('K.kt', kt, '"""UPDATE lease SET owner = ?"""'),
        ('K.scala', scala, '"""UPDATE lease SET owner = ?"""'),
        ('K.swift', swift, '#"UPDATE lease SET owner = ?"#'),
    ),
    ids=('cs-verbatim', 'cs-raw', 'kt-raw', 'scala-triple', 'swift-raw'),
)
def test_a_region_inside_a_string_reads_it_by_value(path, wrap, other):
    """Anchors inside a literal cover the whole literal, hashed by its value like any other."""

    def region(source: str) -> str:
        covered = CoveredEntry(
            id='r', path=path, action='A', region=Region('UPDATE lease', 'owner = ?')
        )
        return fingerprint(locate(covered, source.encode()))

    plain = wrap(
        'return q("UPDATE lease SET owner = ?");'
        if path == 'K.cs'
        else 'return q("UPDATE lease SET owner = ?")'
    )
    assert region(plain.replace('"UPDATE lease SET owner = ?"', other)) == region(plain)
    assert region(plain.replace('SET owner', 'SET  owner')) != region(plain)


@pytest.mark.parametrize(
    ('path', 'source', 'qualname'),
    (
        (
            'K.cs',
            'class K {\n#if DEBUG\n    void M() { g(); }\n#endif\n    void N() { g(); }\n}\n',
            'K.M',
        ),
        (
            'K.swift',
            'struct K {\n#if DEBUG\n    func m() { g() }\n#endif\n    func n() { g() }\n}\n',
            'K.m',
        ),
    ),
    ids=('K.cs', 'K.swift'),
)
def test_conditional_compilation_is_context(path, source, qualname):
    """`#if false` around a definition compiles it out: the condition counts, as an `if` does."""
    before = fp(path, source, qualname)
    assert fp(path, source.replace('#if DEBUG', '#if RELEASE'), qualname) != before
    elif_ = '#elif' if path == 'K.cs' else '#elseif'
    assert (
        fp(path, source.replace('#if DEBUG', f'#if DEBUG\n{elif_} X'), qualname) != before
    )  # now under X
    lone = source.replace('#if DEBUG\n', '').replace('#endif\n', '')
    assert fp(path, lone, qualname) != before
    after = qualname[:-1] + ('N' if path == 'K.cs' else 'n')
    assert fp(path, source, after) == fp(path, lone, after)  # after `#endif`: no condition


def test_swift_else_branch_counts_every_condition_before_it():
    source = 'struct K {\n#if A\n    func m() { g() }\n#elseif B\n    func p() { g() }\n#else\n    func n() { g() }\n#endif\n}\n'
    assert fp('K.swift', source, 'K.n') != fp(
        'K.swift', source.replace('#elseif B', '#elseif C'), 'K.n'
    )
    later = source.replace('#else\n', '#elseif D\n    func o() {}\n#else\n')
    assert fp('K.swift', source, 'K.m') == fp(
        'K.swift', later, 'K.m'
    )  # a branch after it does not count
    nested = 'struct K {\n#if A\n#if B\n    func x() {}\n#endif\n    func n() { g() }\n#endif\n}\n'
    assert fp('K.swift', nested, 'K.n') == fp('K.swift', nested.replace('#if B', '#if C'), 'K.n')
    assert fp('K.swift', nested, 'K.n') != fp('K.swift', nested.replace('#if A', '#if C'), 'K.n')


# (file, qualname, old text (once in the file), new text): one token each
REAL_EDITS = (
    (
        'CircuitStateController.cs',
        'CircuitStateController.OnUnhandledOutcomeAsync',
        'if (_circuitState == CircuitState.HalfOpen)',
        'if (_circuitState != CircuitState.HalfOpen)',
    ),
    (
        'CircuitStateController.cs',
        'CircuitStateController.OnActionPreExecuteAsync',
        'if (!task.IsCompleted)',
        'if (task.IsCompleted)',
    ),
    (
        'CircuitStateController.cs',
        'CircuitStateController.CircuitState.get',
        'return _circuitState;',
        'return _circuitState!;',
    ),
    (
        'Throttler.kt',
        'Throttler.byteCountOrWaitNanos',
        'if (bytesPerSecond == 0L)',
        'if (bytesPerSecond <= 0L)',
    ),
    ('Throttler.kt', 'Throttler.take', 'require(byteCount > 0)', 'require(byteCount >= 0)'),
    (
        'TempOps.scala',
        'temp.dir',
        'case null => java.nio.file.Files.createTempDirectory(prefix',
        'case _ => java.nio.file.Files.createTempDirectory(prefix',
    ),
    ('Source.scala', 'SeekableSource.getChannel', 'getHandle().right.get', 'getHandle().left.get'),
    (
        'NIOScheduledCallback.swift',
        'NIOScheduledCallback.cancel',
        'cancelScheduledCallback(self)',
        'cancelScheduledCallback(nil)',
    ),
    (
        'NIOScheduledCallback.swift',
        'EventLoop.cancelScheduledCallback',
        'case .default(let task)',
        'case .custom(let task)',
    ),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'old', 'new'), REAL_EDITS, ids=[f'{r[0]}:{r[1]}' for r in REAL_EDITS]
)
def test_a_one_token_edit_of_real_code_moves_only_its_fingerprint(name, qualname, old, new):
    source = (REAL / name).read_text()
    assert source.count(old) == 1, f'{name}: {old!r} must occur once'
    edited = source.replace(old, new)
    (before,) = find_functions(name, source.encode(), qualname)
    (after,) = find_functions(name, edited.encode(), qualname)
    assert fingerprint(after) != fingerprint(before)
    language = name.rsplit('.', 1)[1]
    assert language
    others = {d.qualname for d in every_definition(_language(name), source.encode())} - {qualname}
    for other in sorted(others):
        was, now = (
            find_functions(name, source.encode(), other),
            find_functions(name, edited.encode(), other),
        )
        if len(was) == 1 and not (
            was[0].start_byte <= before.start_byte and before.end_byte <= was[0].end_byte
        ):
            assert fingerprint(now[0]) == fingerprint(was[0]), (
                f'{other} moved with an edit of {qualname}'
            )


def _language(name: str) -> str:
    from execlease_hook.locate.source import language_for

    found = language_for(name)
    assert found is not None
    return found


def test_a_comment_or_reindent_of_real_code_moves_no_fingerprint():
    for name in (
        'CircuitStateController.cs',
        'Throttler.kt',
        'TempOps.scala',
        'NIOScheduledCallback.swift',
    ):
        source = (REAL / name).read_text()
        marker = '#' if name.endswith('.py') else '//'
        changed = '\n'.join(
            line.replace('    ', '\t')
            + (f'  {marker} reviewed' if line.rstrip().endswith(('{', ')')) else '')
            for line in source.split('\n')
        )
        definitions = every_definition(_language(name), source.encode())
        assert definitions
        for definition in definitions:
            was = find_functions(name, source.encode(), definition.qualname)
            now = find_functions(name, changed.encode(), definition.qualname)
            if len(was) == 1:
                assert fingerprint(now[0]) == fingerprint(was[0]), f'{name}: {definition.qualname}'
