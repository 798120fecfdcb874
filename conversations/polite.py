"""Requests phrased as questions or wrapped in courtesy: "você poderia prorrogar…?", "can u add that?", "would you be
so kind as to cancel that request?". The closed-class openers of the two languages (lexicon.py re-exports what it
reads), folded like the lexicon's words (knowledge.text, as lexicon.tokens: lexicon imports this module); no domain
word is here."""

from __future__ import annotations

from knowledge.text import fold, words

# "você poderia prorrogar…?", "can u add that?": a request phrased as a question.
_POLITE = tuple(tuple(words(fold(p))) for p in (
    "poderia", "poderia me", "pode", "consegue", "conseguiria", "da pra", "da para", "dava pra", "dava para",
    "daria pra", "daria para", "tem como", "teria como", "podemos", "poderiamos", "could you", "can you", "can u",
    "would you", "will you", "could u", "can we", "could we", "can i", "could i", "would you mind", "do you mind",
    "would it be possible", "is it possible", "any chance", "seria possivel", "e possivel", "sera que",
    # "bora adiar a 62?", "shall we move it?": a proposal to do it together
    "bora", "vamos", "shall we", "should we", "let s", "lets", "how about we",
    # the formal asks: "would you be so kind as to …", "could you possibly …"
    "would you be so kind as to", "be so kind as to", "would you kindly", "could you kindly", "could you possibly",
    "would you possibly"))


def polite(parts: list[str]) -> bool:
    return any(tuple(parts[i:i + len(p)]) == p for p in _POLITE for i in range(len(parts))) or _passive_ask(parts)


def asked_to(parts: list[str]) -> list[str] | None:
    """The words after a polite opener that asks someone to do it ("can you", "você pode", "poderia"),
    or None when the message does not open so."""
    for opener in _POLITE_ASKS:
        if tuple(parts[:len(opener)]) == opener and len(parts) > len(opener):
            return parts[len(opener):]
    return None


def asked_right_before(parts: list[str], at: int) -> bool:
    """Do the words right before `at` ask someone to do it ("…, please add", "…, você pode aprovar")?"""
    return any(at >= len(o) and tuple(parts[at - len(o):at]) == o for o in _POLITE_ASKS)


def asks_to_act(parts: list[str]) -> bool:
    """Do the words ask someone to do something other than tell ("…; would you cancel it, please?", "poderia
    concluí-la?") — a request in a question's clothes, not a question ("could you tell me if it was cancelled?")?"""
    return any(tuple(parts[i:i + len(o)]) == o and i + len(o) < len(parts) and parts[i + len(o)] not in _TELL
               for o in _POLITE_ASKS for i in range(len(parts))) or _passive_ask(parts)


def _passive_ask(parts: list[str]) -> bool:
    """"can <item> be pushed back a day?", "could it be moved to friday?": asked of the thing, not of someone — a
    request all the same (a participle after "be"; "can it be that …" asks nothing)."""
    if parts[:1] not in (["can"], ["could"]):
        return False
    return any(p == "be" and parts[i + 1:i + 2] and parts[i + 1].endswith(_PARTICIPLE)
               for i, p in enumerate(parts[2:], start=2))


_PARTICIPLE = ("ed", "en")  # pushed, moved, cancelled, rescheduled; taken, given


_TELL = frozenset(words(fold("tell say check see confirm let verify find show me dizer diga dizer informar informa "
                         "verificar verifica confirmar confirma checar checa ver conferir confere saber mostrar")))
_NOT_ASKING = {("can", "we"), ("could", "we"), ("can", "i"), ("could", "i"), ("podemos",), ("poderiamos",)}
_POLITE_ASKS = sorted({o for o in _POLITE if o not in _NOT_ASKING}
                      | {tuple(words(fold(p))) for p in ("voce pode", "vc pode", "voce poderia", "vc poderia",
                                                    "voce consegue", "vc consegue", "can you please",
                                                    "could you please", "please", "preciso que voce",
                                                    "preciso que vc", "preciso que o senhor", "preciso que a senhora",
                                                    "o senhor pode", "o senhor poderia", "a senhora pode",
                                                    "a senhora poderia", "i need you to", "i d like you to",
                                                    "i would like you to", "id like you to", "solicito", "solicitamos",
                                                    "solicito que", "peco que", "pedimos que")},
                      key=len, reverse=True)
