"""A yes said with the request on screen said again — "sim, tenho certeza, pode apagar a 311", "pode marcar como
concluída sim, já terminamos lá", "yes, book it just like that": read as a new request, the message proposes exactly
what was on screen, and it says yes. That is the confirmation of it, not a new proposal to confirm once more.

Only when the new proposal is word for word the one it set aside (its summary names the capability, the item and
the values; its confirmation level is the same) and a yes word stands in the message with no negation. Anything
else — another value, another item, a "not sure" — stays a new proposal, confirmed on its own.
(Hand-written: a closed list of yes words of two languages.)
"""

from __future__ import annotations

from . import lexicon
from .flow import pending_confirmation
from .supersede import OnScreen
from .turns import Turn

_YES = frozenset(lexicon.tokens("sim yes yeah yep yup confirmo confirmado confirmada confirmed confirm certeza sure"))


def yes_to_the_same(turn: Turn, asked: OnScreen, words: list[str]) -> bool:
    """The turn proposed again what was pending before it, and the message says yes to it (module docstring)."""
    before, new = asked[0], pending_confirmation(turn)
    if before is None or new is None or new.pk == before.pk or (turn.response or {}).get("type") != "confirmation":
        return False
    said = set(words)
    return (bool(said & _YES) and not said & (lexicon.NEGATIONS | lexicon.HEDGES) and new.summary == before.summary
            and new.level == before.level)
