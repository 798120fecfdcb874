"""social_kind scans only the phrases whose first word a message says (social._phrases_opened_in): on the words
users typed — every message of the understanding corpus — it answers as the scan of every phrase does."""

from __future__ import annotations

from pathlib import Path

import yaml

from conversations import social
from conversations.lexicon import tokens

_CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"


def _messages() -> list[tuple[str, bool]]:
    """(message, whether its case is labelled social)."""
    said = []
    for path in sorted(_CORPUS.glob("*/*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            said.append((str(case.get("say") or ""), case.get("kind") == "social"))
            said += [(c if isinstance(c, str) else str(c.get("say") or ""), False) for c in case.get("context") or []]
    return said


def test_scanning_the_opened_phrases_answers_as_scanning_them_all(monkeypatch):
    messages = _messages()
    assert len(messages) > 5000
    # every case labelled social, and a fifth of the others (the full scan costs about a millisecond each)
    chosen = [m for i, (m, labelled_social) in enumerate(messages) if labelled_social or i % 5 == 0]
    opened = [social.social_kind(tokens(m)) for m in chosen]
    monkeypatch.setattr(social, "_phrases_opened_in", lambda parts: list(social._PHRASES))
    scanned = [social.social_kind(tokens(m)) for m in chosen]
    assert sum(kind is not None for kind in scanned) > 100
    assert [(m, k) for m, k, full in zip(chosen, opened, scanned, strict=True) if k != full] == []
