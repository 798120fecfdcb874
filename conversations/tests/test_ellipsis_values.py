"""An ellipsis after a list or a count names a value of its filters, not a verb (ellipsis_turn.values_masked):
"what about approved?", "e as aprovadas?" ask the same count again — a value as the manifest spells it is
blanked before the words are read for a new request; a verb ("e aprova a 311") stays a verb."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conversations.ellipsis_turn import values_masked
from conversations.grammar import SlotSpec
from conversations.lexicon import tokens
from conversations.ranking import MASK

STATUS = SlotSpec(name="status", type="itemStatus", required=False, many=False, from_context=False, parse="enum",
                  field="status", resolver=None, values=("DRAFT", "APPROVED", "CANCELLED"), synonyms=frozenset(),
                  value_phrases={"DRAFT": (("em", "rascunho"), ("draft",)),
                                 "APPROVED": (("aprovadas",), ("aprovada",), ("signed", "off")),
                                 "CANCELLED": (("canceladas",), ("cancelled",))})


def _turn(last: dict | None) -> SimpleNamespace:
    grammar = SimpleNamespace(capabilities={"item.count": SimpleNamespace(slots=(STATUS,))})
    return SimpleNamespace(conversation=SimpleNamespace(context={"last_request": last} if last else {}),
                           grammar=grammar)


COUNT = {"kind": "capability", "capability": "item.count", "values": {}}


@pytest.mark.parametrize(("rest", "last", "expected"), [
    ("approved", COUNT, [MASK]),  # "what about approved?": the value code itself
    ("the cancelled ones", COUNT, ["the", MASK, "ones"]),
    ("signed off", COUNT, [MASK, MASK]),
    ("as aprovadas", COUNT, ["as", MASK]),  # "e as aprovadas?"
    ("em rascunho", COUNT, [MASK, MASK]),
    ("aprova a 311", COUNT, ["aprova", "a", "311"]),  # a verb, not a value as spelt
    ("approve 311", COUNT, ["approve", "311"]),
    ("approved", None, ["approved"]),  # no last request: nothing is a value of it
])
def test_a_value_of_the_last_requests_filters_is_no_verb(rest, last, expected):
    assert values_masked(_turn(last), tokens(rest)) == expected
