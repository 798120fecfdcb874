"""A request said among sentences of context (what the twelfth session mended from the long messages of the blind
rounds, bench/corpus fresh_2026_12_bi and _bk–bn): a verb that frames the request in time ("antes de liberar"), what
someone else will do ("a torre vai ficar liberada"), what the speaker already did ("já conferi"), a noun after a
preposition ("com a equipe") and a participle after a field's noun ("tem inspetor definido?") ask nothing; of two
bare numbers, the one after the verb is its object. Each test failed before its change. (Permits 771 and 802 have
20 days; inspection 78 is at Doca 9, with inspection 79 at Doca 2.)"""

from __future__ import annotations

import pytest

from .conftest import day_label, inspection_78, proposed

pytestmark = pytest.mark.django_db


def _reply(turn) -> tuple[str, str]:
    return str(turn["response"].get("type")), str(turn["response"]["message"])


# (message, the reply's type, what it says, what it never says)
_CASES = {
    "framed before": ("Bom dia. Antes de aprovar a frente de serviço preciso saber a validade da permissão 802. "
                      "Pode me passar?", "answer", ["20"], ["aprovar"]),
    "framed before, en": ("Before approving permit 802 I need to know its validity. Can you tell me?", "answer",
                          ["20"], ["approve"]),
    "instead of": ("em vez de cancelar a inspeção 78, remarca ela pra daqui 9 dias", "confirmation", ["78"],
                   ["cancelar"]),
    "another's future": ("a doca vai ficar liberada antes do previsto, remarca a inspeção 78 pra daqui 2 dias",
                         "confirmation", ["78", "remarcar"], ["aprovar", "Abrindo"]),
    "told done": ("Já conferi toda a documentação da permissão 802 com a equipe. Preciso que você a aprove agora.",
                  "confirmation", ["aprovar", "802"], ["Trabalhadores"]),
    "told done, en": ("I checked permit 802 with the crew yesterday. Now cancel inspection 79.", "confirmation",
                      ["cancel", "79"], ["802"]),
    "participle after a field": ("Bom dia. Estou distribuindo a agenda de inspeções da semana entre os técnicos. "
                                 "A inspeção 78 já tem inspetor definido?", "answer", ["78"], ["conhecimento"]),
    "object after the verb": ("vi a 771 ontem, agora cancela a 802", "confirmation", ["802"], ["771"]),
    "another's past": ("o Bruno cancelou a 79 sem querer, abre ela", "navigation", ["79"], ["cancelar"]),
    "tag then past": ("a inspeção 78 continua sem inspetor né ou já colocaram alguém", "answer", ["78"], []),
    # a question said without its mark ends at the "então" that opens the request: both answered
    "question then request": ("a 802 tá com quantos dias de validade mesmo, vinte né então aumenta ela pra trinta",
                              "confirmation", ["20 dias", "30 dias"], []),
    # "olha" asks for attention; the date after the verb is the one asked for, not the one telling which item
    "attention, two dates": ("olha a inspeção 78 que era daqui cinco dias a equipe vai estar de folga então passa ela "
                             "pra daqui doze dias", "confirmation", ["78", ("day", 12)], [("day", 5)]),
    "date before the verb": ("a 78 que tá pra daqui 5 dias, passa pra daqui 9 dias", "confirmation",
                             ["78", ("day", 9)], [("day", 5)]),
}


def _said(expected) -> str:
    return day_label(expected[1]) if isinstance(expected, tuple) else expected


@pytest.mark.parametrize("case", _CASES, ids=list(_CASES))
def test_the_request_among_sentences_of_context(world, supervisor_client, start, talk, case):
    text, kind, says, never = _CASES[case]
    inspection_78(world)
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    reply_type, message = _reply(turn)
    assert reply_type == kind, turn["response"]
    assert all(_said(s) in message for s in says), turn["response"]
    assert not any(_said(n) in message for n in never), turn["response"]


def test_a_team_that_will_need_a_write_still_asks_for_it(world, supervisor_client, start, talk):
    """"a equipe vai precisar cancelar …": the speaker relays a need — the write is proposed (and asked)."""
    inspection_78(world)
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, "a equipe vai precisar cancelar a inspeção 79")

    assert "79" in proposed(turn) and "cancelar" in proposed(turn), turn["response"]


@pytest.mark.parametrize("text", ["vai pra 802", "abre a 802", "cancela vai, a 802"])
def test_a_verb_that_opens_the_message_is_still_the_request(world, supervisor_client, start, talk, text):
    conversation = start(supervisor_client)

    turn = talk(supervisor_client, conversation, text)

    assert "802" in str(turn["response"]["message"]), turn["response"]
    assert turn["response"]["type"] in ("navigation", "confirmation"), turn["response"]
