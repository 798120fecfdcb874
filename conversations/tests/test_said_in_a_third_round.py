"""The text rewrites a third fresh blind corpus asked for (bench/corpus/tuning/fresh_2026_12_a[i-l].yaml, 0.906 on
its first run), without a database: a fraction dictated in words, a correction whose remark names the value it
replaces, a request withdrawn in the same message, a state told before the request, "não 50" answering a proposal,
a number word after a number that is no unit's slip, "the Thursday after next", "a fortnight out", and the
language of a message with no marker word. Each failed before its change."""

from __future__ import annotations

from datetime import date

import pytest

from conversations.dates import date_in, numbers_as_digits
from conversations.lexicon import denied_numbers
from conversations.self_correction import said_last
from conversations.spelling import spelled_as_meant
from conversations.told import told_aside
from conversations.wordlists import detect_language

SATURDAY = date(2026, 12, 5)


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("muda a validade da 311 pra dois virgula cinco dias", "pt-BR", "muda a validade da 311 pra 2.5 dias"),
    ("set it to two point five days", "en", "set it to 2.5 days"),
    ("dois e meio dias", "pt-BR", "2.5 dias"),
    ("ponto de encontro dois", "pt-BR", "ponto de encontro dois"),  # no number before "ponto"
])
def test_a_fraction_dictated_in_words_is_a_fraction(text, language, expected):
    assert numbers_as_digits(text, language) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("adiciona içamento na 310, aliás, na 311, a 310 nem tem guindaste", "adiciona içamento na 311"),
    ("add hot work to 310, I mean 311, 310 is closed", "add hot work to 311"),
    # a remark that does not name the value replaced may ask for more: the message is read as typed
    ("muda a 310 para 20 dias, aliás, 25 dias, mas a 310 é da Horizonte",
     "muda a 310 para 20 dias, aliás, 25 dias, mas a 310 é da Horizonte"),
    ("bump 311 to 20 days... actually nah, leave it as is", "nah, leave it as is"),
    ("muda a 310 pra 20 dias, não, deixa pra lá", "deixa pra lá"),
])
def test_the_last_word_wins_with_its_remark_or_withdrawn(text, expected):
    assert said_last(text, "pt-BR") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("a 325 foi cancelada, pode excluir ela", "a 325 foi, pode excluir ela"),
    ("permit 320 was approved yesterday, so add hot work to it", "permit 320 was yesterday, so add hot work to it"),
    ("a 54 foi cancelada?", "a 54 foi cancelada?"),  # a question about the state: state_question answers it
    ("cancela a 54", "cancela a 54"),
])
def test_a_state_told_before_a_request_asks_for_nothing(text, expected):
    assert told_aside(text) == expected


@pytest.mark.parametrize(("text", "denied"), [
    ("nao 50", set()), ("não 50 dias", set()),  # a no, then the value meant
    ("não é a 60, é a 62", {"60"}), ("não 60, 62", {"60"}),
])
def test_a_no_then_a_value_denies_nothing(text, denied):
    assert denied_numbers(text) == denied


def test_a_number_word_after_a_number_is_no_slip_of_a_unit():
    assert spelled_as_meant("adia a 60 duas semanas") == "adia a 60 duas semanas"
    assert spelled_as_meant("adia a 60 4 dyas") == "adia a 60 4 dias"


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("move 60 to the Thursday after next", "en", date(2026, 12, 17)),
    ("remarca a 60 pra quinta depois da próxima", "pt-BR", date(2026, 12, 17)),
    ("move 60 to next Thursday", "en", date(2026, 12, 10)),
    ("book it a fortnight out", "en", date(2026, 12, 19)),
])
def test_dates_said_from_today(text, language, expected):
    said = date_in(text, SATURDAY, language)
    assert said is not None and said.value == expected


@pytest.mark.parametrize(("text", "language"), [
    ("move 52 two weeks out", "en"), ("push 51 back a wk", "en"), ("remarca 52 pra sexta", "pt-BR"),
])
def test_a_message_without_marker_words_has_the_language_of_its_own_words(text, language):
    assert detect_language(text, "pt-BR" if language == "en" else "en") == language
