"""Spanish function words typed by a Spanish speaker writing Portuguese or English ("abre la <entidade> 52", "y de la
51?", "sacar <pessoa> de los <filhos>", "adiar ela una semana"): read as their Portuguese words, so the message is
read as the mixed Portuguese it is. Only closed-class words and a few common verbs; the domain's own nouns in
Spanish are the manifest's synonyms. "la" stays where it is the Portuguese "lá" ("me joga
la na tela"): before a preposition or at the end. "y" stays a whole message (a yes).
(Hand-written: a closed word list; no kept library maps a third language's function words.)
"""

from __future__ import annotations

import re

# (never a word Portuguese also has: "fecha" closes, "quita" pays off, "borra" smudges — they stay as typed)
_WORDS = {
    "los": "os", "las": "as", "el": "o", "una": "uma", "un": "um", "unos": "uns", "unas": "umas", "del": "do",
    "al": "ao",
    "con": "com", "en": "em", "pero": "mas", "muy": "muito", "ahora": "agora", "entonces": "então",
    "cuales": "quais", "cuáles": "quais", "cual": "qual", "cuál": "qual", "cuantos": "quantos", "cuántos": "quantos",
    "cuantas": "quantas", "cuántas": "quantas", "donde": "onde", "dónde": "onde", "hoy": "hoje", "mañana": "amanhã",
    "qué": "que", "también": "também", "quién": "quem", "quien": "quem", "día": "dia", "días": "dias",
    "crear": "criar", "crea": "cria", "agregar": "adicionar", "agrega": "adiciona", "añadir": "adicionar",
    "añade": "adiciona", "poner": "põe", "pon": "põe", "sacar": "tirar", "saca": "tira", "cambiar": "mudar",
    "cambia": "muda",
    "responsable": "responsável", "nuevo": "novo", "nueva": "nova",
}
_WORD = re.compile(r"(?<![\w'])(?:" + "|".join(sorted(map(re.escape, _WORDS), key=len, reverse=True)) + r")(?![\w'])")
_DE_LA = re.compile(r"(?<![\w'])(de|en) (la|las|los|el)(?![\w'])")
_CONTRACTED = {("de", "la"): "da", ("de", "las"): "das", ("de", "los"): "dos", ("de", "el"): "do",
               ("en", "la"): "na", ("en", "las"): "nas", ("en", "los"): "nos", ("en", "el"): "no"}
# "la" as the article: not before what follows the Portuguese "lá" ("lá na", "lá em", "lá pra"), nor at the end
_LA = re.compile(r"(?<![\w'])la(?= (?!(?:na|no|nas|nos|em|pra|pro|para|dentro|fora|mesmo|embaixo|em cima|e)\b)\w)")
_Y = re.compile(r"(?<![\w'])y(?= \w)")


_OPENING = re.compile(r"(^|[.!?]\s+)([^\W\d_]+)")


def as_portuguese(text: str) -> str:
    """The message with the Spanish function words above in Portuguese (lower case only, or capitalised where a
    sentence opens — "Crear una …": elsewhere a capital letter is a name's, and a name keeps its words)."""
    text = _OPENING.sub(lambda m: m.group(1) + (m.group(2).lower() if m.group(2).lower() in _WORDS else m.group(2)),
                        text)
    text = _DE_LA.sub(lambda m: _CONTRACTED[(m.group(1), m.group(2))], text)
    text = _LA.sub("a", _Y.sub("e", text))
    return _WORD.sub(lambda m: _WORDS[m.group(0)], text)
