"""What a message says of the screen, read as the request it makes (`screen_words_read`). (Hand-written: closed
lists of pressing verbs and screen nouns, in both languages.)

- A press: "clica em confirmar", "aperta o botão de <verbo> na 311", "hit 'new <entity>' for …", "click the undo
  button", "press OK". The press is how the user thinks of it, not what is asked: the words after it are read as
  the request (a confirmation, an undo, a verb and its item). Only at the message's start, and only when
  something follows. A courtesy (or its sarcastic twin) before the verb goes too: "faça o favor de …", "is it
  too much to ask to …".
- The screen said first: "na aba de <filhos> da 340 da <Dona> adiciona <x>" asks for the addition, said where
  it is seen — read with the place after the request, as "adiciona <x>, na aba de <filhos> da 340 …" is.
- A tab's content asked: "o que aparece na aba de <filhos> da 311?" asks for the items, not for the tab.
"""

from __future__ import annotations

import re

_PRESS = re.compile(
    r"^\s*(?:(?:pode|please|can you|could you|just|so)\s+)*"
    r"(?:clica|clique|clicar|clicka|click|aperta|aperte|apertar|pressiona|pressione|press|hit|tap)\s+"
    r"(?:(?:on|em|no|na|o|the|that|esse|nesse|neste|este)\s+)*"
    r"(?:(?:bot[aã]o|button|op[cç][aã]o|option)\s+(?:(?:de|do|da|of)\s+)?)?",
    re.IGNORECASE)
_QUOTED_FIRST = re.compile(r"^[\"'“‘«]([^\"'”’»]{1,40})[\"'”’»]")
_BUTTON_AFTER = re.compile(r"\s+(?:button|bot[aã]o)\b", re.IGNORECASE)


# "Faça o favor de marcar …", "faz favor de abrir …" (pt-PT), "is it too much to ask to push …", "would it kill you to
# …": a courtesy, or its sarcastic twin, that opens the request before its verb
_FAVOUR = re.compile(r"^\s*(?:(?:fa[çc]a|faz|fazes|fa[çc]am)\s+(?:o\s+)?favor\s+de|is it (?:too much|asking too much) "
                     r"to ask(?: you)? to|would it kill you to|custa(?:va)?(?: muito)?)\s+", re.IGNORECASE)


# "Mostre-me, se faz favor, as …": the courtesy of Portugal, wherever said, is no value nor verb ("faz")
_IF_YOU_PLEASE = re.compile(r",?\s*\bse\s+faz(?:es)?\s+(?:o\s+)?favor\b,?\s*", re.IGNORECASE)


def pressed(text: str) -> str:
    """The message without the press that opens it ("aperta o botão de <verbo> na 311" → "<verbo> na 311")."""
    text = _IF_YOU_PLEASE.sub(" ", _FAVOUR.sub("", text)).strip()
    match = _PRESS.match(text)
    if match is None or not text[match.end():].strip():
        return text
    said = _QUOTED_FIRST.sub(r"\1", text[match.end():].lstrip())
    return _BUTTON_AFTER.sub("", said, count=1)


_SCREEN = re.compile(r"^\s*(?:(?:na|no|nas|nos)\s+(?:aba|tela|separador|guia|p[aá]gina)|(?:on|in|at) the(?:\s+\w+){0,2}"
                     r"\s+(?:tab|screen|page))\b", re.IGNORECASE)
# after the screen noun: what it is of, up to the item's number and its owner's capitalized name ("da 340 da
# Construtora Horizonte"), else one or two words ("de <filhos>")
_OF_ITEM = re.compile(r"^(?:\s+[^\s\d,.;:!?]+){0,5}?\s+\d+(?:\s+(?:da|do|de|of)(?:\s+[A-ZÀ-Ý][^\s,.;:!?]*)+)?[,;:]?")
_OF_WORDS = re.compile(r"^(?:\s+(?:de|do|da|dos|das|of))?\s+[^\s,.;:!?]+[,;:]?")


def screen_after(text: str) -> str:
    """The message with the screen it opens with said after the rest ("na aba de <filhos> da 311 adiciona <x>" →
    "adiciona <x> na aba de <filhos> da 311"), when something follows it."""
    match = _SCREEN.match(text)
    if match is None:
        return text
    of = _OF_ITEM.match(text[match.end():]) or _OF_WORDS.match(text[match.end():])
    end = match.end() + (of.end() if of else 0)
    rest = text[end:].strip()
    if not rest or not any(c.isalpha() for c in rest):
        return text
    asked = "?" if rest.endswith("?") else ""
    # (the place is its own clause: never part of what an item is said to say)
    return f"{rest.rstrip('?').rstrip()}, {text[:end].strip().rstrip(',;:')}{asked}"


# "o que aparece na aba de <filhos> da 311?", "show me the rows on the <filhos> tab of 53": what a tab shows, asked
# — the items themselves are the answer (the tab's noun left out, it is read as "o que tem nos <filhos> da 311?")
_TAB_NOUN = re.compile(r"\b(?:aba|separador|guia|tab)\b(?:\s+(?:de|do|da|dos|das)\b)?\s*", re.IGNORECASE)
_CONTENT_ASKED = re.compile(r"\b(?:o que|what|what s|whats|quais|quem|who|rows|linhas|itens|items|entries|registros)\b",
                            re.IGNORECASE)


# "… can you go to the <x> tab?", "vai na aba …": the tab itself asked for
_GO_TO = re.compile(r"\b(?:go to|go back to|open|switch to|take me to|jump to|navigate to|vai|vá|va|ir|abre|abra|abrir|"
                    r"leva|entra|mostra a aba|show me the \w+ tab)\b", re.IGNORECASE)


def tab_content_asked(text: str) -> str:
    """The message without a tab's noun when it asks what the tab holds (above); else as typed."""
    if not _CONTENT_ASKED.search(text.replace("'", " ")) or not _TAB_NOUN.search(text) or _GO_TO.search(text):
        return text
    return _TAB_NOUN.sub("", text)


def screen_words_read(text: str) -> str:
    """The message with what it says of the screen read as the request it makes (the press, the tab said first,
    a tab's content asked)."""
    return tab_content_asked(screen_after(pressed(text)))
