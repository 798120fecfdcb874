"""Table-driven tests of the words a seventh blind corpus brought (ordinals.py, compared.py, text_filter.py): an
item picked by its place in the last list, an item named only to compare with, a filter of dates the reads lack.
No database."""

from __future__ import annotations

import pytest

from conversations.compared import compared_numbers
from conversations.lexicon import tokens
from conversations.ordinals import listed_pick, ordinal_in
from conversations.text_filter import date_window


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
