"""A request made with the action's noun: "Solicito a exclusão da <entidade> 311", "I request the removal of
<item> from <entity> 51" — read as the verb: "Solicito excluir a <entidade> 311", "I request to remove …".

Only after a word that asks for it (solicito, peço, request, proceed with): elsewhere the noun names a thing
("a data da remarcação"). The nouns are the two languages' own derivations of common verbs, closed-class like
lexicon.py — no entity, field or capability is named here. Hand-written: a table and one expression; no kept
library turns a nominalized request into its verb.
"""

from __future__ import annotations

import re

# the action's noun (folded or accented as typed) → its verb
_NOUNS = {
    "exclusão": "excluir", "exclusao": "excluir", "remoção": "remover", "remocao": "remover",
    "retirada": "retirar", "cancelamento": "cancelar", "aprovação": "aprovar", "aprovacao": "aprovar",
    "alteração": "alterar", "alteracao": "alterar", "inclusão": "incluir", "inclusao": "incluir",
    "adição": "adicionar", "adicao": "adicionar", "prorrogação": "prorrogar", "prorrogacao": "prorrogar",
    "remarcação": "remarcar", "remarcacao": "remarcar", "reagendamento": "reagendar", "conclusão": "concluir",
    "conclusao": "concluir", "deletion": "delete", "removal": "remove", "cancellation": "cancel",
    "cancelation": "cancel", "approval": "approve", "addition": "add", "extension": "extend",
    "rescheduling": "reschedule", "completion": "complete",
}
# "da"/"do"/"of": the article the verb's object keeps ("a exclusão da <entidade>" → "excluir a <entidade>")
_ARTICLE = {"da": "a ", "do": "o ", "das": "as ", "dos": "os ", "de": "", "of": "", "of the": "the "}
_ASKS = r"solicit\w*|pe[çc]o|pedimos|proceda com|proceder com|prosseguir com|request\w*|proceed with|arrange"
_OPENS = re.compile(r"(?i)(?:^|[.!?]|\b(?:eu|nos|nós|i|we|gostaria de|gostariamos de|i would like to|i'd like to|"
                    r"i d like to|we would like to|please|por favor|venho|vimos))\s*$")
_NOMINAL = re.compile(rf"(?i)\b({_ASKS})\s+(?:a|o|the)\s+({'|'.join(_NOUNS)})\s+(of the|da|do|das|dos|de|of)\b")


def as_verbs(text: str) -> str:
    """`text` with each requested action's noun said as its verb (module docstring) — only where the request
    opens a sentence: inside a sentence the words may be a name's ("explique o <item> Solicito a …")."""
    def verb(match: re.Match[str]) -> str:
        if not _OPENS.search(text[:match.start()]):
            return match.group(0)
        joiner = " to " if match.group(1).lower().startswith(("request", "arrange")) else " "
        return (f"{match.group(1)}{joiner}{_NOUNS[match.group(2).lower()]} "
                f"{_ARTICLE[match.group(3).lower()]}").rstrip() + " "
    return re.sub(r"\s{2,}", " ", _NOMINAL.sub(verb, text))
