"""A field question reads only the entity whose noun stands right before the message's number
(question.numbered_by_another): another type's search for that number is a call for nothing."""

from __future__ import annotations

import pytest

from conversations.lexicon import tokens
from conversations.question import numbered_by_another


@pytest.mark.parametrize(("text", "noun_at", "expected"), [
    ("qual a validade da permissão 7003?", (4, 5), True),
    ("what is the validity of permit 7003", (5, 6), True),
    ("quem tá trabalhando na 310?", (2, 3), False),  # a word stands between: not that noun's number
    ("qual a validade da 7003?", None, False),  # no noun: every type may have it
    ("qual o local da inspeção?", (4, 5), False),  # no number at all
])
def test_a_number_right_after_a_named_noun_is_that_entitys(text, noun_at, expected):
    parts = tokens(text)
    named = {"someType": noun_at} if noun_at else {}
    assert numbered_by_another(parts, named) is expected
