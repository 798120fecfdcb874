"""A question about the proposal on screen, then a yes: "é só essa da <nome>, né? pode ser, manda",
"that's going on 310, yes? ok go ahead", "vai <verbo> só a 52, certo? então pode".

The yes counts only when the question says nothing the proposal does not: its numbers and names are the
proposal's own (its summary as shown), it asks for no other operation and denies nothing. A number, a name or a
request the proposal lacks means the user has another item or value in mind — then nothing is confirmed and the
message is read as it would be without the yes.
"""

from __future__ import annotations

from collections.abc import Callable

from knowledge.text import fold

from . import lexicon
from .children import parent_input
from .flow import pending_confirmation
from .grammar import same_word
from .models import Confirmation
from .turns import Turn

# Words that only tag the question ("né?", "right?", "yes?") or tell that the user is checking.
_CHECKING = frozenset(lexicon.tokens("ne right yes certo correto isso so only just mesmo really that s going vai "
                                     "ficou fica ficar will be"))
_NAME_WORD = 4  # shorter words of a name ("da", "de") name nothing alone


def question_then_yes(text: str, is_yes: Callable[[str], bool]) -> list[str] | None:
    """The question's words, when the message is a question ending in "?" and then only a yes; else None."""
    head, mark, tail = text.rpartition("?")
    if not mark or not head.strip() or not is_yes(lexicon.phrase(tail)):
        return None
    return lexicon.tokens(head)


def said_beyond(turn: Turn, question: list[str], confirmation: Confirmation) -> list[str]:
    """The question's words the proposal does not have — its summary's words and its operation's verbs ("vai <verbo>
    só o <campo>, certo?") are its own — closed-class and checking words aside."""
    own = set(lexicon.tokens(confirmation.summary))
    cap = turn.grammar.capabilities.get(str((confirmation.intent or {}).get("capability")))
    verbs = {w for verb in (cap.verbs if cap else ()) for w in verb.words}
    return [w for w in question if w not in own and w not in lexicon.CLOSED_CLASS and w not in _CHECKING
            and w not in lexicon.CONFIRM_WORDS and not any(same_word(w, v) for v in verbs)]


def names_another(turn: Turn, words: list[str]) -> bool:
    """A word of a name in the tenant's catalogs (organisations, people, types): another item meant."""
    said = {w for w in words if len(w) >= _NAME_WORD}
    if not said:
        return False
    for cap in turn.grammar.capabilities.values():
        for slot in cap.slots:
            resolver = slot.resolver or {}
            if slot.parse == "reference" or not resolver.get("capability") or parent_input(turn.reader, slot):
                continue
            label = str(resolver.get("label", "name"))
            for item in turn.reader.catalog(slot):
                if said & set(lexicon.tokens(fold(str(item.get(label) or "")))):
                    return True
    return False


def checks_then_confirms(turn: Turn, text: str, *, is_yes: Callable[[str], bool],
                         asks_for_more: Callable[[list[str]], bool]) -> bool:
    """Whether `text` is a question about the confirmation on screen that says nothing it lacks, then a yes."""
    confirmation = pending_confirmation(turn)
    question = question_then_yes(text, is_yes) if confirmation is not None else None
    if question is None:
        return False
    beyond = said_beyond(turn, question, confirmation)
    # a no inside the check ("it's not 310, right? ok go") may deny what the proposal says: never a yes then
    return not (any(w in lexicon.NEGATIONS for w in question) or any(c.isdigit() for w in beyond for c in w)
                or asks_for_more(beyond)
                or turn.grammar.types_named_in(beyond) or names_another(turn, beyond))
