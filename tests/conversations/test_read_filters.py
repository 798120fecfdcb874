"""A count or a list by a filter no slot takes (conversations/text_filter.py): a name is searched as the read's
free text and the answer says so; a filter the read cannot apply (a window of dates, a read without a text
filter) is said before the total. Before, every one of these answered the unfiltered total as the answer."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sst import inspection_services
from sst.clock import today

from .conftest import inspection_78

pytestmark = pytest.mark.django_db


def _answer(talk, client, start, say: str) -> str:
    turn = talk(client, start(client), say)
    assert turn["response"]["type"] == "answer", turn["response"]
    return turn["response"]["message"]


@pytest.mark.parametrize(("say", "expected"), [
    ("quantas inspeções tem na Doca Norte?", "Há 1 inspeção com “Doca Norte”."),
    ("how many inspections are at Doca Norte?", "There is 1 inspection matching “Doca Norte”."),
    ("quantas inspeções na Doca Nortes?", "Há 0 inspeções com “Doca Nortes”."),
])
def test_a_count_by_a_place_searches_it_and_says_so(world, operator_client, start, talk, say, expected):
    inspection_78(world)  # Doca 9 and Doca 2
    inspection_services.inspection_create(tenant=world.tenant, company=world.omega, site="Doca Norte",
                                          scheduled_for=today())

    assert _answer(talk, operator_client, start, say) == expected


def test_the_place_is_found_without_its_accents(world, operator_client, start, talk):
    inspection_services.inspection_create(tenant=world.tenant, company=world.omega, site="Galpão Sul",
                                          scheduled_for=today())

    message = _answer(talk, operator_client, start, "which inspections are at Galpao Sul?")

    assert message.startswith("Found 1 inspection matching “Galpao Sul”"), message


def test_a_list_by_a_place_lists_only_its_items(world, operator_client, start, talk):
    inspection_78(world)
    for company, number in ((world.delta, "80"), (world.omega, "81")):
        inspection_services.inspection_create(tenant=world.tenant, company=company, site="Pátio Leste",
                                              number=number, scheduled_for=today())

    message = _answer(talk, operator_client, start, "liste as inspeções do Pátio Leste por favor")

    assert "80" in message and "81" in message and "78" not in message and "“Pátio Leste”" in message, message


@pytest.mark.parametrize(("say", "expected"), [
    ("quantas inspeções nos próximos 5 dias?", "Há 1 inspeção entre {0:%d/%m/%Y} e {5:%d/%m/%Y}."),
    ("how many inspections are due in the next 10 days?", "There are 2 inspections between {0} and {10}."),
    ("which inspections are scheduled in the next 3 days?", "No inspections found between {0} and {3}."),
])
def test_a_window_of_dates_filters_the_read_and_the_answer_says_its_days(world, operator_client, start, talk,
                                                                          say, expected):
    inspection_78(world)  # in 5 and 6 days

    message = _answer(talk, operator_client, start, say)

    days = [today() + timedelta(days=n) for n in range(11)]
    assert message == expected.format(*days), message


@pytest.mark.parametrize(("say", "said"), [("quantas permissões semana que vem?", "semana que vem"),
                                           ("how many permits in the next 7 days?", "next 7 days")])
def test_a_window_the_read_cannot_apply_is_said_before_the_total(world, operator_client, start, talk, say, said):
    message = _answer(talk, operator_client, start, say)

    assert f"“{said}”" in message and message.endswith(("há 3 permissões.", "there are 3 permits.")), message


def test_a_read_without_a_text_filter_says_it_cannot_apply_it(world, operator_client, start, talk):
    message = _answer(talk, operator_client, start, "quantos funcionários na Doca 9?")

    assert message.startswith("Não consigo filtrar funcionários por “Doca 9”"), message


@pytest.mark.parametrize("say", ["quantas inspeções tem no sistema?", "how many inspections do we have in total?",
                                 "quantas inspeções a gente tem hoje?", "QUANTAS INSPEÇÕES NO SISTEMA?"])
def test_words_that_are_no_filter_leave_the_total(world, operator_client, start, talk, say):
    inspection_78(world)

    message = _answer(talk, operator_client, start, say)

    assert message in ("Há 2 inspeções.", "There are 2 inspections."), message
