"""Table-driven tests of the words a seventh blind corpus brought (ordinals.py, compared.py, text_filter.py): an
item picked by its place in the last list, an item named only to compare with, a filter of dates the reads lack.
No database."""

from __future__ import annotations

from datetime import date

import pytest

from conversations.compared import compared_numbers
from conversations.date_windows import date_window, window_days
from conversations.lexicon import tokens
from conversations.ordinals import listed_pick, ordinal_in
from conversations.relative import amount_swap
from conversations.spoken import couple_as_two


@pytest.mark.parametrize(("text", "place"), [
    ("abre a segunda", 1), ("open the 2nd one", 1), ("who's inspecting the first one?", 0), ("when's the third?", 2),
    ("abre a última", -1), ("open the last one", -1), ("put Lúcia on the thrid one", 2), ("a penúltima", -2),
    ("remarca a 52 pra segunda", None),  # Monday
    ("remarca a 52 pra a segunda", None),  # Monday, with its article
    ("na segunda-feira", None), ("what happened last week?", None), ("no primeiro dia", None),
    ("segunda", None),  # a weekday alone is no ordinal in a new request
    ("abre a 310", None),
])
def test_an_ordinal_picks_a_place(text, place):
    assert ordinal_in(tokens(text)) == place


LISTED = [{"type": "inspection", "id": 1, "label": "51"}, {"type": "inspection", "id": 2, "label": "52"},
          {"type": "inspection", "id": 3, "label": "57"}]


@pytest.mark.parametrize(("text", "slot_type", "label"), [
    ("open the 2nd one", "inspection", "52"), ("a última", "inspection", "57"),
    ("the fourth one", "inspection", None),  # the list is shorter: never a guess
    ("the 2nd one", "workPermit", None),  # the list was of another type
])
def test_a_place_in_the_last_list(text, slot_type, label):
    picked = listed_pick(LISTED, slot_type, tokens(text))
    assert (picked or {}).get("label") == label


@pytest.mark.parametrize(("text", "numbers"), [
    ("Deixa a 311 com a mesma validade da 312.", {"312"}),
    ("give it the same validity as 310 instead", {"310"}),
    ("make it a week before inspection 60", {"60"}),
    ("remarca a 52 pra depois da inspeção 57", {"57"}),
    ("a 311 igual à 312", {"312"}),
    ("Make permit 318 match 310 validity-wise.", {"310"}),
    ("adia a 52 pra depois de 3 dias", set()),  # an amount of time
    ("extend 310 after 5 days", set()),
    ("open 310 and after that 311", set()),  # one request after another
    ("muda a validade da 311 pra 40 dias", set()),
])
def test_a_number_named_only_to_compare_with(text, numbers):
    assert compared_numbers(text) == numbers


@pytest.mark.parametrize(("text", "window"), [
    ("quantas inspeções nos próximos 15 dias?", "próximos 15 dias"),
    ("how many are due next week?", "next week"),
    ("inspeções da semana que vem", "semana que vem"),
    ("quantas esta semana?", "esta semana"),
    ("how many in March?", "in March"),
    ("quantas inspeções até sexta?", "até sexta"),
    ("quantas permissões estão em rascunho hoje?", None),  # when it is asked, no filter
    ("how many inspections do we have?", None),
])
def test_a_window_of_dates(text, window):
    assert date_window(text) == window


SATURDAY = date(2026, 12, 5)


@pytest.mark.parametrize(("said", "first", "last"), [
    ("nos próximos 15 dias", date(2026, 12, 5), date(2026, 12, 20)),
    ("next 2 weeks", date(2026, 12, 5), date(2026, 12, 19)),
    ("últimos 7 dias", date(2026, 11, 28), date(2026, 12, 5)),
    ("this week", date(2026, 11, 30), date(2026, 12, 6)),
    ("semana que vem", date(2026, 12, 7), date(2026, 12, 13)),
    ("next month", date(2027, 1, 1), date(2027, 1, 31)),
    ("mês passado", date(2026, 11, 1), date(2026, 11, 30)),
    ("em março", date(2027, 3, 1), date(2027, 3, 31)),  # the next March to come
    ("em março de 2021", date(2021, 3, 1), date(2021, 3, 31)),
    ("in December", date(2026, 12, 1), date(2026, 12, 31)),  # this one while it lasts
    ("até sexta", date(2026, 12, 5), date(2026, 12, 11)),
    ("on Monday", date(2026, 12, 7), date(2026, 12, 7)),
    ("amanhã", date(2026, 12, 6), date(2026, 12, 6)),
])
def test_the_days_of_a_window(said, first, last):
    assert window_days(said, SATURDAY) == (first, last)


@pytest.mark.parametrize(("text", "read"), [
    ("Give permit 340 a couple more days of validity.", "Give permit 340 2 more days of validity."),
    ("Bring inspection 51 forward by a couple of days", "Bring inspection 51 forward by 2 days"),
    ("adia a 52 um par de dias", "adia a 52 2 dias"),
    ("a couple of items", "a couple of items"),  # no unit: no amount
])
def test_a_couple_is_two(text, read):
    assert couple_as_two(text) == read


@pytest.mark.parametrize(("folded", "amounts"), [
    ("sorry i meant 2 days not 14 days", (2, 14)),
    ("na verdade sao 5 dias de adiamento nao 3", (5, 3)),
    ("not 2 weeks 3 days", (3, 14)),
    ("50 nao 40", None),  # no unit: a value said against the one proposed (value_swap)
    ("2 days not 2 days", None),
    ("3 days not 14 days and 310", None),  # another number said
])
def test_an_amount_of_time_said_against_another(folded, amounts):
    assert amount_swap(folded) == amounts
