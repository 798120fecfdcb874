"""Two questions in one message (two_questions.split_questions): "<question> and <question>" splits where
the joiner opens a question word or a state verb, a pronoun allowed first; a list's filters never split."""

from __future__ import annotations

import pytest

from conversations.lexicon import tokens
from conversations.two_questions import split_questions

FIELDS = frozenset(tokens("site inspector validade responsavel responsible valid status empresa company"))
NOUNS = frozenset(tokens("permit permissao company empresa"))


@pytest.mark.parametrize(("text", "expected"), [
    ("who's responsible for permit 318, and is it approved yet?",
     ("who s responsible for permit 318", "is it approved yet")),
    ("where is inspection 52 and when is it?", ("where is inspection 52", "when is it")),
    ("qual a validade da 311 e ela já está aprovada?", ("qual a validade da 311", "ela ja esta aprovada")),
    ("quem é o responsável pela 320 e quando vence?", ("quem e o responsavel pela 320", "quando vence")),
    ("quais permissões da Alfa e Beta?", None),  # a joiner between names
    ("add Ana and Bruno to 802", None),
    ("qual a validade da 311?", None),
    # a copula or a preposition before the second question word; a field's word alone (FIELDS, NOUNS below)
    ("quem e o responsavel da 318 e de qual empresa ele e?", ("quem e o responsavel da 318", "de qual empresa ele e")),
    ("the site and the inspector, please", ("the site", "the inspector please")),
    ("a validade e o responsavel da permissao 311", ("a validade", "o responsavel da permissao 311")),
    ("the status and the permit of 318", None),  # an entity's noun is no field
    # a request naming two fields is no two questions
    ("create a permit just like this one but with owen price as the responsible and valid for 14 days", None),
])
def test_two_questions_split_where_the_second_opens(text, expected):
    found = split_questions(tokens(text), FIELDS, NOUNS)
    assert (tuple(" ".join(c) for c in found) if found else None) == expected
