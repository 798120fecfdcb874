"""Table-driven tests of the language modules, per language: no database, no registry."""

from __future__ import annotations

import pytest

from conversations.ellipsis import ellipsis_rest
from conversations.lexicon import tokens
from conversations.numbers import numerals_of, raw_numbers, reference_number, value_problem
from conversations.relative import Change, relative_change
from conversations.social import social_kind


@pytest.mark.parametrize(("text", "kind"), [
    ("oi", "greeting"), ("Olá, tudo bem?", "greeting"), ("bom dia!", "greeting"), ("hello there", "greeting"),
    ("Good morning", "greeting"), ("obrigado!", "thanks"), ("valeu pela ajuda", "thanks"), ("thanks a lot", "thanks"),
    ("thank you", "thanks"), ("tchau", "bye"), ("see you", "bye"), ("ajuda", "help"),
    ("o que você pode fazer?", "help"), ("o que vc faz", "help"), ("what can you do?", "help"), ("help", "help"),
    ("obrigado, o que você pode fazer?", "help"),
    ("oi, abra a permissão 123", None), ("ajuda com a 123", None), ("obrigado por excluir a 5", None), ("", None),
])
def test_social_kind(text, kind):
    assert social_kind(tokens(text)) == kind


@pytest.mark.parametrize(("text", "expected"), [
    ("mais 10 dias", Change("add", 10)), ("reduza em 5", Change("sub", 5)), ("dobra", Change("mul", 2)),
    ("menos 3", Change("sub", 3)), ("aumente em 7 dias", Change("add", 7)), ("add 3 more days", Change("add", 3)),
    ("double it", Change("mul", 2)), ("halve it", Change("mul", 0.5)), ("reduce by 4", Change("sub", 4)),
    ("aumenta para 50", None), ("tira eletricidade", None), ("mude a validade para 40 dias", None),
    ("mais 10 dias na permissão 9", None), ("10", None),
])
def test_relative_change(text, expected):
    assert relative_change(tokens(text)) == expected


@pytest.mark.parametrize(("text", "rest"), [
    ("e a 457?", ["a", "457"]), ("e as canceladas?", ["as", "canceladas"]), ("and for Beta?", ["beta"]),
    ("what about 46?", ["46"]), ("e quanto à Beta Engenharia?", ["beta", "engenharia"]),
    ("e", None), ("abra a 457", None), ("e então, pode abrir a permissão 457 da empresa Beta agora?", None),
])
def test_ellipsis_rest(text, rest):
    assert ellipsis_rest(tokens(text)) == rest


@pytest.mark.parametrize(("text", "said"), [
    ("para -5 dias", [("-5", -5.0, True)]), ("2,5 dias", [("2,5", 2.5, False)] * 2),
    ("de 2.5 para 30", [("2.5", 2.5, False)] * 2 + [("30", 30.0, True)]),
    ("em 2026-12-12", [("2026", 2026.0, True), ("12", 12.0, True), ("12", 12.0, True)]),
    ("− 7 days", [("−7", -7.0, True)]),
])
def test_raw_numbers(text, said):
    assert [(n.text, n.value, n.whole) for n in raw_numbers(text)] == said


def test_numerals_align_from_the_end_for_a_remainder():
    text = "não, a 124 com -5 dias"
    aligned = numerals_of(["a", "124", "com", "5", "dias"], text)
    assert aligned[1].value == 124 and aligned[3].value == -5
    assert numerals_of(["-5"], "") == {}


@pytest.mark.parametrize(("said", "schema", "problem"), [
    ("-5", {}, "negative"), ("2,5", {}, "fraction"), ("400", {"minimum": 1, "maximum": 365}, "range"),
    ("0", {"minimum": 1}, "range"), ("30", {"minimum": 1, "maximum": 365}, None),
])
def test_value_problem(said, schema, problem):
    numeral = raw_numbers(said)[0]
    assert value_problem(numeral, str(int(abs(numeral.value))), schema) == problem


@pytest.mark.parametrize(("text", "takes_value", "named_at", "expected"), [
    ("deixa a 456 com 20 dias", True, [], "456"), ("renove a 123 por 45 dias", True, [], "123"),
    ("mude a validade da 123 para 40", True, [], "123"), ("mude a validade para 40", True, [], None),
    ("mude a 7 8", True, [], "7"), ("abra a 789", False, [], "789"), ("set permit 12 to 30 days", True, [2], "12"),
])
def test_reference_number(text, takes_value, named_at, expected):
    parts = tokens(text)
    found = reference_number(parts, set(), takes_value=takes_value, named_at=[parts.index(p) for p in parts
                                                                              if named_at and p == "12"])
    assert (found[1] if found else None) == expected
