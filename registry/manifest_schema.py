"""JSON Schema (draft 2020-12) of a `capabilities/*.yaml` file.

A file holds `resources:`, `capabilities:` and/or `composites:`. What a schema cannot say (references between
entries, path placeholders, kind/risk coherence) is checked by registry.manifest after it.

Conventions the runtime relies on:
- `${input.<path>}` / `${result.<path>}` / `${before.<path>}` are references in undo, compensation
  and verification inputs and assertion values (the step's input, its result, a read taken before).
- An assertion is `{path, op, value?, when_input?}`; `path` is dotted, `[*]` maps over a list
  (`items[*].key`); ops: equals, not_equals, contains, not_contains, exists, absent. `when_input`
  names an input field: the assertion applies only when the step's input has it.
- A condition (undo) is an assertion evaluated on `{input, result}`.
- `verification` is what must hold after a write (PRD-006 §27-§28), checked after every write, a
  batch item's too (execution/verify.py): `expect` found | not_found, and `assertions` — read in the
  re-read of the target (`subject: target`, the default) or in the write's own answer (`subject:
  response`), with two more ops, gte and lte. The re-read is `capability` with `input`; without them, the
  registered reader of the entity the write names, by its id.
"""

from __future__ import annotations

_ID = r"^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+$"
_REF = {"type": "string", "pattern": _ID}
_TEMPLATE_MAP = {"type": "object", "additionalProperties": {}}
_LANGS = {"type": "object", "required": ["pt-BR", "en"], "additionalProperties": False,
          "properties": {"pt-BR": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
                         "en": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}}}

ASSERTION = {
    "type": "object",
    "required": ["path", "op"],
    "additionalProperties": False,
    "properties": {
        "path": {"type": "string", "minLength": 1},
        "op": {"enum": ["equals", "not_equals", "contains", "not_contains", "exists", "absent"]},
        "value": {},
        "when_input": {"type": "string"},
    },
}

_CALL = {
    "type": "object",
    "required": ["resource", "method", "path"],
    "additionalProperties": False,
    "properties": {
        "resource": {"type": "string", "minLength": 1},
        "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
        "path": {"type": "string", "pattern": r"^[^/].*$|^$"},
        "query": {"type": "array", "items": {"type": "string"}},
        "body": {"type": "array", "items": {"type": "string"}},
        "if_match": {"type": "string", "description": "input field sent as If-Match (the entity's revision)"},
    },
}

_NAVIGATION = {
    "type": "object",
    "required": ["route"],
    "additionalProperties": False,
    "properties": {
        "route": {"type": "string", "pattern": "^/"},
        "entity": {"type": "string"},
        "tab": {"type": "string", "description": "input field naming the tab to open"},
        "focus": {"type": "string"},
    },
}

_INVOCATION = {  # undo / compensation: another capability and how to build its input
    "type": "object",
    "required": ["capability", "input"],
    "properties": {"capability": _REF, "input": _TEMPLATE_MAP},
}

_UNDO = {
    **_INVOCATION,
    "required": ["capability", "input", "expires_after_seconds"],
    "additionalProperties": False,
    "properties": {
        **_INVOCATION["properties"],
        "conditions": {"type": "array", "items": ASSERTION},
        "expires_after_seconds": {"type": "integer", "minimum": 1},
    },
}

_COMPENSATION = {**_INVOCATION, "additionalProperties": False,
                 "properties": {**_INVOCATION["properties"], "conditions": {"type": "array", "items": ASSERTION}}}

VERIFY_OPS = ("equals", "not_equals", "contains", "not_contains", "exists", "absent", "gte", "lte")
VERIFY_ASSERTION = {
    **ASSERTION,
    "properties": {
        **ASSERTION["properties"],
        "op": {"enum": list(VERIFY_OPS)},
        # Not `on`: YAML 1.1 reads that key as the boolean true.
        "subject": {"enum": ["target", "response"], "default": "target",
                    "description": "the re-read of the target, or the write's own answer"},
    },
}

_VERIFICATION = {
    "type": "object",
    "additionalProperties": False,
    "anyOf": [{"required": ["capability"]}, {"required": ["assertions"]}],
    "dependentRequired": {"capability": ["input"], "input": ["capability"]},
    "properties": {
        "capability": _REF,
        "input": _TEMPLATE_MAP,
        "expect": {"enum": ["found", "not_found"], "default": "found"},
        "assertions": {"type": "array", "items": VERIFY_ASSERTION, "minItems": 1},
    },
}

_RETRY = {
    "type": "object",
    "required": ["max_attempts"],
    "additionalProperties": False,
    "properties": {
        "max_attempts": {"type": "integer", "minimum": 1, "maximum": 10},
        "backoff": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "initial_ms": {"type": "integer", "minimum": 0},
                "max_ms": {"type": "integer", "minimum": 0},
                "multiplier": {"type": "number", "minimum": 1},
            },
        },
        "jitter": {"enum": ["none", "full", "equal"]},
        "retryable": {"type": "array", "uniqueItems": True,
                      "items": {"enum": ["TIMEOUT", "RATE_LIMIT", "TEMPORARY_UNAVAILABLE", "NETWORK"]}},
    },
}

_ADAPTATION = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "max_batch": {"type": "integer", "minimum": 1},
        "concurrency": {
            "type": "object", "required": ["min", "initial", "max"], "additionalProperties": False,
            "properties": {k: {"type": "integer", "minimum": 1} for k in ("min", "initial", "max")},
        },
        "timeout_ms": {
            "type": "object", "required": ["initial", "max"], "additionalProperties": False,
            "properties": {k: {"type": "integer", "minimum": 1} for k in ("initial", "max")},
        },
        "hedgeable": {"type": "boolean"},
        "fallback_resources": {"type": "array", "items": {"type": "string"}},
    },
}

_NOUN = {  # how replies name the slot's entity: "a <one> 45", "as <many>", "da <one>" (gender: the article)
    "type": "object",
    "required": ["one", "many"],
    "additionalProperties": False,
    "properties": {"one": {"type": "string", "minLength": 1}, "many": {"type": "string", "minLength": 1},
                   "gender": {"enum": ["f", "m"], "description": "for the Portuguese article (a/o, da/do)"}},
}

_SLOT = {
    "type": "object",
    "required": ["name", "type"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-z][a-zA-Z0-9_]*$"},
        "type": {"type": "string", "minLength": 1},
        "field": {"type": "string", "description": "input field the slot fills (default: name)"},
        "required": {"type": "boolean"},
        "many": {"type": "boolean"},
        "from_context": {"type": "boolean", "description": "may be taken from the UI selection or the active entity"},
        # `filter`: a read's free-text filter, taken only from a name no other slot took ("quantas <entidades>
        # no <Lugar>?"); `window_from` / `window_to`: the first and last day of a window of dates a read is
        # filtered by ("nos próximos 15 dias", "next week") — conversations/text_filter.py.
        "parse": {"enum": ["integer", "text", "enum", "reference", "date", "entity_number", "filter", "window_from",
                           "window_to"]},
        # A date slot whose API refuses earlier dates: said earlier, it is asked again before any plan.
        "not_before": {"enum": ["today"]},
        # The unit an amount of this slot is said in ("20 dias"): such an amount is evidence for its write.
        "unit": {"enum": ["days"]},
        # A reference slot: fields of its resolver's items that name one too ("<field>", "<relation>.name").
        "named_by": {"type": "array", "items": {"type": "string", "pattern": r"^[a-z_][a-z0-9_.]*$"}},
        "values": {"type": "array", "items": {"type": "string"}},
        "resolver": {
            "type": "object",
            "required": ["capability", "by"],
            "additionalProperties": False,
            "properties": {
                "capability": _REF,
                "by": {"enum": ["name", "number", "key"]},
                "query_field": {"type": "string"},
                "value": {"type": "string", "description": "field of the match put into the input (default id)"},
                "label": {"type": "string"},
            },
        },
        "synonyms": _LANGS,
        "noun": {"type": "object", "required": ["pt-BR", "en"], "additionalProperties": False,
                 "properties": {"pt-BR": _NOUN, "en": _NOUN}},
        # The slot's field as replies name it ("data", "date"), per language.
        "label": {"type": "object", "required": ["pt-BR", "en"], "additionalProperties": False,
                  "properties": {lang: {"type": "string", "minLength": 1} for lang in ("pt-BR", "en")}},
        # Words for each enum value ("em rascunho" for DRAFT); the first of each language also names it.
        "value_synonyms": {"type": "object", "additionalProperties": _LANGS},
        # Only its value_synonyms name a value: the bare value word ("high", "low") may be part of a
        # free-text slot's value ("loose railing on a high platform"), never the enum's.
        "synonyms_only": {"type": "boolean"},
    },
}

_SAYS = {"type": "object", "required": ["pt-BR", "en"], "additionalProperties": False,
         "properties": {lang: {"type": "string", "minLength": 3} for lang in ("pt-BR", "en")}}

# A resource-state rule policy checks on the facts read about each target before any confirmation:
# the target's `fact` must be `in` (or `not_in`) the values; `code` names the refusal, `says` is what
# the user reads (pt-BR, en).
_PRECONDITION = {
    "type": "object",
    "required": ["target", "fact", "code", "says"],
    "additionalProperties": False,
    "oneOf": [{"required": ["in"]}, {"required": ["not_in"]}],
    "properties": {
        "target": {"type": "string", "minLength": 1, "description": "entity type (a language.entity)"},
        "fact": {"type": "string", "minLength": 1},
        "in": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "not_in": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "code": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
        "says": _SAYS,
    },
}

_TEMPLATES = {"type": "object", "required": ["pt-BR", "en"], "additionalProperties": False,
              "properties": {"pt-BR": {"type": "string", "minLength": 3}, "en": {"type": "string", "minLength": 3}}}

_LANGUAGE = {
    "type": "object",
    "required": ["entity", "verbs", "phrasings"],
    "additionalProperties": False,
    "properties": {
        "entity": {"type": "string", "minLength": 1},
        "intent": {"type": "string"},
        "verbs": _LANGS,
        "phrasings": _LANGS,
        "slots": {"type": "array", "items": _SLOT},
        # How a confirmation names the action: `{target}` and `{<slot>}` placeholders; a `[...]` part
        # is dropped when a placeholder inside it has no value.
        "summary": _TEMPLATES,
        # The reply once the operation completed, with the same placeholders.
        "done": _TEMPLATES,
        # The step's label in progress events and the timeline ("Validando…"); without it the
        # planner builds one from the capability's description.
        "progress": _SAYS,
        # Field questions ("qual o local da <entidade> 45?", "where is it?"): output field → the words
        # and question words that ask for it, per language (on the entity's `show` read).
        "fields": {"type": "object", "additionalProperties": _LANGS},
        # How a reply lists one result of this read ("325 (Elétrica Pinheiro)"): the output field naming an
        # item, dotted output paths shown after it in parentheses, and the noun when no slot declares one.
        "item": {
            "type": "object",
            "required": ["label"],
            "additionalProperties": False,
            "properties": {
                "label": {"type": "string", "minLength": 1},
                "details": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "noun": {"type": "object", "required": ["pt-BR", "en"], "additionalProperties": False,
                         "properties": {"pt-BR": _NOUN, "en": _NOUN}},
            },
        },
        # "Evaluate every draft <entity>": the capability run over a selection. `select` is the read whose
        # language slots are the selection's filters and whose results' ids fill the plan `template`'s
        # `ids` slot; `tally` counts the results by one output field (placeholders of `done`).
        "batch": {
            "type": "object",
            "required": ["template", "ids", "select", "verbs", "summary", "done", "empty"],
            "additionalProperties": False,
            "properties": {
                "template": {"type": "string", "pattern": _ID},
                "ids": {"type": "string", "pattern": r"^[a-z][a-zA-Z0-9_]*$"},
                "select": _REF,
                "label": {"type": "string", "description": "field of a selected item that names it"},
                "verbs": _LANGS,
                "tally": {"type": "object", "required": ["field", "values"], "additionalProperties": False,
                          "properties": {"field": {"type": "string"},
                                         "values": {"type": "object", "additionalProperties": {"type": "string"}}}},
                "summary": _TEMPLATES,  # {count}, {scope}
                "done": _TEMPLATES,  # {count}, {scope}, {failed} and the tally's names
                "empty": _TEMPLATES,  # {scope}
            },
        },
    },
}

CAPABILITY = {
    "type": "object",
    "required": ["id", "description", "kind", "risk", "permissions", "input", "output", "language"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": _ID},
        "description": {"type": "string", "minLength": 10},
        "kind": {"enum": ["read", "write", "navigation"]},
        "risk": {"enum": ["read", "low", "medium", "high", "critical"]},
        "permissions": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
        "discoverable": {"type": "boolean", "default": True},
        "call": _CALL,
        "navigation": _NAVIGATION,
        "idempotent": {"type": "boolean"},
        "idempotency_key": {"type": "boolean", "description": "the API honours Idempotency-Key"},
        "cancellable": {"type": "boolean"},
        "input": {"type": "object"},
        "output": {"type": "object"},
        "undo": _UNDO,
        "compensation": _COMPENSATION,
        "verification": _VERIFICATION,
        "retry": _RETRY,
        "adaptation": _ADAPTATION,
        "language": _LANGUAGE,
        "preconditions": {"type": "array", "items": _PRECONDITION},
    },
}

RESOURCE = {
    "type": "object",
    "required": ["key", "base_path"],
    "additionalProperties": False,
    "properties": {
        "key": {"type": "string", "pattern": r"^[a-z0-9][a-z0-9-]*$"},
        "description": {"type": "string"},
        "base_path": {"type": "string", "pattern": "^/.*/$"},
        "transport": {"enum": ["inprocess", "http"]},
        "base_url_setting": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
        "timeout_ms": {
            "type": "object", "required": ["initial", "max"], "additionalProperties": False,
            "properties": {k: {"type": "integer", "minimum": 1} for k in ("initial", "max")},
        },
        "auth": {"enum": ["user_context", "none"]},
        "fallbacks": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
}

# A composite intent of the deterministic planner (`composites:`, read by planning.templates): registered
# capabilities arranged as plan steps. Planning-time values are `${intent.slots.<slot>}`,
# `${intent.targets.<role>.<id|revision|type>}` and, in a `repeat` step, `${each}` / `${each.number}`;
# every other `${...}` (steps, item, targets) is left for the executor. A value that resolves to nothing
# drops its key; `{first_of: [...]}` takes the first candidate that resolves. A step left out by `when`
# passes its own dependencies on to the steps that depend on it.
_SLOT_NAME = {"type": "string", "pattern": r"^[a-z][a-zA-Z0-9_]*$"}
_COMPOSITE_RULE = {"type": "object", "required": ["path", "op"], "additionalProperties": False,
                   "properties": {"path": {"type": "string", "minLength": 1}, "op": {"type": "string"},
                                  "value": {}, "when": _SLOT_NAME}}
_COMPOSITE_STEP = {
    "type": "object",
    "required": ["id", "capability", "input"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": r"^[a-z][A-Za-z0-9_]*(\$\{each\.number\})?$"},
        "capability": _REF,
        "input": _TEMPLATE_MAP,
        "depends_on": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "targets": {"type": "array", "items": {"type": "string"}, "description": "roles of the intent's targets"},
        "when": {**_SLOT_NAME, "description": "the step exists only when the intent has this slot"},
        "repeat": {**_SLOT_NAME, "description": "one step per value of this slot (one value counts as one)"},
        "for_each": {"type": "string", "pattern": r"^\$\{steps\."},
        "condition": {"type": "object", "required": ["ref", "op"]},
        "postconditions": {"type": "array", "items": _COMPOSITE_RULE},
        "label": _SAYS,
    },
}
_REQUIREMENT = {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": False,
                "properties": {"target": _SLOT_NAME, "slot": _SLOT_NAME,
                               "any_slot": {"type": "array", "items": _SLOT_NAME, "minItems": 2}}}
COMPOSITE = {
    "type": "object",
    "required": ["name", "description", "steps"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": _ID},
        "description": {"type": "string", "minLength": 10},
        # Checked in order before any step is built: TARGET_MISSING / SLOT_MISSING name the first gap.
        "requires": {"type": "array", "items": _REQUIREMENT},
        # "several": partial success is allowed when the plan has more than one step.
        "allow_partial": {"enum": [True, False, "several"]},
        # Every step runs once per id of `slot` (positive integers), pinned as targets of `type`.
        "batch": {"type": "object", "required": ["slot", "type"], "additionalProperties": False,
                  "properties": {"slot": _SLOT_NAME, "type": {"type": "string", "minLength": 1}}},
        "steps": {"type": "array", "items": _COMPOSITE_STEP, "minItems": 1},
    },
}

MANIFEST_FILE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "patternProperties": {"^x-": {}},  # YAML anchors shared inside one file
    "properties": {
        "resources": {"type": "array", "items": RESOURCE},
        "capabilities": {"type": "array", "items": CAPABILITY},
        "composites": {"type": "array", "items": COMPOSITE},
    },
}
