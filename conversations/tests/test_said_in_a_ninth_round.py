"""Table-driven tests of the language pieces the ninth blind round asked for (pt-BR and English): a half after a
unit, "zero", letters stretched in chat, a self-correction that is a pick, "out" before an amount, a tag asking
the question again after an ellipsis, a state told before "so far", one value instead of another."""

from __future__ import annotations

import pytest

from conversations.dates import numbers_as_digits
from conversations.denied import meant_not_denied
from conversations.ellipsis import ellipsis_rest
from conversations.increments import increment_sign
from conversations.lexicon import tokens
from conversations.self_correction import said_last
from conversations.spelling import spelled_as_meant
from conversations.told import told_aside


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("deixa com uma semana e meia", "pt-BR", "deixa com 10.5 dias"),
    ("extend it by a week and a half", "en", "extend it by 10.5 days"),
    ("um mês e meio", "pt-BR", "45 dias"),
    ("2 dias e meio", "pt-BR", "2.5 dias"),
    ("pra zero", "pt-BR", "pra 0"),
])
def test_halves_and_zero_are_numbers(text, language, expected):
    assert numbers_as_digits(text, language) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("bom diaa", "bom dia"), ("valeuuu", "valeu"), ("simmm", "sim"),
    ("too good", "too good"), ("off", "off"), ("Maraa", "Maraa"),  # real double letters and names stay
])
def test_stretched_letters(text, expected):
    assert spelled_as_meant(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("the 45-day one, make it 30", "the 45-day one, make it 30"),  # the number says which one
    ("a de 15 dias, na verdade 20", "a de 15 dias, na verdade 20"),
    ("set 310 to 45 days, make it 50", "set 310 to 50 days"),
])
def test_a_pick_is_no_value_corrected(text, expected):
    assert said_last(text, "en") == expected


@pytest.mark.parametrize(("text", "at", "sign"), [
    ("push it out 2 days", 3, 1),
    ("push this one out to 60 days", 5, 0),  # "to 60": the value
    ("move it 2 days later", 2, 1),
    ("bring it 2 days earlier", 2, -1),
])
def test_out_and_later(text, at, sign):
    assert increment_sign(tokens(text), at) == sign


@pytest.mark.parametrize(("words", "expected"), [
    ("e as da delta quais sao", ["as", "da", "delta"]),
    ("and the ones at the dock which are they", ["the", "ones", "at", "the", "dock"]),
    ("e quais", ["quais"]),
])
def test_the_question_asked_again_after_an_ellipsis(words, expected):
    assert ellipsis_rest(tokens(words)) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("how many inspections have been completed so far", "how many inspections have been completed so far"),
    ("311 was approved yesterday, so add it", "311 was yesterday, so add it"),
    ("a documentação foi toda conferida; pode aprovar", "a documentação foi; pode aprovar"),
])
def test_a_state_told(text, expected):
    assert told_aside(text) == expected


@pytest.mark.parametrize(("text", "proposal", "expected"), [
    ("no wait, lucia not tiago", "assign “Tiago Falcão” as the inspector", ["lucia"]),
    ("a Sônia em vez do Caio", "incluir “Caio Mendonça” entre os trabalhadores", ["a", "sonia"]),
    ("quarta não, quinta", "remarcar para 09/12/2026", ["quinta"]),
    ("não, pensando bem melhor não, a auditoria ainda pode pedir", "alterar a validade para 40 dias", None),
    ("não 45, 50", "alterar a validade para 45 dias", None),  # numbers: swap_apply's
])
def test_one_value_instead_of_another(text, proposal, expected):
    assert meant_not_denied(text, proposal, "pt-BR") == expected
