"""A part of an item shown as its page's tab (known navigation, PRD-010 §9).

"mostra os <filhos>", "show me its <children>" while that item's page is open (the last navigation, or the
item selected on screen): the page's tab of that name is opened — the user is looking at the page, and a
tab shows the part. "<valor> tab", "a aba de <valor>" (a tab value beside the tab slot's own name in the
manifest, its `label`) opens the tab, whatever is open. A question ("quais os <filhos> dela?", "what <children>
are on it?") or a list asked for ("list its <children>") is answered, not navigated: only the words a
navigation capability's own verbs begin with ("mostra", "show", "open") show a tab.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import lexicon
from .grammar import CapabilityGrammar, same_word
from .ranking import Ranked
from .turns import Turn
from .understanding import Extraction, Extractor


def tab_shown(turn: Turn, ranked: list[Ranked], parts: list[str], allowed: set[str],
              extractor: Extractor) -> tuple[CapabilityGrammar, Extraction] | None:
    """The tab navigation (and its extraction) the message means when its best reading is a read, else None."""
    if not ranked or ranked[0].cap.kind != "read" or any(p in lexicon.OPEN_QUESTION_WORDS for p in parts):
        return None
    for nav in turn.grammar.capabilities.values():
        tab = next((s for s in nav.slots if s.parse == "enum"), None)
        if nav.id not in allowed or nav.kind != "navigation" or tab is None:
            continue
        extraction = extractor.extract(nav, parts)
        if tab.name not in extraction.from_text or not extraction.complete:
            continue
        if _labelled(tab, parts) or (_shows(nav, parts) and _on_screen(turn, nav, extraction)):
            return nav, extraction
    return None


def _labelled(tab: Any, parts: list[str]) -> bool:
    """The tab slot's own name said ("<valor> tab", "aba de <valor>")."""
    names = {w for label in tab.label.values() for w in lexicon.tokens(label)} - lexicon.ARTICLES
    return any(p in names for p in parts)


def _shows(nav: CapabilityGrammar, parts: list[str]) -> bool:
    """A word the navigation's own verbs begin with ("mostra", "show"), not one that opens any request ("me", "ir",
    "vou")."""
    heads = {v.words[0] for v in nav.verbs if v.words and len(v.words[0]) > 2
             and v.words[0] not in lexicon.REQUEST_OPENERS | lexicon.ARTICLES | lexicon.FILLER}
    return any(same_word(p, h) for p in parts for h in heads)


def _on_screen(turn: Turn, nav: CapabilityGrammar, extraction: Extraction) -> bool:
    """The item the navigation would open is the one whose page is open (last navigation) or selected."""
    ref = next((v[0] for s in nav.slots if s.parse == "reference" and (v := extraction.values.get(s.name))), None)
    if ref is None:
        return False
    context = turn.conversation.context or {}
    shown = [((context.get("last_navigation") or {}).get("intent") or {}).get("slots") or {}]
    items = [str(v.get("value")) for slots in shown if isinstance(slots, Mapping)
             for values in slots.values() for v in values or () if isinstance(v, Mapping) and v.get("entity")]
    selected = context.get("selection") or {}
    return str(ref.value) in items or str(ref.value) == str(selected.get("id"))
