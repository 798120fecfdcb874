"""Free-text slot values (a finding's description, a site, a reason) as the user typed them.

A text slot takes, in order: the quoted passages of the message ("registre o achado “guarda-corpo
solto”"), the words after a closing marker ("motivo: chuva forte", "porque choveu"), and — for the
one required text slot of a capability — what the message says besides its verb, its references,
its dates and the names it matched ("registre o achado guarda-corpo solto na inspeção 45"). The
value keeps the user's own spelling (accents, hyphens); it is a value and never read again as a
verb or a reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from knowledge.text import fold, words

from .lexicon import ARTICLES

QUOTED = re.compile(r"[\"“”«]([^\"“”«»]{1,500})[\"“”»]|(?<!\w)'([^']{1,500})'(?!\w)")
MARKED = re.compile(r"(?:\b(?:motivo|razao|raz\u00e3o|reason|because|porque|pois|por causa de|due to)\b\s*:?|:)"
                    r"\s*(.+)$", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def quoted_values(text: str) -> list[str]:
    return [(a or b).strip() for a, b in QUOTED.findall(text) if (a or b).strip()]


def marked_value(text: str) -> str | None:
    """What follows "motivo:", "porque", "because" or a colon, up to the end of the message."""
    match = MARKED.search(text)
    value = match.group(1).strip().rstrip(".!?") if match else ""
    return value or None


def leftover_value(text: str, parts: list[str], skip_index: Iterable[int], skip_words: set[str]) -> str | None:
    """The longest run of the message's own words that nothing else consumed, trimmed of articles and
    prepositions at either end, as typed. `parts` are the message's folded tokens (filler stripped)."""
    full = words(fold(text))
    spans = [m.span() for m in _WORD.finditer(text)]
    offset = next((i for i in range(len(full) - len(parts) + 1) if full[i:i + len(parts)] == parts), None)
    if offset is None or len(spans) != len(full):
        return None
    skipped = set(skip_index)
    runs: list[list[int]] = [[]]
    for i, part in enumerate(parts):
        if i in skipped or part in skip_words:
            runs.append([])
        else:
            runs[-1].append(i)
    best: list[int] = []
    for run in runs:
        while run and parts[run[0]] in ARTICLES:
            run = run[1:]
        while run and parts[run[-1]] in ARTICLES:
            run = run[:-1]
        if len(run) > len(best):
            best = run
    if not best or not any(len(parts[i]) > 2 for i in best):
        return None
    start, end = spans[offset + best[0]][0], spans[offset + best[-1]][1]
    return text[start:end].strip()
