"""A list filter said negated (negated_filter.py): the items that have the value are left out of the
count or the list — never the filter read without its "não" (the opposite question)."""

from __future__ import annotations

import pytest

from conversations.grammar import SlotSpec
from conversations.lexicon import tokens
from conversations.negated_filter import negated_value
from sst import services as sst


class _Grammar:
    """Only what negated_value reads: where a value's phrase is said."""

    @staticmethod
    def enum_phrase(slot, parts):
        for value, phrases in slot.value_phrases.items():
            for phrase in phrases:
                n = len(phrase)
                for i in range(len(parts) - n + 1):
                    if tuple(parts[i:i + n]) == phrase:
                        return value, (i, i + n)
        return None


_SLOT = SlotSpec(name="state", type="state", required=False, many=False, from_context=False, parse="enum",
                 field="state", resolver=None, values=("OPEN", "SHUT"), synonyms=frozenset(),
                 value_phrases={"OPEN": (("abertas",), ("open",)), "SHUT": (("fechadas",), ("shut",))})


@pytest.mark.parametrize(("text", "value"), [
    ("quantas não estão abertas?", "OPEN"),
    ("items that aren't open", "OPEN"),
    ("which ones are not yet shut", "SHUT"),
    ("quais que não foram fechadas", "SHUT"),
    ("quantas estão abertas?", None),
    ("não, as abertas", None),  # a "não" that answers, then the filter as said
    ("items not open", "OPEN"),
])
def test_the_value_named_right_after_a_negation(text, value):
    assert negated_value(_Grammar, _SLOT, tokens(text)) == value


@pytest.mark.parametrize(("text", "says"), [
    ("quantas permissões não estão aprovadas?", "2"),
    ("how many permits are not approved?", "2"),
    ("quais permissões não estão aprovadas?", "802"),
    ("list the permits that aren't drafts", "771"),
])
def test_a_negated_filter_leaves_the_value_out(world, supervisor_client, start, talk, text, says):
    sst.permit_approve(tenant=world.tenant, permit_id=world.p771.pk)
    conversation = start(supervisor_client)
    turn = talk(supervisor_client, conversation, text)
    answer = turn["state"]["last_response"]  # the read's answer, once its execution settled
    message = answer["message"]
    assert answer["type"] == "answer", answer
    assert says in message, message
    if "draft" in text:  # only the approved one
        assert "802" not in message, message
    else:
        assert "1 " not in message.replace("771", ""), message
