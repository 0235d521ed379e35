"""Secrets held in records that keep a name and its value in two fields: a container's
environment (`- name: API_TOKEN` then `value: "…"`; ECS's `{"name": "DB_PASSWORD", "value": "…"}`),
an API client's variables and headers (Postman's `"key"`/`"value"`, Insomnia's `name`/`value`),
CloudFormation's `ParameterKey=DBPassword,ParameterValue=…`, Terraform's `variable "db_password"
{ default = "…" }`, XML properties (`<property name="…password">…</property>`, JMeter's
`<stringProp name="Argument.value">`), and a Markdown table whose column is named `password`.

The key rules (`secret_keys.py`) see `name: API_TOKEN`, whose value is the secret's name, not the
secret: here the name decides and the value is read from its own field, within a few lines.
Runs on the ASCII copy of the text (see `redact.spans`), when the key words are in it.
"""

from __future__ import annotations

import re

import re2

from moraine.redaction.secret_keys import names_secret, value_may_be_secret
from moraine.redaction.secret_values import Span

# A field holding a secret's *name*: `name: X`, `"key": "X"`, `ParameterKey=X`, `variable "X"`,
# `name="X"` of an XML element (RE2, on the ASCII copy's bytes: most texts with a key word hold none).
_NAME_FIELD = re2.compile(
    rb"""(?i)(?:\b(?:name|key|parameterkey|header|variable_name|var_name|env_name)["']?[ \t]*[:=][ \t]*["']?"""
    rb"""|\bvariable[ \t]+["'])([A-Za-z_][\w.-]{0,79})""")
_VALUE_FIELD = re.compile(
    r"""(?i)\b(?:value|parametervalue|default|val)["']?[ \t]*[:=][ \t]*(?:(["'])(.*?)\1|([^\s,;"'}\]]+))"""
    r"""|<[\w.:-]+[ \t][^<>\n]{0,80}?\bname=["'][^"'<>]*value["'][^<>]*>([^<\n]+)<""")
_ELEMENT_TEXT = re.compile(r"""["']?[^<>\n]{0,80}?>([^<\n]+)</""")  # `<property name="…password">value</property>`
_REACH = 240
_ROW = re.compile(r"^[ \t]*\|(.+)\|[ \t]*$", re.MULTILINE)


def record_spans(text: str, data: bytes) -> list[Span]:
    """Values of records whose name field names a secret, and the cells of secret-named table
    columns (`data`: the ASCII copy as bytes, which RE2 reads)."""
    found: list[Span] = []
    for match in _NAME_FIELD.finditer(data):
        name = match.group(1).decode("ascii")
        if not names_secret(name):
            continue
        span = _value_of(text, data, name, match.end())
        if span is not None:
            found.append(span)
    if "|" in text:
        found += _table_spans(text)
    return found


def _value_of(text: str, data: bytes, name: str, after: int) -> Span | None:
    """The value field of the record a secret's name opens, when it holds a secret."""
    xml = text.rfind("<", max(0, after - 120), after) > text.rfind(">", max(0, after - 120), after)
    if xml:  # an XML element named by its `name` attribute: its text, or a value element inside it
        inner = _ELEMENT_TEXT.match(text, after)
        if inner is not None:
            return _checked(name, inner.start(1), inner.end(1), text)
    value = _VALUE_FIELD.search(text, after, min(len(text), after + _REACH))
    if value is None or (not xml and _NAME_FIELD.search(data, after, value.start()) is not None):
        return None  # no value field, or the next record's name comes first (XML elements name every child)
    group = next(g for g in (2, 3, 4) if value.group(g) is not None)
    return _checked(name, value.start(group), value.end(group), text)


def _checked(name: str, start: int, end: int, text: str) -> Span | None:
    value = text[start:end].strip()
    if not value_may_be_secret(name, value):
        return None
    lead = len(text[start:end]) - len(text[start:end].lstrip())
    return start + lead, start + lead + len(value), "secret-record"


def _table_spans(text: str) -> list[Span]:
    """Cells under a secret-named column header of a Markdown table (`| user | password |`)."""
    found: list[Span] = []
    columns: list[str] = []
    last_end = -2
    for row in _ROW.finditer(text):
        if row.start() != last_end + 1:
            columns = []  # a new table
        last_end = row.end()
        cells = row.group(1).split("|")
        if all(re.fullmatch(r"[ \t]*:?-{3,}:?[ \t]*", cell) for cell in cells):
            continue  # the rule under the header
        if not columns or not any(names_secret(c) for c in columns):
            columns = cells
            continue
        at = row.start(1)
        for header, cell in zip(columns, cells, strict=False):
            value = cell.strip()
            if value and names_secret(header) and value_may_be_secret(header.strip(), value):
                lead = at + len(cell) - len(cell.lstrip())
                found.append((lead, lead + len(value), "secret-record"))
            at += len(cell) + 1
    return found
