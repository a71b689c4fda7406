"""Declared schemas of every input: one pydantic model per table, errors in the house's words.

gamemarket's inputs (study files, strategy catalogues, workload models, EGTA JSON) are checked by
declarations, not by hand-written branches: each table is a :class:`Table` (a pydantic v2 model with
unknown fields forbidden and strict types, so an integer field refuses ``300.5``, ``"many"`` and
``true``, a number field refuses ``nan`` and ``inf``), whose fields carry their range and a description.
:func:`check` validates a parsed file against one and turns pydantic's errors into one
:class:`~gamemarket.errors.InputError` that names the file, the table, the field, the value and what was
expected, as every message of this project does. :func:`reference` writes the Markdown reference of a
schema from the same declarations, so the documentation cannot drift from what is checked.

pydantic v2 was chosen over msgspec: its constraints (``ge``, ``lt``, ``allow_inf_nan``), strict mode
and JSON Schema carry every rule the documentation needs, its errors are structured (location, type,
context) for the house's messages, and it is the most widely kept validation library of the Python
ecosystem; the inputs are small, so msgspec's speed buys nothing here.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from gamemarket.errors import InputError, shown_list, shown_value

__all__ = ["Table", "check", "reference", "expected_text"]


class Table(BaseModel):
    """A table of an input file: unknown fields are errors, values are not coerced, nothing is mutable.

    Subclasses set ``table_name`` (how messages and the reference name the table, e.g. ``[workload]``)
    and declare their fields with ``pydantic.Field(default, description=..., ge=..., ...)``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


def _unwrap(annotation):
    """The models, list item type and dict value type an annotation holds (through ``| None`` and unions)."""
    found = {"model": None, "list": None, "dict": None}
    todo = [annotation]
    while todo:
        a = todo.pop()
        origin = typing.get_origin(a)
        if isinstance(a, type) and issubclass(a, BaseModel):
            found["model"] = found["model"] or a
        elif origin in (list, tuple) and typing.get_args(a):
            found["list"] = found["list"] or typing.get_args(a)[0]
        elif origin is dict and len(typing.get_args(a)) == 2:
            found["dict"] = found["dict"] or typing.get_args(a)[1]
        else:
            todo += [x for x in typing.get_args(a) if x is not type(None)]
    return found


def _where(loc: tuple, root: str, model=None) -> tuple[str, str | None]:
    """A pydantic location as (the table, the field), following the schema's types: ``('workload',
    'synthetic', 'jobs')`` -> ``('[workload.synthetic]', 'jobs')``, ``('games', 1, 'provider')`` ->
    ``('[games #2]', 'provider')``, ``('replications', 'seeds', 1)`` -> ``('[replications]', "seeds' #2")``
    (list positions counted from 1). A location that names a table (an error of a rule across its
    fields) has no field."""
    table: list[str] = [root.strip("[]")] if root else []
    field: list[str] = []
    t = model
    for item in loc:
        kinds = _unwrap(t) if t is not None else {"model": None, "list": None, "dict": None}
        if field:  # inside a field's value: the rest says where in it
            field.append(f"#{item + 1}" if isinstance(item, int) else str(item))
            continue
        if kinds["model"] is not None and isinstance(item, str) and item in kinds["model"].model_fields:
            nxt = kinds["model"].model_fields[item].annotation
            sub = _unwrap(nxt)
            holds_table = (
                sub["model"] is not None
                or (sub["list"] is not None and _unwrap(sub["list"])["model"] is not None)
                or (sub["dict"] is not None and _unwrap(sub["dict"])["model"] is not None)
            )
            (table if holds_table else field).append(item)
            t = nxt
        elif isinstance(item, int) and kinds["list"] is not None:
            table[-1:] = [f"{table[-1] if table else ''} #{item + 1}"]
            t = kinds["list"]
        elif isinstance(item, str) and kinds["dict"] is not None:
            table.append(item)
            t = kinds["dict"]
        else:
            (field if not table or t is None else table).append(str(item))
            t = None
    name = f"[{'.'.join(table)}]" if table else ""
    if not field:
        return name, None
    return name, field[0] + "".join(f" {f}" if f.startswith("#") else f".{f}" for f in field[1:])


_BOUNDS = {
    "greater_than_equal": (">=", "ge"),
    "greater_than": (">", "gt"),
    "less_than_equal": ("<=", "le"),
    "less_than": ("<", "lt"),
}


def expected_text(err: dict) -> str:
    """What a pydantic error says was expected, in the house's words."""
    t, ctx = err["type"], err.get("ctx") or {}
    simple = {
        "int_type": "an integer",
        "int_parsing": "an integer",
        "int_from_float": "an integer",
        "float_type": "a number",
        "float_parsing": "a number",
        "finite_number": "a finite number",
        "string_type": "a string",
        "bool_type": "true or false",
        "list_type": "a list",
        "tuple_type": "a list",
        "dict_type": "a table",
        "model_type": "a table",
        "model_attributes_type": "a table",
        "missing": "a value (the field is required)",
    }
    if t in simple:
        return simple[t]
    if t in _BOUNDS:
        sign, key = _BOUNDS[t]
        v = ctx.get(key)
        kind = "an integer" if isinstance(err.get("input"), int) and isinstance(v, int) else "a number"
        if isinstance(v, int) and not isinstance(v, bool) and int(float(f"{v:g}")) != v:  # (a bound %g rounds,
            # printed exactly: the largest seed was "9.22337e+18", hunt 31a-W4; 1e+09 is 1e+09)
            return f"{kind} {sign} {v}"
        return f"{kind} {sign} {v:g}" if isinstance(v, (int, float)) else f"a value {sign} {v}"
    if t == "literal_error":
        return str(ctx.get("expected"))
    if t == "too_short":
        return f"at least {ctx.get('min_length')} item(s)"
    if t == "too_long":
        return f"at most {ctx.get('max_length')} item(s)"
    if t == "string_pattern_mismatch":
        return f"text matching {ctx.get('pattern')!r}"
    if t in ("value_error", "assertion_error"):
        return str(ctx.get("error", err["msg"]))
    return err["msg"][0].lower() + err["msg"][1:]


def _shown(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 200:
        # (repr() of more than 4,300 digits is Python's ValueError: TOML's 0x... of 5,000 digits was a traceback,
        # hunt 37a-F1)
        return shown_value(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


#: location parts pydantic adds for the member of a union (``constrained-float``, ``dict[str,...]``)
def _is_tag(item) -> bool:
    return isinstance(item, str) and (
        "[" in item
        or item
        in {
            "constrained-float",
            "constrained-int",
            "constrained-str",
            "function-after",
            "int",
            "float",
            "str",
            "bool",
            "list",
            "dict",
            "nullable",
            "tuple",
        }
    )


def _model_at(model, loc: tuple):
    """The model a location leads to (for the allowed fields of an unknown one), or None."""
    t = model
    for item in loc:
        kinds = _unwrap(t)
        if kinds["model"] is not None and isinstance(item, str) and item in kinds["model"].model_fields:
            t = kinds["model"].model_fields[item].annotation
        elif isinstance(item, int) and kinds["list"] is not None:
            t = kinds["list"]
        elif isinstance(item, str) and kinds["dict"] is not None:
            t = kinds["dict"]
        else:
            return None
    return _unwrap(t)["model"]


def _message(exc: ValidationError, where: str, root: str, model) -> str:
    return _located(exc, root, model) if not where else f"{where}: {_located(exc, root, model)}"


def _clean_loc(error: dict) -> tuple:
    """An error's location without pydantic's own tags (``function-after[...]``, union members); the last item of
    an unknown field is the file's own key, kept whatever it looks like (a key ``"[players"`` read as a tag left
    no location at all, and an IndexError)."""
    loc = error["loc"]
    if error["type"] == "extra_forbidden" and loc:
        return (*(x for x in loc[:-1] if not _is_tag(x)), loc[-1])
    return tuple(x for x in loc if not _is_tag(x))


def _located(exc: ValidationError, root: str, model) -> str:
    """The message of a validation error after the file's name: the table, the field, the value, what was
    expected."""
    errors = [{**e, "loc": _clean_loc(e)} for e in exc.errors(include_url=False)]
    unknown = [e for e in errors if e["type"] == "extra_forbidden"]
    if unknown:
        return _unknown_fields(unknown, root, model)
    # of a union's errors, the member that got furthest into the value says best what is wrong
    e = max(errors, key=lambda x: len(x["loc"]))
    table, field = _where(e["loc"], root, model)
    if field is None:  # the table itself: its type, or a rule across its fields
        return _head(table, ": ") + _said(e)
    return _head(table, " ") + _field_message(e, field, model)


def _head(table: str, sep: str) -> str:
    return f"{table}{sep}" if table else ""


def _said(e: dict) -> str:
    """What a rule says (a validator's own sentence), else ``expected ..., got ...``."""
    if e["type"] in ("value_error", "assertion_error"):
        return expected_text(e)
    if e["type"] == "missing":  # a required table left out: its "input" is the whole file above it, not a value
        return "missing; the table is required"
    return f"expected {expected_text(e)}, got {_shown(e.get('input'))}"


def _unknown_fields(unknown: list[dict], root: str, model) -> str:
    """Unknown fields of the first table that has any, with the fields that table allows."""
    at = unknown[0]["loc"][:-1]
    fields = sorted(str(e["loc"][-1]) for e in unknown if e["loc"][:-1] == at)
    table = _where(at, root, model)[0] if at else (f"[{root.strip('[]')}]" if root else "")
    owner = _model_at(model, at)
    allowed = sorted(owner.model_fields) if owner is not None else []
    return f"{_head(table, ': ')}unknown field(s) {shown_list(fields)}; allowed: {shown_list(allowed, 40)}"


def _field_message(e: dict, field: str, model) -> str:
    """An error of one field: a rule's sentence, a missing field, or what was expected (with every bound of the
    field where one is broken, and its description) and what was given."""
    owner = _model_at(model, e["loc"][:-1]) or _model_at(model, e["loc"][:1])
    info = owner.model_fields.get(field.split(" ")[0].split(".")[0]) if owner is not None else None
    desc = f" ({info.description})" if info is not None and info.description else ""
    if e["type"] in ("value_error", "assertion_error"):
        return f"field {field!r}: {expected_text(e)}"
    if e["type"] == "missing":
        return f"missing field {field!r}{desc}"
    expected = expected_text(e)
    if e["type"] in _BOUNDS and info is not None and " " not in field and _constraints(info):
        # every bound of the field, not only the one broken: "an integer >= 2 and <= 12"
        expected = " ".join(expected.split(" ")[:2]) + " " + _constraints(info).replace(", ", " and ")
    return f"field {field!r}: expected {expected}{desc}, got {_shown(e.get('input'))}"


def _models_in(annotation) -> list[type[BaseModel]]:
    """The models an annotation names (``Sub``, ``Sub | None``, ``list[Sub]``, ``dict[str, Sub]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in typing.get_args(annotation) for m in _models_in(a)]


def check(model: type[Table], data: Any, where: str, *, root: str = "", context: dict | None = None) -> Table:
    """``data`` (a parsed table) validated against ``model``; an error names ``where`` (the file), the table
    (``root`` for a table that is not the file's top), the field, the value and what was expected.

    Parameters
    ----------
    model : Table subclass
        The declaration.
    data : object
        The parsed value (a dict for a table).
    where : str
        The file (or other origin) for messages.
    root : str
        The table's name in the file (``"[workload]"``) where ``data`` is not the whole file.
    context : dict, optional
        Passed to the model's validators (``info.context``): the study's folder, say.

    Raises
    ------
    InputError
    """
    if not isinstance(data, dict):
        name = root or "the file"
        head = f"{where}: " if where else ""
        raise InputError(f"{head}{name}: expected a table of fields, got {type(data).__name__} {_shown(data)}")
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise InputError(_message(exc, where, root, model)) from None
    except RecursionError:
        raise InputError(f"{where}: {root or 'the file'}: nested too deeply to check".lstrip(": ")) from None


def _type_text(annotation) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = [_type_text(a) for a in args if a is not type(None)]
        return " or ".join(parts)
    if origin is typing.Literal:
        return " or ".join(f"`{a!r}`" for a in args)
    if origin in (list, tuple):
        inner = ", ".join(_type_text(a) for a in args if a is not Ellipsis)
        return f"list of {inner}" if inner else "list"
    if origin is dict:
        return f"table of {_type_text(args[1])}" if len(args) == 2 else "table"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "table"
    names = {int: "integer", float: "number", str: "string", bool: "boolean"}
    if origin is typing.Annotated:
        return _type_text(args[0])
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _constraints(info) -> str:
    """A field's range: its own constraints and those of the type it holds (``Annotated[int, Field(ge=1)]``)."""
    metadata = list(info.metadata)
    todo = [info.annotation]
    while todo:
        a = todo.pop()
        if typing.get_origin(a) is typing.Annotated:
            metadata += list(a.__metadata__)
            todo.append(typing.get_args(a)[0])
        elif typing.get_origin(a) in (typing.Union, __import__("types").UnionType):
            todo += list(typing.get_args(a))
    # a length is of a list's items or of a string's characters ("items >= 1" read as a bound on each value)
    outer = info.annotation
    if typing.get_origin(outer) in (typing.Union, __import__("types").UnionType):  # Optional[...]: what it holds
        outer = next((a for a in typing.get_args(outer) if a is not type(None)), outer)
    while typing.get_origin(outer) is typing.Annotated:
        outer = typing.get_args(outer)[0]
    text_field = outer is str
    out = []
    metadata = [x for m in metadata for x in ([m, *getattr(m, "metadata", [])])]
    for m in metadata:
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"), ("min_length", None)):
            v = getattr(m, attr, None)
            if v is None:
                continue
            if sign is None:
                unit = "character" if text_field else "item"
                text = f"at least {v} {unit}{'' if v == 1 else 's'}"
            else:
                text = f"{sign} {v}"
            if text not in out:
                out.append(text)
    out.sort(key=lambda c: c.startswith("<"))  # lower bounds first
    return ", ".join(out)


def _default_text(info) -> str:
    if info.is_required():
        return "required"
    d = info.get_default(call_default_factory=True)
    if d is None:
        return "-"
    if isinstance(d, float) and not math.isfinite(d):
        return str(d)
    if isinstance(d, BaseModel):
        return "(its defaults)"
    return f"`{d!r}`" if not isinstance(d, (dict, list)) or d else "empty"


def reference(model: type[Table], title: str, *, level: int = 2, root: str = "") -> str:
    """The Markdown reference of a schema: one section per table, one row per field (type, range,
    default, description), from the declarations themselves."""
    lines: list[str] = []
    seen: set = set()

    def walk(m: type[BaseModel], name: str) -> None:
        if (m, name) in seen:
            return
        seen.add((m, name))
        lines.append(f"{'#' * level} `{name or title}`\n")
        if m.__doc__:
            lines.append(" ".join(m.__doc__.split()) + "\n")
        lines.append("| field | type | range | default | meaning |")
        lines.append("|---|---|---|---|---|")
        subs = []
        for fname, info in m.model_fields.items():
            lines.append(
                f"| `{fname}` | {_type_text(info.annotation)} | {_constraints(info) or '-'} | "
                f"{_default_text(info)} | {(info.description or '').replace('|', '/')} |"
            )
            for sub in _models_in(info.annotation):
                key = "NAME" if typing_is_mapping(info.annotation) else None
                inner = f"{name.strip('[]')}.{fname}" if name else fname
                subs.append((sub, f"[{inner}{'.' + key if key else ''}]"))
        lines.append("")
        for sub, sub_name in subs:
            walk(sub, sub_name)

    walk(model, root)
    return "\n".join(lines)


def typing_is_mapping(annotation) -> bool:
    """Whether an annotation is (or includes) a ``dict[str, Model]``: a table of named tables."""
    if typing.get_origin(annotation) is dict:
        return True
    return any(typing_is_mapping(a) for a in typing.get_args(annotation))
