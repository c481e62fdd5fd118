"""ts2 rules for C++: C's (rules_c.py), raw strings, the places where C++ gives parentheses a
meaning, and the context of a definition: namespaces, classes, templates, `extern "C"` blocks and,
for a lambda, the control flow up to its enclosing function.
"""

from __future__ import annotations

from execlease_hook.fingerprint import rules_c, ts2
from execlease_hook.fingerprint.ts2 import Item, Node


def parenthesized_expression(node: Node, parent: Node | None) -> list[Item] | None:
    """As in C, and the parentheses stay where C++ reads them: `decltype((x))` is a reference,
    `return (x);` returns one from a `decltype(auto)` function, `&(A::m)` is a plain pointer
    where `&A::m` points to a member."""
    parent = ts2.up(node, parent)
    if parent is not None:
        if parent.type in ('decltype', 'return_statement', 'co_return_statement'):
            return None
        inner = ts2.named(node)
        if (
            parent.type == 'pointer_expression'
            and ts2.text(parent.child_by_field_name('operator')) == '&'
            and len(inner) == 1
            and inner[0].type == 'qualified_identifier'
        ):
            return None
    return ts2.unwrap_unless_callee(node, parent)


HANDLERS = {
    **rules_c.HANDLERS,
    'raw_string_literal': rules_c.literal,
    'parenthesized_expression': parenthesized_expression,
}
DROPS = rules_c.DROPS
SCOPES = frozenset({'function_definition', 'lambda_expression'})
CONTEXT = (
    rules_c.PREPROCESSOR
    | rules_c.BRACEABLE
    | frozenset(
        {
            'namespace_definition',
            'class_specifier',
            'struct_specifier',
            'union_specifier',
            'template_declaration',
            'linkage_specification',
            'switch_statement',
            'case_statement',
            'try_statement',
            'catch_clause',
        }
    )
)
# A branch written without braces (`else return x;`) is a body too: what it holds is not context.
BODIES = frozenset(
    {
        'compound_statement',
        'declaration_list',
        'field_declaration_list',
        'expression_statement',
        'return_statement',
        'throw_statement',
        'break_statement',
        'continue_statement',
    }
)
BESIDE = rules_c.PREPROCESSOR | frozenset({'case_statement'})
