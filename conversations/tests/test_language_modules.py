"""Table-driven tests of the language modules, per language: no database, no registry."""

from __future__ import annotations

import pytest

from conversations import answer_remark, lexicon
from conversations.ellipsis import ellipsis_rest, says_also
from conversations.lexicon import tokens
from conversations.numbers import numerals_of, raw_numbers, reference_number, value_problem
from conversations.relative import Change, relative_change
from conversations.social import social_kind


@pytest.mark.parametrize(("text", "kind"), [
    ("oi", "greeting"), ("Olá, tudo bem?", "greeting"), ("bom dia!", "greeting"), ("hello there", "greeting"),
    ("Good morning", "greeting"), ("obrigado!", "thanks"), ("valeu pela ajuda", "thanks"), ("thanks a lot", "thanks"),
    ("thank you", "thanks"), ("tchau", "bye"), ("see you", "bye"), ("ajuda", "help"),
    ("o que você pode fazer?", "help"), ("o que vc faz", "help"), ("what can you do?", "help"), ("help", "help"),
    ("obrigado, o que você pode fazer?", "help"), ("what kind of stuff can you do?", "help"),
    ("que tipo de coisa você sabe fazer?", "help"), ("can you do permit 802 now", None),
    ("oi, abra a permissão 123", None), ("ajuda com a 123", None), ("obrigado por excluir a 5", None), ("", None),
    ("valeu, ajudou muito", "thanks"), ("thank you, that's all", "thanks"), ("obrigadão!", "thanks"),
    ("much appreciated", "thanks"), ("por hoje é só", "bye"), ("that's all for now", "bye"),
    ("e aí, beleza?", "greeting"),
    ("o que você sabe fazer?", "help"), ("what are you able to help me with?", "help"),
    ("como você pode me ajudar com as inspeções?", "help"), ("how can you help me with permits?", "help"),
    ("waht can you do for me?", "help"), ("o que eu posso pedir pra você?", "help"),
    ("me ajuda com a permissão 311", None), ("help me with removing Tiago from permit 5", None),
    ("pode me ajudar a cancelar a inspeção 52?", None), ("valeu, agora abre a 52", None),
    ("me ajuda, o que dá pra fazer aqui?", "help"), ("what can I do here?", "help"),
    ("thx, that helped a lot!", "thanks"), ("hey there, how's your day going?", "greeting"),
    ("oi, como você está?", "greeting"), ("how are you doing today?", "greeting"),
    ("valeu, ajudou demais!", "thanks"), ("morning! hope ur doing well", "greeting"),
    # who it is: answered with what it can do
    ("tu é um robô mesmo?", "help"), ("are you a bot?", "help"), ("quem é você?", "help"),
    ("is permit 5 a bot", None),
    ("ok, thanks anyway", "thanks"), ("valeu mesmo assim", "thanks"),
])
def test_social_kind(text, kind):
    assert social_kind(tokens(text)) == kind


@pytest.mark.parametrize(("text", "expected"), [
    ("mais 10 dias", Change("add", 10)), ("reduza em 5", Change("sub", 5)), ("dobra", Change("mul", 2)),
    ("menos 3", Change("sub", 3)), ("aumente em 7 dias", Change("add", 7)), ("add 3 more days", Change("add", 3)),
    ("double it", Change("mul", 2)), ("halve it", Change("mul", 0.5)), ("reduce by 4", Change("sub", 4)),
    ("aumenta para 50", None), ("tira eletricidade", None), ("mude a validade para 40 dias", None),
    ("mais 10 dias na permissão 9", None), ("10", None),
    ("make it 5 days longer", Change("add", 5)), ("deixa com 3 dias a menos", Change("sub", 3)),
    ("2 days shorter", Change("sub", 2)), ("deixa 20 dias", None), ("make it 5 days", None),
    ("doubble it", Change("mul", 2)), ("tripple", Change("mul", 3)), ("doubt it", None), ("dobra", Change("mul", 2)),
])
def test_relative_change(text, expected):
    assert relative_change(tokens(text)) == expected


@pytest.mark.parametrize(("text", "rest"), [
    ("e a 457?", ["a", "457"]), ("e as canceladas?", ["as", "canceladas"]), ("and for Beta?", ["beta"]),
    ("what about 46?", ["46"]), ("e quanto à Beta Engenharia?", ["beta", "engenharia"]),
    ("e", None), ("abra a 457", None), ("e então, pode abrir a permissão 457 da empresa Beta agora?", None),
    ("quais delas são da Beta?", ["sao", "da", "beta"]), ("only the Beta ones", ["beta", "ones"]),
    ("which of those are cancelled?", ["are", "cancelled"]),
    ("faz o mesmo com a 311", ["a", "311"]), ("do the same for 52", ["52"]), ("repete na 60", ["60"]),
    ("the same on permit 340 of Beta", ["permit", "340", "of", "beta"]), ("mesma coisa pra 312", ["312"]),
    ("repeat that on 52", ["52"]), ("igual na 311", None),
])
def test_ellipsis_rest(text, rest):
    assert ellipsis_rest(tokens(text)) == rest


@pytest.mark.parametrize(("text", "same"), [
    ("faz o mesmo com a 311", True), ("do the same for 52", True), ("a 311 também", True), ("e a 311?", False),
    ("repeat that for inspection 60", True), ("abre a 311", False),
])
def test_says_also(text, same):
    assert says_also(tokens(text)) is same


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
    ("change validity of 312", True, [], "312"), ("give it a validity of 45", True, [], None),
])
def test_reference_number(text, takes_value, named_at, expected):
    parts = tokens(text)
    found = reference_number(parts, set(), takes_value=takes_value, named_at=[parts.index(p) for p in parts
                                                                              if named_at and p == "12"])
    assert (found[1] if found else None) == expected


def _control_kind(text: str) -> str | None:
    """What the dispatcher (answer_remark.control_of) makes of the message, by the handler it picks."""
    handler = answer_remark.control_of(lexicon.phrase(text))
    names = {"confirm": "confirm", "decline": "decline", "cancel": "cancel", "undo_request": "undo",
             "retry": "retry", "resume": "resume"}
    return names[handler.__name__] if handler is not None else None


@pytest.mark.parametrize(("text", "kind"), [
    ("sim", "confirm"), ("ok, do it", "confirm"), ("sim, pode mandar", "confirm"), ("yes, go ahead please", "confirm"),
    ("manda bala", "confirm"), ("sounds good", "confirm"), ("beleza, pode seguir", "confirm"),
    ("não", "decline"), ("melhor não", "decline"), ("não, deixa", "decline"), ("não, obrigado", "decline"),
    ("nem pensar", "decline"), ("no, don't", "decline"), ("no, leave it", "decline"), ("nope", "decline"),
    ("nah, not now", "decline"), ("better not", "decline"),
    ("deixa pra lá", "cancel"), ("esquece", "cancel"), ("desiste", "cancel"), ("mudei de ideia", "cancel"),
    ("stop, cancel that", "cancel"), ("espera, cancela", "cancel"), ("scratch that", "cancel"),
    ("never mind", "cancel"),
    ("desfazer a última ação", "undo"), ("desfaz o que você fez", "undo"), ("undo the last change", "undo"),
    ("take that back", "undo"),
    # A refusal or a stop word opening a request is no control phrase: the request is read.
    ("não, deixa a validade em 30 dias", None), ("no, don't approve permit 5, cancel it", None),
    ("melhor não aprovar a 311", None), ("stop the inspection 52", None), ("esquece a 311 e abre a 312", None),
    ("sim, conclui", None), ("ok, cancela a inspeção 52", None), ("não pode", None),
    # Phrases of several kinds end to end: stops and refusals lead up to a request to act; refusals and
    # cancels together cancel; a yes with a no is nothing.
    ("wait no, undo that", "undo"), ("opa, errei, desfaz isso", "undo"), ("sorry, my bad, try again", "retry"),
    ("deixa pra lá, não precisa mais não", "cancel"), ("não, pera, deixa do jeito que tá", "decline"),
    ("sim, não", None), ("no, yes", None), ("undo that, no", None), ("desfaz, tenta de novo", None),
    ("errei", None), ("my bad, open permit 5", None), ("não, deixa queito", "decline"),
    ("never mind, forgt it", "cancel"), ("pode mandar ver", "confirm"), ("yes pls, thanks", "confirm"),
    ("undo that pls", "undo"),
    # Composed (control_composed): an affirmation of what is on screen, a wish withdrawn, an act asked politely.
    ("that's right, proceed", "confirm"), ("yes that's correct", "confirm"), ("tá certo", "confirm"),
    ("é isso mesmo", "confirm"), ("isso está certo, pode seguir", "confirm"), ("is that right?", None),
    ("it's fine", None), ("no no, I not want this anymore", "decline"), ("I don't want this anymore", "cancel"),
    ("não quero mais isso", "cancel"), ("não quero", "decline"), ("oops, can you undo that?", "undo"),
    ("pode desfazer isso?", "undo"), ("could you try again please", "retry"), ("pode cancelar", None),
    ("can you open permit 5", None), ("pensando bem, não. deixa ela como tá", "decline"),
    ("leave it as it is", "decline"), ("ih, desfaz o que tu fez agora", "undo"), ("desfaz essa alteração", "undo"),
    ("undo that change", "undo"), ("deixa como estava", "decline"),
])
def test_control_phrases(text, kind):
    assert _control_kind(text) == kind


@pytest.mark.parametrize(("text", "rest"), [
    ("não, a 124", ["a", "124"]), ("ops, a 312", ["a", "312"]), ("oops, inspection 54", ["inspection", "54"]),
    ("foi mal, é a 53", ["e", "a", "53"]), ("my bad, permit 311", ["permit", "311"]), ("opa, abre a 312", None),
    ("opa, na verdade é a 310", ["e", "a", "310"]),
    ("abre a 312", None),
])
def test_correction_remainder(text, rest):
    assert lexicon.correction_remainder(text) == rest


@pytest.mark.parametrize(("text", "counts"), [
    ("how many permits are there?", True), ("quantas inspeções estão agendadas?", True),
    ("how long is permit 311 valid?", False), ("how is inspection 52 going?", False),
])
def test_count_words(text, counts):
    assert any(p in lexicon.COUNT_WORDS for p in tokens(text)) is counts


@pytest.mark.parametrize(("text", "asks"), [
    ("qual a validade?", True), ("o que acharam na 53", True), ("me fala rapidinho o que acharam na 53", True),
    ("que dia é a 52", True), ("pra semana que vem", False), ("abre a 52", False), ("o que", True),
    ("desfaz o que você fez", False),
])
def test_asks(text, asks):
    parts = tokens(text)
    assert lexicon.asks(parts, text) is asks


@pytest.mark.parametrize(("text", "which"), [
    ("a inspeção 53 foi feita em que dia?", True), ("por que inspetor ela foi feita", True),
    ("será que a 54 foi cancelada?", False), ("a 54 foi cancelada?", False), ("que foi feito", False),
])
def test_state_question_leaves_which_questions(text, which):
    from conversations.state_question import _which

    assert _which(tokens(text)) is which
