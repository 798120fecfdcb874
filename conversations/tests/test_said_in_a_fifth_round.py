"""Table-driven tests of the words a fifth blind corpus brought (spoken.py, nominal.py, lexicon.py, checked_yes.py):
numbers dictated ("three ten", "tresentos e dez"), punctuation said aloud, passive and formal requests, a no that an
apology or a second no closes, formal yeses, undo of a named change. No database."""

from __future__ import annotations

import pytest

from conversations import lexicon
from conversations.checked_yes import question_then_yes
from conversations.dates import numbers_as_digits
from conversations.nominal import as_verbs
from conversations.spoken import number_words_mended, punctuation_said, spoken_hundreds


@pytest.mark.parametrize(("text", "read"), [
    ("open permit three ten", "open permit 310"),
    ("who's responsible for permit three twelve", "who's responsible for permit 312"),
    ("permit three oh five", "permit 305"),
    ("permit three-twenty-five", "permit 325"),
    ("permit three twenty five please", "permit 325 please"),
    ("extend by three ten days", "extend by three ten days"),  # two amounts, a unit after: left alone
    ("three ten more days", "three ten more days"),
    ("one hundred", "one hundred"),  # not a digit and its rest
])
def test_spoken_hundreds(text, read):
    assert spoken_hundreds(text) == read


@pytest.mark.parametrize(("text", "read"), [
    ("tira da tresentos e dez", "tira da trezentos e dez"),
    ("abre a sinquenta e sete", "abre a cinquenta e sete"),
    ("na cessenta", "na sessenta"),
    ("a trezentos", "a trezentos"),
    ("o componente Escavação", "o componente Escavação"),  # no number word near it
])
def test_number_words_mended(text, read):
    assert number_words_mended(text) == read


@pytest.mark.parametrize(("text", "read"), [
    ("registra um achado na 60 vírgula fiação exposta", "registra um achado na 60, fiação exposta"),
    ("dois vírgula cinco dias", "dois vírgula cinco dias"),  # a number after it: a decimal mark, read elsewhere
    ("não não ponto deixa quieto", "não não. deixa quieto"),
    ("o ponto de ancoragem", "o ponto de ancoragem"),
])
def test_punctuation_said(text, read):
    assert punctuation_said(text) == read


@pytest.mark.parametrize(("text", "language", "read"), [
    ("change validity of three ten to fifty", "en", "change validity of 310 to 50"),
    ("mano abre aí a sinquenta e sete", "pt", "mano abre aí a 57"),
    ("dois vírgula cinco dias", "pt", "2.5 dias"),
])
def test_numbers_as_digits(text, language, read):
    assert numbers_as_digits(text, language) == read


@pytest.mark.parametrize(("text", "read"), [
    ("Solicito que seja removido o componente X da permissao 311.",
     "Solicito remover o componente X da permissao 311."),
    ("Bom dia. Solicito que seja aberta a inspecao 57.", "Bom dia. Solicito abrir a inspecao 57."),
    ("Peço que sejam incluídos os trabalhadores", "Peço incluir os trabalhadores"),
    ("Conforme conversado, solicito a remoção do achado X.", "Conforme conversado, solicito remover o achado X."),
    ("Prezado, solicito o cancelamento desta solicitação.", "Prezado, solicito cancelar esta solicitação."),
    ("explique o componente Solicito que seja removido", "explique o componente Solicito que seja removido"),
])
def test_requests_said_with_a_noun_or_a_passive(text, read):
    assert as_verbs(text) == read


@pytest.mark.parametrize(("text", "denied"), [
    ("no sorry 55", set()), ("no no 55", set()), ("nao nao e a 312", set()), ("nao desculpa 55", set()),
    ("no not 55", {"55"}), ("não é a 60, é a 62", {"60"}), ("not 55, 60", {"55"}),
])
def test_denied_numbers(text, denied):
    assert lexicon.denied_numbers(text) == denied


@pytest.mark.parametrize(("text", "kind"), [
    ("de acordo pode prosseguir", "confirm"), ("ok do the needful", "confirm"), ("vamo pode ir", "confirm"),
    ("fine do it", "confirm"), ("sorry kindly undo the same", "undo"),
    ("undo that reschedule", None),  # names what it undoes: undo.py reads it (the last action may be another)
    ("solicito cancelar esta solicitacao", "cancel"),
    ("fine thanks", None),  # a courtesy, not a yes
])
def test_control_runs(text, kind):
    assert lexicon.control_run(text) == kind


@pytest.mark.parametrize(("text", "question"), [
    ("é só essa da Horizonte, né? pode ser, manda", ["e", "so", "essa", "da", "horizonte", "ne"]),
    ("is that it? ok go", ["is", "that", "it"]),
    ("is that it?", None),  # no yes after it
    ("ok go", None),  # no question
    ("is it 310? what about 311", None),
])
def test_a_question_then_a_yes(text, question):
    assert question_then_yes(text, lambda said: lexicon.control_run(said) == "confirm") == question
