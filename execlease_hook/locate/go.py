"""Go: functions `F`; methods `Type.Method` (value, pointer and generic receivers)."""

from __future__ import annotations

from execlease_hook.locate.definition import Definition, Node, base_type, names_this, text

NAME_TYPES = frozenset({'identifier', 'field_identifier'})


def named_definition(name: Node) -> Definition | None:
    function = name.parent
    if function is None or not names_this(function, 'name', name):
        return None
    if function.type == 'function_declaration':
        return Definition(text(name), (function,))
    if function.type == 'method_declaration':
        receiver = function.child_by_field_name('receiver')
        parameters = receiver.named_children[:1] if receiver is not None else []
        owner = base_type(parameters[0].child_by_field_name('type')) if parameters else ''
        return Definition(f'{owner}.{text(name)}', (function,))
    return None
