"""Entity types a message names in the plural ("as <entidades>", "<entities>"): many of them are meant, so
a list, never one of them picked (choice.choose, question.field_question)."""

from __future__ import annotations

from . import lexicon
from .grammar import Grammar


def plural_types(grammar: Grammar, parts: list[str]) -> set[str]:
    """Entity types the message names in the plural ("<entidades>", "<entities>")."""
    found = set()
    for type_, languages in grammar.nouns.items():
        many = {lexicon.tokens(forms["many"])[-1] for forms in languages.values()
                if lexicon.tokens(forms.get("many", ""))}
        singular = {w for p in grammar.synonyms.get(type_, ()) if len(p) == 1 for w in p}
        if any(p in many or (p.endswith("s") and p[:-1] in singular) for p in parts):
            found.add(type_)
        elif any(parts[i - 1] in _EVERY and p in singular for i, p in enumerate(parts) if i):
            found.add(type_)  # "every <entity>", "toda <entidade>": all of them, said in the singular
    return found


# "list every <entity>", "mostra toda <entidade> da X": a singular noun after these means all of them.
# "quais <entidade> tão agendada…": "quais" asks for many, whatever number its noun was typed in.
_EVERY = frozenset(lexicon.tokens("every each any all toda todo cada qualquer quais"))
