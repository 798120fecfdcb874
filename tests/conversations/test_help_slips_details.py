"""Help asked with words between the phrase's words ("what kind of stuff can you help me with?"),
a verb with a neighbouring key hit ("opwn"), and a list field answered with what each item is
(its enum codes in words: "Extintor sem lacre (média)")."""

from __future__ import annotations

from datetime import timedelta

import pytest

from conversations.dates import today
from conversations.keyboard import neighbour_slip
from conversations.lexicon import tokens
from conversations.social import social_kind
from sst import inspection_services


@pytest.mark.parametrize(("text", "kind"), [
    ("what kind of stuff can you help me with?", "help"),
    ("good morning! what kind of stuff can you help me with?", "help"),
    ("what else can you do?", "help"),
    ("o que mais você sabe fazer?", "help"),
    ("que tipo de coisa você pode fazer?", "help"),
    ("what can you tell me about permit 310?", None),  # a question about an item is not help
    ("me ajuda a abrir a 310", None),
    ("what kind of permit is 310?", None),
])
def test_help_with_words_that_come_along_between(text, kind):
    assert social_kind(list(tokens(text))) == kind


@pytest.mark.parametrize(("word", "verb", "expected"), [
    ("opwn", "open", True),   # w is next to e
    ("abrw", "abre", True),
    ("last", "list", False),  # a and i are not neighbours: another word
    ("obra", "abra", False),
    ("opn", "ope", False),    # too short to guess
    ("open", "open", False),  # said right is no slip
    ("oxen", "open", False),  # x is far from p
])
def test_a_neighbouring_key(word, verb, expected):
    assert neighbour_slip(word, verb) is expected


def test_a_slipped_verb_still_navigates(world, supervisor_client, start, talk):
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, "opwn permit 802")
    assert turn["response"]["type"] == "navigation", turn["response"]


@pytest.mark.parametrize(("text", "words"), [("how severe is the finding on inspection 78?", ("high",)),
                                             ("qual a gravidade do achado da inspeção 78?", ("alta",))])
def test_a_list_field_says_what_each_item_is(world, supervisor_client, start, talk, text, words):
    inspection = inspection_services.inspection_create(tenant=world.tenant, company=world.delta, site="Doca 9",
                                                       number="78", scheduled_for=today() + timedelta(days=5))
    inspection_services.inspection_finding_add(tenant=world.tenant, inspection_id=inspection.pk,
                                               description="Escada sem trava", severity="HIGH")
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    message = turn["response"]["message"].lower()
    assert "escada sem trava" in message and all(w in message for w in words), message


def test_a_word_that_is_a_verb_as_typed_is_never_a_slip_of_another():
    from conversations.verb_find import heads_said as _heads_said
    heads = frozenset({"remova", "renova", "open"})
    assert _heads_said(heads, "remova") == {"remova"}  # m is next to n: still no guess
    assert _heads_said(heads, "opwn") == {"open"}
