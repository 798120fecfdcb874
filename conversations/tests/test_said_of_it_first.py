"""attributes.could_be_said_of_it: checked before a reference's items are listed to look for a value naming
one, so it must hold whenever said_of_it can hold for some position of the value — else an item named by its
owner ("a <entidade> da <empresa>") would be missed. A property test over words and positions, no database."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conversations.attributes import could_be_said_of_it, said_of_it
from conversations.grammar import Grammar, SlotSpec

SLOT = SlotSpec(name="ticket", type="ticket", required=True, many=False, from_context=False, parse="reference",
                field="ticket_id", resolver={"capability": "ticket.search", "label": "number"}, values=(),
                synonyms=frozenset(), named_by=("owner.name", "site"))
GRAMMAR = Grammar(version=None, synonyms={"ticket": frozenset({("chamado",), ("ticket",)}),
                                          "owner": frozenset({("dono",)})}, nouns={}, capabilities={})
WORDS = ["da", "do", "of", "for", "s", "one", "chamado", "chamados", "ticket", "tickets", "dono", "owner",
         "site", "sites", "quantos", "abra", "a", "o", "the", "alfa", "beta", "norte", "estao", "123"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), st.data())
def test_what_said_of_it_can_accept_the_check_before_the_listing_accepts(said, data):
    start = data.draw(st.integers(0, len(said) - 1))
    end = data.draw(st.integers(start, len(said) - 1))
    if said_of_it(GRAMMAR, SLOT, said, set(range(start, end + 1))):
        assert could_be_said_of_it(GRAMMAR, SLOT, said)


def test_words_with_nothing_of_the_item_list_nothing():
    assert not could_be_said_of_it(GRAMMAR, SLOT, ["quantos", "funcionarios", "estao", "cadastrados"])
    assert could_be_said_of_it(GRAMMAR, SLOT, ["abra", "o", "chamado", "da", "alfa"])
    assert could_be_said_of_it(GRAMMAR, SLOT, ["open", "alfa", "s", "one"])
    assert could_be_said_of_it(GRAMMAR, SLOT, ["the", "norte", "tickets"])
