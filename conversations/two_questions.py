"""Two questions in one message: "who's responsible for <entity> 318, and is it <state> yet?", "qual a
<campo> da 311 e ela já está <estado>?". Each clause is answered as the question it is (state_question,
question.field_question) — the second about the item the first named ("it", "ela") — and the answers are
given together. Only when the first clause is such a question; a list or a request is never split here.
"""

from __future__ import annotations

from . import lexicon
from .flow import rest
from .question import field_question
from .state_question import STATE_VERBS, state_question
from .statemachine import Status
from .turns import Turn

_JOINERS = frozenset(lexicon.tokens("and e"))
# What opens the second question: a question word or a state verb ("and is it …", "e quando …").
_OPENS = lexicon.OPEN_QUESTION_WORDS | STATE_VERBS
_PRONOUNS = lexicon.DEMONSTRATIVES | lexicon.CREATED


def split_questions(parts: list[str], fields: frozenset[str] = frozenset(),
                    nouns: frozenset[str] = frozenset()) -> tuple[list[str], list[str]] | None:
    """The two clauses of "<question> and <question>" ("… e ela já está …": a pronoun may come first; "… e de qual
    <campo> ela é?": a copula or a preposition too), or None. `fields`: the words that name a field in one word —
    "state the <campo> and the <campo>" asks the second field of the same item; `nouns`: the entities' nouns."""
    at = next((i for i in range(1, len(parts) - 1)
               if parts[i] in _JOINERS and _opens(parts[i + 1:], fields, nouns, parts[:i])), None)
    return (parts[:at], parts[at + 1:]) if at is not None else None


def _opens(rest: list[str], fields: frozenset[str], nouns: frozenset[str], before: list[str]) -> bool:
    start = 1 if rest[0] in _PRONOUNS and len(rest) > 1 else 0
    if rest[start] in _OPENS:
        return True
    lead = next((i for i, w in enumerate(rest[:3]) if w not in _LEADS), len(rest))
    # "the <campo> and the <campo> (of <entity> 318 …)": each side a field's one word, the item it is asked of
    # aside — never a request that names a field ("create one like this, with <x> as <campo> and valid for …")
    return (lead < len(rest) and rest[lead] in lexicon.OPEN_QUESTION_WORDS) or (
        _a_field_alone(rest, fields, nouns) and _a_field_alone(before, fields, nouns))


def _a_field_alone(words: list[str], fields: frozenset[str], nouns: frozenset[str]) -> bool:
    head = words[:next((i for i, w in enumerate(words) if i and w in _OF), len(words))]
    said = [w for w in head if w not in lexicon.ARTICLES and w not in lexicon.FILLER and not w.isdigit()
            and w not in lexicon.QUESTION_WORDS and len(w) > 1 and (w not in nouns or w in fields)]
    return len(said) == 1 and said[0] in fields


# "State the <campo> and the <campo>", "me diz a <campo> e o <campo>": asked as a command to tell.
_TELLS = frozenset(lexicon.tokens("state tell say give diga diz fala informe informa"))
# Before the second question's word: "e é de qual …", "and is it from which …", "e de quem …".
_LEADS = frozenset(lexicon.tokens("e é de do da of from is it ela ele"))


def two_questions(turn: Turn, parts: list[str]) -> bool:
    """Answer both questions; False (nothing done) when the first clause is not a question about an item."""
    told = next((i + 1 for i, p in enumerate(parts[:2]) if p in _TELLS), 0)  # ("state" names no field there)
    asked = lexicon.asks(parts, turn.text) or told
    clauses = split_questions(parts[told:], turn.grammar.field_words, turn.grammar.noun_words) if asked else None
    clauses = _item_said_once(turn, clauses) if clauses else None
    if clauses is None or not _answer(turn, clauses[0]):
        return False
    first = turn.response
    if first is None or first.get("type") != "answer":
        return True  # a clarification of the first
    turn.go(Status.UNDERSTANDING)  # (the answer left the conversation at rest: the second may ask which one)
    if not _answer(turn, clauses[1]):
        rest(turn)
        turn.response = first
        return True  # a second clause that asks nothing answerable: the first answer stands
    second = turn.response
    if second is not None and second is not first:
        second["message"] = f"{first['message']} {second['message']}"
    return True


def _answer(turn: Turn, clause: list[str]) -> bool:
    return state_question(turn, clause) or field_question(turn, clause)


_OF = frozenset(lexicon.tokens("da do de of on for na no in"))


def _item_said_once(turn: Turn, clauses: tuple[list[str], list[str]]) -> tuple[list[str], list[str]]:
    """"tell me the <campo> and the <campo> of 318": the item named once, at the end, is the first question's too
    — its words ("of 318", "da <entidade> 318") said after the first clause as well."""
    first, second = clauses
    at = next((i for i, p in enumerate(second) if p.isdigit()), None)
    if at is None or any(p.isdigit() for p in first):
        return clauses
    start, of = at, None
    while start > 0 and (second[start - 1] in _OF or second[start - 1] in lexicon.ARTICLES or (
            second[start - 1] in turn.grammar.noun_words and second[start - 1] not in turn.grammar.field_words)):
        start -= 1
        of = start if second[start] in _OF else of
    return (first + second[of:], second) if of is not None else clauses
