"""Table-driven tests of the text rewrites a message goes through before it is read (pt-BR and English):
self-corrections, weeks as days, chat abbreviations, add/subtract verbs before an amount, a free-text
value's trailing clause, and a bare amount said after an interjection."""

from __future__ import annotations

import pytest

from conversations.freetext import without_structure_tail
from conversations.increments import increment_sign
from conversations.lexicon import tokens
from conversations.numbers import weeks_as_days
from conversations.self_correction import said_last
from conversations.spelling import spelled_as_meant
from conversations.value_only import bare_value as _bare_value


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("muda a validade da 310 pra 50 dias... não, 55", "pt-BR", "muda a validade da 310 pra 55 dias"),
    ("set 310 to 50 days, I mean 55", "en", "set 310 to 55 days"),
    ("muda a validade da 310 pra 50 dias", "pt-BR", "muda a validade da 310 pra 50 dias"),  # nothing to correct
    ("não, 55", "pt-BR", "não, 55"),  # the marker opens the message: the correction flow reads it
])
def test_the_last_word_wins(text, language, expected):
    assert said_last(text, language) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("extend 311 by a week", "extend 311 by 7 days"),
    ("mais 2 semanas", "mais 14 dias"),
    ("give permit 311 another wek", "give permit 311 another 7 days"),
    ("next week", "next week"),  # a date, not an amount
    ("a semana que vem", "a semana que vem"),
])
def test_weeks_are_days(text, expected):
    assert weeks_as_days(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("qdo q é a inspecao 52?", "quando que é a inspecao 52?"),
    ("agora a 311 tb", "agora a 311 também"),
    ("Bloco Q", "Bloco Q"),  # a capital letter is a name
    # English question words typed without the apostrophe, in any case
    ("whats the validity on this one", "what's the validity on this one"),
    ("Wats the status of 312?", "what's the status of 312?"),
    ("whos on permit 311", "who's on permit 311"),
    ("wheres inspection 52", "where's inspection 52"),
    ("what's up with 311", "what's up with 311"),  # already spelt so
    ("whatsapp me the list", "whatsapp me the list"),  # another word
])
def test_chat_abbreviations_are_read_as_meant(text, expected):
    assert spelled_as_meant(text) == expected


@pytest.mark.parametrize(("text", "amount", "sign"), [
    ("tira 5 dias da validade da 312", "5", -1),
    ("knock 3 days off 311", "3", -1),
    ("add 3 days to permit 311", "3", 1),
    ("estende 30 dias a 310", "30", 0),  # may as well set the value: no sign guessed
    ("reduz a 310 pra 5 dias", "5", 0),  # "pra 5" sets it
])
def test_a_verb_right_before_an_amount_signs_it(text, amount, sign):
    parts = tokens(text)
    assert increment_sign(parts, parts.index(amount)) == sign


@pytest.mark.parametrize(("value", "expected"), [
    ("escada sem corrimão, gravidade alta", "escada sem corrimão"),
    ("loose railing; high severity", "loose railing"),
    ("escada sem corrimão, perto do portão", "escada sem corrimão, perto do portão"),  # the text's own words
])
def test_a_clause_of_another_slot_leaves_the_free_text(value, expected):
    skip = set(tokens("gravidade alta high severity"))
    assert without_structure_tail(value, skip) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("opa, 45 dias", ["45", "dias"]),
    ("oops, 15 days", ["15", "days"]),
    ("45", ["45"]),
    ("opa, abre a 312", None),  # a request, not an amount
    ("45 dias e 3 trabalhadores", None),
])
def test_a_bare_amount(text, expected):
    assert _bare_value(tokens(text)) == expected
