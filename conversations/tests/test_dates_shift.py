"""Table-driven: dates said in a message (dates.py) — shifts of a known date without a verb list,
from-now phrases that are never shifts, and past weekdays."""

from __future__ import annotations

from datetime import date

import pytest

from conversations.dates import date_in, shift_in

TODAY = date(2026, 12, 1)  # a Tuesday


@pytest.mark.parametrize(("text", "language", "days"), [
    ("defer inspection 52 by 5 days", "en", 5),
    ("push it back by a week", "en", 7),
    ("bring it forward a week", "en", -7),
    ("two days earlier", "en", -2),
    ("adia a vistoria em 4 dias", "pt-BR", 4),
    ("antecipa em 2 dias", "pt-BR", -2),
    ("adiar 3 dias", "pt-BR", 3),
    ("uma semana mais tarde", "pt-BR", 7),
    ("pull 52 in by a week", "en", -7),  # "in" is the verb's: no date from now
    ("pull it in by 3 days", "en", -3),
])
def test_a_shift_is_read_from_its_amount_and_direction(text, language, days):
    found = shift_in(text, language)
    assert found is not None and found[0] == days


@pytest.mark.parametrize(("text", "language"), [
    ("empurra para daqui a 20 dias", "pt-BR"),
    ("in 2 weeks", "en"),
    ("10 days from now", "en"),
    ("para o dia 12", "pt-BR"),
    ("amanhã", "pt-BR"),
])
def test_a_date_from_today_is_no_shift(text, language):
    assert shift_in(text, language) is None


@pytest.mark.parametrize(("text", "language", "moving", "expected"), [
    ("em 4 dias", "pt-BR", False, date(2026, 12, 5)),  # a new inspection: four days from today
    ("em 4 dias", "pt-BR", True, None),  # moving a known date: a shift, left to shift_in
    ("last Monday", "en", False, date(2026, 11, 30)),
    ("na sexta-feira passada", "pt-BR", False, date(2026, 11, 27)),
    ("next Friday", "en", False, date(2026, 12, 4)),
    ("segunda", "pt-BR", False, date(2026, 12, 7)),
    # an impossible date is no date (never another day silently); the more precise reading wins
    ("remarca a 52 pro dia 31/02", "pt-BR", True, None), ("move it to 02/30", "en", False, None),
    ("pro dia 28/02", "pt-BR", True, date(2027, 2, 28)), ("dia 15/03/2027", "pt-BR", False, date(2027, 3, 15)),
    ("resched 57 for end of next week", "en", True, date(2026, 12, 11)),
    ("pro fim da semana que vem", "pt-BR", False, date(2026, 12, 11)), ("next week", "en", False, date(2026, 12, 8)),
])
def test_dates_from_today(text, language, moving, expected):
    said = date_in(text, TODAY, language, moving=moving)
    assert (said.value if said else None) == expected
