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
    "rescheduling": "reschedule", "completion": "complete", "relação": "listar", "relacao": "listar",
    "listagem": "listar",
}
ACTION_NOUNS = frozenset(_NOUNS)  # (control_composed.py: "desfaz essa <ação>")
# "da"/"do"/"of": the article the verb's object keeps ("a exclusão da <entidade>" → "excluir a <entidade>")
_ARTICLE = {"da": "a ", "do": "o ", "das": "as ", "dos": "os ", "de": "", "of": "", "of the": "the ", "desta": "esta ",
            "deste": "este ", "dessa": "essa ", "desse": "esse ", "this": "this ", "that": "that "}
_ASKS = r"solicit\w*|pe[çc]o|pedimos|proceda com|proceder com|prosseguir com|request\w*|proceed with|arrange"
_OPENS = re.compile(r"(?i)(?:^|[.!?,;]|\b(?:eu|nos|nós|i|we|gostaria de|gostariamos de|i would like to|i'd like to|"
                    r"ent[aã]o|portanto|assim|so|therefore|"
                    r"i d like to|we would like to|please|por favor|venho|vimos))\s*$")
_OF = "of the|da|do|das|dos|de|of|desta|deste|dessa|desse"
_NOMINAL = re.compile(rf"(?i)\b({_ASKS})\s+(?:a|o|the)\s+({'|'.join(_NOUNS)})\s+({_OF})\b")


# "Solicito que seja removido o <item> da <entidade> 311": the passive of the request, said as its verb. A participle
# → its infinitive by the language's regular endings, a few irregular ones first.
_PASSIVE = re.compile(rf"(?i)\b({_ASKS}|gostaria|favor)\s+que\s+(?:seja|sejam|fosse|fossem)\s+([^\W\d_]{{4,}})\b")
_IRREGULAR = {"abert": "abrir", "feit": "fazer", "post": "pôr", "escrit": "escrever"}
_ENDINGS = (("uíd", "uir"), ("uid", "uir"), ("ad", "ar"), ("id", "er"))


def _infinitive(participle: str) -> str | None:
    stem = participle.lower().rstrip("s")[:-1]  # "removidos" → "removid"
    if stem in _IRREGULAR:
        return _IRREGULAR[stem]
    return next((stem[:-len(end)] + verb for end, verb in _ENDINGS if stem.endswith(end)), None)


def _passive_as_verb(text: str) -> str:
    def verb(match: re.Match[str]) -> str:
        infinitive = _infinitive(match.group(2))
        if infinitive is None or not _OPENS.search(text[:match.start()]):
            return match.group(0)
        return f"{match.group(1)} {infinitive}"
    return _PASSIVE.sub(verb, text)


def as_verbs(text: str) -> str:
    """`text` with each requested action's noun said as its verb (module docstring) — only where the request
    opens a sentence: inside a sentence the words may be a name's ("explique o <item> Solicito a …")."""
    def verb(match: re.Match[str]) -> str:
        if not _OPENS.search(text[:match.start()]):
            return match.group(0)
        joiner = " to " if match.group(1).lower().startswith(("request", "arrange")) else " "
        return (f"{match.group(1)}{joiner}{_NOUNS[match.group(2).lower()]} "
                f"{_ARTICLE[match.group(3).lower()]}").rstrip() + " "
    return re.sub(r"\s{2,}", " ", _NOMINAL.sub(verb, _passive_as_verb(text)))


def verb_of_noun(word: str) -> str | None:
    """The verb an action's noun stands for ("inclusao" → "incluir"), else None: "sim, pode seguir com a inclusão"
    names the operation on screen by its noun."""
    return _NOUNS.get(word)
