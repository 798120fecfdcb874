""""and another one, medium: '<text>'" right after a write that recorded a new child with its own text: the same
write again, on the same parent, with the values this message says — proposed and confirmed as any write.

Only a write that records a text of its own (a child described in words) is repeated so: "another one" of a change
of an existing item's value says nothing new ("e outra" after a change of an amount asks which other).
"""

from __future__ import annotations

from . import lexicon
from .ellipsis import last_request
from .operations import operate
from .state import situation_for
from .turns import Turn
from .understanding import Extractor

# "and another one", "e outra", "mais um": a new one of the same kind (the words after it say its values)
_ANOTHER = [tuple(lexicon.tokens(p)) for p in (
    "and another one", "and another", "another one", "one more", "and one more", "e outro", "e outra", "mais um",
    "mais uma", "e mais um", "e mais uma")]  # (a bare "outra" opens too much: "outra coisa, …")
_ANOTHER.sort(key=len, reverse=True)


def another_one(turn: Turn, words: list[str], allowed: set[str]) -> bool:
    """The last write again with the values said after "another one"; False when this is not that."""
    opener = next((o for o in _ANOTHER if tuple(words[:len(o)]) == o and len(words) > len(o)), None)
    request = last_request(turn.conversation.context) or {}
    cap = turn.grammar.capabilities.get(str(request.get("capability")))
    if opener is None or cap is None or cap.id not in allowed or cap.kind != "write":
        return False
    texts = [s for s in cap.slots if s.parse == "text" and s.required]
    if len(texts) != 1:
        return False
    parts = words[len(opener):]
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=turn.text, language=turn.language)
    extraction = extractor.extract(cap, parts)
    if texts[0].name not in extraction.from_text:  # no text of its own: not a new one said
        return False
    operate(turn, cap, extraction, parts)
    return True
