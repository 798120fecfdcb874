"""Table-driven tests of the words a fourth blind corpus brought (lexicon.py, increments.py): formal asks, apologies
alone, a reconsideration after a no, a request put as a question, an increase said with its unit. No database."""

from __future__ import annotations

import pytest

from conversations import lexicon
from conversations.increments import increment_sign


@pytest.mark.parametrize(("text", "kind"), [
    ("would you be so kind as to cancel that request", "cancel"),
    ("could you possibly revert that", "undo"),
    ("nao pensando bem deixa como ta", "decline"),
    ("no on second thought forget it", "decline"),
    ("indeed", "confirm"),
    ("do go ahead", "confirm"),
    ("pode cancelar", None),  # may say yes to a pending cancel of the item: not read as a cancel of the request
    ("would you cancel it", None),  # "it" may be the item
    ("sim pensando bem nao", None),  # a yes and a no: nothing
])
def test_control_runs(text, kind):
    assert lexicon.control_run(text) == kind


@pytest.mark.parametrize(("words", "only"), [
    ("i m terribly sorry", True), ("ah", True), ("foi mal", True), ("", True),
    ("that was the wrong one", False), ("sorry undo that", False),
])
def test_apology_only(words, only):
    assert lexicon.apology_only(words.split()) is only


@pytest.mark.parametrize(("words", "acts"), [
    ("inspection 52 was carried out could you mark it as completed please", True),
    ("voce poderia concluir a inspecao 52", True),
    ("could you tell me if inspection 53 was completed", False),
    ("pode ver se a inspecao 62 foi cancelada", False),
    ("a inspecao 62 foi cancelada", False),
])
def test_a_request_put_as_a_question(words, acts):
    assert lexicon.asks_to_act(words.split()) is acts


@pytest.mark.parametrize(("words", "sign"), [
    ("aumenta 10 dias na validade", 1),
    ("extend it by a further 10 days", 1),
    ("aumenta para 10 dias", 0),
    ("reduz 5 dias", -1),
])
def test_increments(words, sign):
    parts = words.split()
    at = next(i for i, p in enumerate(parts) if p.isdigit())
    assert increment_sign(parts, at) == sign


@pytest.mark.parametrize(("text", "day"), [
    ("move it to Friday week", 18), ("for a week on Monday", 14), ("a fortnight today", 19),
    ("a fortnight on Friday", 25), ("next friday", 11),
])
def test_british_dates(text, day):
    from datetime import date

    from conversations.dates import date_in
    assert date_in(text, date(2026, 12, 5), "en").value == date(2026, 12, day)  # a Saturday


@pytest.mark.parametrize(("text", "read"), [
    ("Solicito a exclusão da permissão 311.", "Solicito excluir a permissão 311."),
    ("Bom dia. Peço o cancelamento da inspeção 62", "Bom dia. Peço cancelar a inspeção 62"),
    ("I would like to request the removal of the finding", "I would like to request to remove the finding"),
    # inside a sentence or after a colon the words may be a name's: as typed
    ("explique o componente Solicito a exclusão da permissão 311", None),
    ("registre o achado: Solicito a exclusão da permissão 311", None),
    ("qual a data da remarcação da inspeção 52?", None),
])
def test_a_request_made_with_the_actions_noun(text, read):
    from conversations.nominal import as_verbs
    assert as_verbs(text) == (read or text)


@pytest.mark.parametrize(("typed", "read"), [("can u move it to 2moro", "can you move it to tomorrow"),
                                             ("this fri pls", "this friday please"),
                                             ("qntas tem", "quantas tem")])
def test_chat_words_for_days(typed, read):
    from conversations.spelling import spelled_as_meant
    assert spelled_as_meant(typed) == read


@pytest.mark.parametrize(("text", "parts"), [
    ("Forgive me, I meant inspection 60, not 52.", ["inspection", "60", "not", "52"]),
    ("Perdão, na verdade é Trabalho a Quente", ["e", "trabalho", "a", "quente"]),
    ("desculpa, abre a 310", None),
])
def test_an_apology_before_a_correction(text, parts):
    assert lexicon.correction_remainder(text) == parts


@pytest.mark.parametrize(("text", "read"), [
    ("Delete permit 340... actually no, forget it, don't delete anything", "no, forget it"),
    ("muda pra 40 dias... não, esquece", "esquece"),
    ("muda pra 40 dias... não, 45", "muda pra 45 dias"),
])
def test_a_request_taken_back(text, read):
    from conversations.self_correction import said_last
    assert said_last(text, "pt-BR") == read


@pytest.mark.parametrize(("parts", "also"), [("and the same for permit 310".split(), True),
                                             ("e o mesmo pra 310".split(), True),
                                             ("and 310".split(), False)])
def test_the_same_again_after_and(parts, also):
    from conversations.ellipsis import says_also
    assert says_also(parts) is also


def test_a_long_courtesy_word_with_one_slip():
    from conversations.social import social_kind
    assert social_kind(["thansk", "mate"]) == "thanks"
    assert social_kind(["planks"]) is None  # two slips away
