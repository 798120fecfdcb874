"""The language of one message (lexicon.detect_language): an accent is a Portuguese clue, except in a
name said mid-sentence (a capitalised word after the first)."""

from __future__ import annotations

import pytest

from conversations.wordlists import detect_language


@pytest.mark.parametrize(("text", "language"), [
    ("gimme all of Metalúrgica Vale Azul's permits", "en"),
    ("show me Elétrica Pinheiro's inspections", "en"),
    ("add Sônia Brandão to permit 311", "en"),
    ("abre a permissão da Elétrica Pinheiro", "pt-BR"),
    ("É a 310", "pt-BR"),
    ("remarca pra amanhã", "pt-BR"),
    ("quantas inspeções?", "pt-BR"),
])
def test_the_language_of_a_message(text, language):
    assert detect_language(text, "pt-BR" if language == "en" else "en") == language
