"""Text folding for accent- and case-insensitive search and matching."""

from __future__ import annotations

import unicodedata


def fold(text: str) -> str:
    """'Espaço  Confinado' → 'espaco confinado': no accents, case-folded, single spaces."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split())
