"""Greetings, thanks, goodbyes and requests for help: answered, never "não entendi".

The words are the closed class of the two languages (like lexicon.py). What the agent can do is
never written here: help lists the capabilities this user may use, grouped by entity, each with an
example taken from the manifest's phrasings (placeholders shown as the slot's name, "<permissão>").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .grammar import CapabilityGrammar, Grammar
from .lexicon import tokens

GREETING = frozenset({"oi", "ola", "opa", "eai", "salve", "hello", "hi", "hey", "hiya", "howdy", "greetings",
                      "bom dia", "boa tarde", "boa noite", "e ai", "good morning", "good afternoon",
                      "good evening", "tudo bem", "tudo bom", "como vai", "how are you"})
THANKS = frozenset({"obrigado", "obrigada", "brigado", "brigada", "valeu", "vlw", "agradeco", "thanks", "thank you",
                    "thx", "ty", "cheers", "muito obrigado", "muito obrigada", "thanks a lot", "perfeito obrigado"})
BYE = frozenset({"tchau", "ate logo", "ate mais", "ate amanha", "falou", "bye", "goodbye", "see you", "see ya",
                 "ate a proxima"})
HELP = frozenset({"ajuda", "socorro", "help", "menu", "comandos", "o que voce pode fazer", "o que voce faz",
                  "o que vc faz", "o que vc pode fazer", "o que da pra fazer", "o que posso fazer",
                  "o que eu posso fazer", "como funciona", "como voce funciona", "como te uso", "me ajuda",
                  "me ajude", "preciso de ajuda", "what can you do", "what do you do", "how does this work",
                  "what can i do", "how do i use this", "i need help", "help me", "commands", "options"})
# Words that may come along without changing the kind ("oi, tudo bem?", "valeu pela ajuda!").
_ALONG = frozenset(tokens("por favor pela pelo ajuda a o voce vc amigo agente assistente entao ai bem muito "
                          "please for the your you there again so much pal"))
_KINDS = (("thanks", THANKS), ("help", HELP), ("bye", BYE), ("greeting", GREETING))
_PLACEHOLDER = re.compile(r"\{([^}]+)\}")
EXAMPLES_PER_REPLY = 6


def social_kind(parts: list[str]) -> str | None:
    """"greeting", "thanks", "bye" or "help" when the whole message is one of those, else None."""
    if not parts or len(parts) > 8:
        return None
    text = " " + " ".join(parts) + " "
    found: list[str] = []
    rest = text
    for kind, phrases in _KINDS:
        for phrase in sorted(phrases, key=len, reverse=True):
            if f" {phrase} " in rest:
                # A question about what it can do outweighs a courtesy ("obrigado, o que você faz?").
                found.insert(0 if kind == "help" and " " in phrase else len(found), kind)
                rest = rest.replace(f" {phrase} ", " ")
    if not found or any(word not in _ALONG for word in rest.split()):
        return None
    return found[0]


def examples(grammar: Grammar, allowed: Iterable[str], language: str, limit: int = EXAMPLES_PER_REPLY) -> list[str]:
    """One example per capability the user may use, spread over entities and kinds (navigation, reads,
    writes), from the manifest's phrasings in `language`."""
    caps = [grammar.capabilities[c] for c in sorted(allowed) if c in grammar.capabilities]
    order = {"navigation": 0, "read": 1, "write": 2}
    caps.sort(key=lambda c: (order.get(c.kind, 3), c.id))
    chosen: list[str] = []
    seen: set[tuple[str, str]] = set()
    for rounds in (0, 1):
        for cap in caps:
            key = (cap.entity, cap.kind)
            if (key in seen) != bool(rounds) or len(chosen) >= limit:
                continue
            example = _example(grammar, cap, language)
            if example and example not in chosen:
                chosen.append(example)
                seen.add(key)
    return chosen


def _example(grammar: Grammar, cap: CapabilityGrammar, language: str) -> str | None:
    phrasings = cap.examples.get(language) or cap.examples.get("en" if language == "pt-BR" else "pt-BR") or ()
    if not phrasings:
        return None

    def placeholder(match: re.Match[str]) -> str:
        slot = cap.slot(match.group(1))
        return f"<{grammar.slot_label(slot, language) if slot is not None else match.group(1)}>"

    return _PLACEHOLDER.sub(placeholder, phrasings[0])
