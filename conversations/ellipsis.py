"""Ellipsis: "e a 457?", "e as canceladas?", "and for Beta?", "e o inspetor?", "quais delas são da Beta?".

A short message opened by "e"/"and"/"what about" that names no verb reuses the conversation's
last request (kept in its context as `last_request`: a capability with its slot values, or a field
question about an entity) with what the message changes. Which slot or field it changes is found
by the normal extraction on the remainder, so nothing here knows an entity.
"""

from __future__ import annotations

from typing import Any

from . import lexicon
from .lexicon import tokens


def _the_same_for() -> list[str]:
    """"do the same on", "now the same for", "faz o mesmo na", "repete pra", "mesma coisa com": a doing of
    the same again (or none), then a preposition — composed, every combination a user may type."""
    same = ("the same", "same", "the same thing", "same thing", "the same question", "same question", "same tab",
            "the same tab")
    en = [f"{v} {s} {p}".strip() for v in ("do", "ask", "") for s in same
          for p in ("for", "with", "to", "on", "in", "at", "about")]
    en += [f"repeat {t}{p}" for t in ("", "that ", "it ", "this ") for p in ("for", "with", "on", "in")]
    to = ("para", "pra", "com", "na", "no", "em", "a", "ao")  # ("faça o mesmo à 311": "à" folds to "a")
    pt = [f"{v} {s} {p}".strip() for v in ("faz", "faca", "fazer", "") for s in ("o mesmo", "a mesma coisa",
                                                                             "mesma coisa", "a mesma aba") for p in to]
    pt += [f"{s} {p}" for s in ("a mesma pergunta", "mesma pergunta", "pergunta o mesmo", "pergunto o mesmo")
           for p in (*to, "sobre")]
    pt += [f"{v} igual {p}" for v in ("faz", "faca", "fazer") for p in to]  # ("igual na 311" alone compares)
    pt += [f"{v} {p}" for v in ("repete", "repita", "repete isso", "repita isso") for p in to]
    # "and the same for …", "e o mesmo pra …", "now do the same on …"
    return en + pt + [f"{c} {x}" for c in ("and", "now") for x in en] + [f"{c} {x}" for c in ("e", "agora") for x in pt]


_OPENERS = tuple(tuple(tokens(p)) for p in (
    "e quanto a", "e quanto ao", "e quanto aos", "e quanto as", "e sobre", "e para", "e pra", "e com", "e",
    "e agora", "agora", "now", "and now",
    "what about", "how about", "and what about", "and for", "and", "also", *_the_same_for(),
    # narrowing the last list: "quais delas são da <nome>?", "only the <name> ones"
    "quais delas", "quais deles", "quais dessas", "quais desses", "dessas", "desses", "delas", "deles",
    "quais estao", "quais ja", "quais ainda", "which are", "which ones are", "which of them are",
    "quantas delas", "quantos deles", "quantas dessas", "quantos desses", "how many of them", "how many of those",
    "how many of these",
    "so as", "so os", "apenas as", "apenas os", "somente as", "somente os", "e so as", "e so os",
    "which of those", "which of them", "which of these", "of those", "of these", "only the", "just the",
    "only those", "just those",
))
MAX_WORDS = 6
# "quais são?", "which ones?", "list them" after a count: the counted items themselves.
WHICH_ONES = frozenset(" ".join(tokens(p)) for p in (
    "quais", "quais sao", "quais sao elas", "quais sao eles", "quais seriam", "e quais sao", "mostra elas",
    "mostra eles", "lista elas", "lista eles", "me mostra elas", "me mostra quais", "me diz quais", "quais delas",
    "which", "which ones",
    "which are they", "what are they", "which ones are they", "list them", "show them", "show me them",
    "show me which", "name them", "tell me which", "and which ones"))


_ALSO = frozenset(tokens("tambem too also idem"))
_AS_WELL = ["as", "well"]
# (and every "do the same for …" an ellipsis opens with: "faz a mesma coisa na …", "do the same thing on …")
_SAME = tuple({tuple(tokens(p)) for p in (
    "same for", "the same", "same with", "o mesmo", "mesma coisa", "a mesma coisa", "faz o mesmo", "faca o mesmo",
    "faz igual", "repete", "repita", "do the same", "same thing", "repeat for", "repeat that for", "repeat it",
    "repeat this", *_the_same_for())})


def says_also(parts: list[str]) -> bool:
    """"a 311 também", "<entity> 312 too": the same again, for another target — a write included (it is
    proposed and confirmed like any other)."""
    parts = lexicon.urgency_off(parts)  # ("a 57 também, logo")
    core = parts[1:] if parts[:1] in (["and"], ["e"], ["now"], ["agora"]) else parts  # "and the same for …"
    return bool(parts) and (parts[-1] in _ALSO or parts[-2:] == _AS_WELL or any(tuple(core[:len(o)]) == o
                                                                              for o in _SAME))


def ellipsis_rest(parts: list[str]) -> list[str] | None:
    """The words after the opener (or before a closing "também"/"too") when the message is an ellipsis,
    else None."""
    parts = lexicon.urgency_off(parts)  # ("a 57 também, logo")
    if parts and parts[-1] in _ALSO and 0 < len(parts) - 1 <= MAX_WORDS:
        return parts[:-1]
    if parts[-2:] == _AS_WELL and 0 < len(parts) - 2 <= MAX_WORDS:  # "and 310 as well"
        return parts[:-2]
    tag = next((t for t in _ASKED_AGAIN if len(parts) > len(t) + 1 and tuple(parts[-len(t):]) == t), ())
    parts = parts[:len(parts) - len(tag)]  # "e as da <dona>, quais são?": the question asked again, as a tag
    for opener in sorted(_OPENERS, key=len, reverse=True):
        n = len(opener)
        if tuple(parts[:n]) == opener and 0 < len(parts) - n <= MAX_WORDS:
            return parts[n:]
    return None


_ASKED_AGAIN = [tuple(p.split()) for p in ("quais sao", "quais seriam", "which are they", "what are they",
                                           "which ones", "quais")]


def remember_capability(context: dict[str, Any], capability: str, values: dict[str, Any]) -> None:
    """Keep the request a later ellipsis reuses. A write is repeated only by "também"/"too" (and is then
    proposed for confirmation): "e a 457?" after a change is a question."""
    context["last_request"] = {"kind": "capability", "capability": capability, "values": values}


def remember_field(context: dict[str, Any], entity_type: str, entity_id: Any, field: str, *,
                   counted: bool = False) -> None:
    context["last_request"] = {"kind": "field", "type": entity_type, "id": entity_id, "field": field,
                               **({"counted": True} if counted else {})}


def last_request(context: dict[str, Any] | None) -> dict[str, Any] | None:
    request = (context or {}).get("last_request")
    return request if isinstance(request, dict) else None
