"""A tool's arguments as a pydantic model: the one declaration its published input schema is
generated from and its requests are checked against.

Three rules shape the models (`Arguments`):
- **Null means omitted.** The contract lets a client send null for any optional field: it is
  dropped before the check, so the field takes its default, declared once on the model (and
  published as the schema's `default`). A field whose default is not a value (the configuration's,
  or "none") is `X | None = None`. The published schema names the plain type (`integer`, not
  `["integer", "null"]`): generic clients such as the MCP Inspector build their forms and coerce
  `--tool-arg n_hits=2` from it, and a union left the value a string. What null means is said in
  each field's description.
- **Strict types.** `true` is not an integer and `"5"` is not a number: JSON has the types, and a
  host that sends the wrong one should hear so rather than have it guessed.
- **Unknown fields are refused**, named, with the allowed ones.

`check` is the one place a pydantic `ValidationError` becomes the contract's `invalid_request`,
with a message derived from the field's own schema (`n_hits must be an integer between 1 and
50`) and `details.field`; the history tools' error form takes it from there
(`contract.seed_failure`). Checks that need more than one field or the state (a cursor bound to
its filter, `until` after `since`, an ID that resolves) stay with the tool.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import PydanticOmit, core_schema

from moraine.errors import ContractError
from moraine.wire import ARGUMENTS_NOT_AN_OBJECT as NOT_AN_OBJECT


class Arguments(BaseModel):
    """Base of every tool's arguments (see the module docstring for its three rules)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    # Fields refused with the contract's own code and message rather than `invalid_request`:
    # a string outside the field's enum (search's `event_types`: `unsupported_event_type`, with
    # `supported`), and any value at all (a `within_id` that is no string is a malformed ID:
    # `invalid_id`).
    UNSUPPORTED: ClassVar[dict[str, tuple[str, str]]] = {}
    MALFORMED: ClassVar[dict[str, tuple[str, str]]] = {}

    @model_validator(mode="before")
    @classmethod
    def _null_is_omitted(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields = cls.model_fields
        return {name: value for name, value in data.items()
                if value is not None or name not in fields or fields[name].is_required()}

    @classmethod
    def input_schema(cls) -> dict[str, Any]:
        """The JSON schema a host is shown (`inputSchema`); a copy, generated once."""
        return copy.deepcopy(_published(cls))


A = TypeVar("A", bound=Arguments)

# Bounds of the free-text fields, published in the schemas: nothing a tool echoes or keeps is
# larger than what it is for (a path, an ID, a time, a cursor), so no reply outgrows its bound.
MAX_PATH = 4096  # a path, a session's native id or a Moraine ID (PATH_MAX)
MAX_TIME = 64  # an RFC 3339 datetime or a date
MAX_CURSOR = 1024
MAX_TEXT = 65_536  # text a tool keeps or matches literally (a tracked prompt and answer, a filter)
NAME_CHARS = 80  # of an unknown field's name, quoted in a refusal


@functools.cache
def _published(model: type[Arguments]) -> dict[str, Any]:
    schema = model.model_json_schema(schema_generator=_PlainTypes)
    schema.pop("title", None)
    schema.pop("description", None)  # the model's docstring is for readers of the code; the tool has its own
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


def one_of(values: tuple[str, ...] | list[str]) -> Any:
    """A `Literal` of names known only at import (the harness registry's, the event types): the
    schema's `enum` and the check both come from the one list."""
    return Literal[tuple(values)]


def check(model: type[A], args: Any) -> A:
    """`args` as `model`, or the contract's error naming the first field that is wrong."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ContractError("invalid_request", f"arguments must be an object, not {_json_kind(args)}",
                            {"field": "arguments"})
    if NOT_AN_OBJECT in args:  # the wire's stand-in for arguments that were no object (`wire.check_message`)
        raise ContractError("invalid_request", f"arguments must be an object, not {args[NOT_AN_OBJECT]}",
                            {"field": "arguments"})
    try:
        return model.model_validate(_integral(model, args))
    except ValidationError as exc:
        raise _refusal(model, exc) from None


def _integral(model: type[Arguments], args: dict[str, Any]) -> dict[str, Any]:
    """`1.0` and `1e2` where an integer goes are that integer, as JSON Schema's `integer` says (a
    number with no fraction); `1.5` stays a number and is refused."""
    props = _published(model)["properties"]
    whole = {name: int(value) for name, value in args.items()
             if isinstance(value, float) and value.is_integer() and props.get(name, {}).get("type") == "integer"}
    return {**args, **whole} if whole else args


def _json_kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)


def _cut(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _refusal(model: type[Arguments], exc: ValidationError) -> ContractError:
    errors = exc.errors()
    unknown = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
    if unknown:  # named first, whatever else is wrong: a misspelt field explains the rest
        allowed = list(model.model_fields)
        return ContractError("invalid_request", f"unknown field: {_cut(unknown[0])}",
                             {"field": _cut(unknown[0]), "allowed": allowed})
    order = list(model.model_fields)
    error = min(errors, key=lambda e: order.index(str(e["loc"][0])) if e["loc"] else -1)
    if not error["loc"]:
        return ContractError("invalid_request", str(error["msg"]))
    field = str(error["loc"][0])
    prop = _published(model)["properties"][field]
    enum = prop.get("enum") or prop.get("items", {}).get("enum")
    if field in model.MALFORMED:
        code, message = model.MALFORMED[field]
        return ContractError(code, message, {"field": field})
    if field in model.UNSUPPORTED and error["type"] == "literal_error" and isinstance(error["input"], str):
        code, words = model.UNSUPPORTED[field]
        return ContractError(code, f"{words}: {error['input']}", {"field": field, "supported": enum})
    details: dict[str, Any] = {"field": field}
    if enum:
        details["allowed"] = enum
    return ContractError("invalid_request", f"{field} must be {expectation(prop, error['type'])}", details)


def expectation(prop: dict[str, Any], error_type: str = "") -> str:
    """What a field holds, in words, from its published schema: the message of a refusal."""
    kind = prop.get("type")
    if "enum" in prop:
        return "one of " + ", ".join(str(v) for v in prop["enum"])
    if kind == "string":
        if error_type == "string_too_long":
            return f"at most {prop['maxLength']} characters"
        return "a non-empty string" if prop.get("minLength") else "a string"
    if kind in ("integer", "number"):
        noun = "an integer" if kind == "integer" else "a number"
        low, high = prop.get("minimum"), prop.get("maximum")
        if low is not None and high is not None:
            return f"{noun} between {low} and {high}"
        return f"{noun} ≥ {low}" if low is not None else noun
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        items = prop.get("items", {})
        what = ("values among: " + ", ".join(items["enum"])) if "enum" in items else f"{items.get('type')}s"
        return f"{'a non-empty' if prop.get('minItems') else 'an'} array of {what}"
    return str(kind)


class _PlainTypes(GenerateJsonSchema):
    """Optional fields published as their plain type, without titles or a `null` default (see
    the module docstring): the description says what null means; a value default is shown."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        inner = self.generate_inner(schema["schema"])
        if schema.get("default") is None:
            return inner
        return super().default_schema(schema)

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def none_schema(self, schema: core_schema.NoneSchema) -> JsonSchemaValue:
        raise PydanticOmit
