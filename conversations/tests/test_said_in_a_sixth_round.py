"""Table-driven tests of the words a sixth blind corpus brought (numbers.py, lexicon.py, spelling.py, dates.py): one
week said right after the item's number, "make that" after a correction's opener, "opn", numbers said in the other
language. No database."""

from __future__ import annotations

import pytest

from conversations import lexicon
from conversations.dates import numbers_as_digits
from conversations.numbers import weeks_as_days
from conversations.spelling import spelled_as_meant


@pytest.mark.parametrize(("text", "read"), [
    ("estica a 340 uma semana", "estica a 340 em 7 dias"),
    ("push 62 a week", "push 62 by 7 days"),
    ("adia a 62 uma semana depois", "adia a 62 uma semana depois"),  # a date, said so
    ("the 310 a week from now", "the 310 a week from now"),
    ("estica a 57 mais uma semana", "estica a 57 mais 7 dias"),
])
def test_one_week_after_the_items_number(text, read):
    assert weeks_as_days(text) == read


@pytest.mark.parametrize(("text", "rest"), [
    ("actually, make that 10 days", ["10", "days"]),
    ("no, make it 18 days", ["18", "days"]),
    ("actually make it yesterday", ["make", "it", "yesterday"]),  # a date: read as said
    ("make it 0", None),  # no opener: not a correction by itself
])
def test_make_that_after_an_opener(text, rest):
    assert lexicon.correction_remainder(text) == rest


@pytest.mark.parametrize(("text", "language", "read"), [
    ("assign thiago as the inspector for fifty seven", "pt", "assign thiago as the inspector for 57"),
    ("abre a trezentos e dez", "en", "abre a 310"),
    ("um, open permit 310", "en", "um, open permit 310"),  # "um" is a filler, not one
])
def test_numbers_in_either_language(text, language, read):
    assert numbers_as_digits(text, language) == read


def test_opn_is_open():
    assert spelled_as_meant("opn insp 62") == "open insp 62"
