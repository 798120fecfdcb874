"""no_verb.py and dates.date_from_word, table-driven in both languages: where a verb's word asks nothing (a frame in
time, another's future or past, the speaker's past, a giving to the speaker, a word asking for attention), and the
date said after a word. Pure functions on the message's words: no database."""

from __future__ import annotations

from datetime import date

import pytest

from conversations.dates import date_from_word
from conversations.grammar import Verb
from conversations.lexicon import tokens
from conversations.no_verb import _told_past, calls_attention, framed, no_verb_here, will_follow

TODAY = date(2026, 12, 6)  # a Sunday


def _at(text: str, word: str) -> tuple[list[str], int]:
    parts = tokens(text)
    return parts, parts.index(word)


@pytest.mark.parametrize(("text", "word", "expected"), [
    ("antes de liberar a frente, preciso saber os componentes", "liberar", True),
    ("depois de aprovar a 311 me mostra os trabalhadores", "aprovar", True),
    ("em vez de cancelar, adia a 62", "cancelar", True),
    ("sem mudar a validade, aprova", "mudar", True),
    ("before approving it, show me the workers", "approving", True),
    ("instead of cancelling it, move it to friday", "cancelling", True),
    ("antes, aprove a 311", "aprove", False),  # "antes," frames nothing: an imperative follows
    ("aprova a 311 antes de sexta", "aprova", False),
    ("after that, approve it", "approve", False),
])
def test_a_verb_framed_in_time_or_manner(text, word, expected):
    parts, at = _at(text, word)
    assert framed(parts, at) is expected


@pytest.mark.parametrize(("text", "word", "expected"), [
    ("torre vai ficar liberada antes antecipa 62", "liberada", True),  # another's future state
    ("ela vai acompanhar servico quente", "acompanhar", True),
    ("they will approve it tomorrow", "approve", True),
    ("torre vai ficar liberada", "vai", True),  # "vai" before an infinitive: the future, not "go"
    ("gente vai precisar cancelar inspecao 62", "cancelar", False),  # the speaker's need asks it
    ("voce vai aprovar 311", "aprovar", False),  # asked of the listener
    ("320 nao vai mais acontecer cancela ela", "vai", True),  # a negated future, said of the item
    ("vai pra 311", "vai", False),  # "go"
    ("e vai direto nos componentes", "vai", False),
    ("pode me passar", "passar", True),  # a giving to the speaker: be told
    ("passa 311 pro caio", "passa", False),
    ("looks fine to me approve", "looks", True),
])
def test_a_word_that_asks_nothing_here(text, word, expected):
    words, at = _at(text, word)
    assert no_verb_here(words, at) is expected


@pytest.mark.parametrize(("word", "head", "expected"), [
    ("conferi", "confere", True), ("aprovei", "aprovar", True), ("aprovei", "aprove", True),
    ("voltou", "volta", True), ("cancelou", "cancel", True), ("removeu", "remover", True),
    ("abriu", "abre", True), ("cancelaram", "cancela", True),
    ("inclui", "incluir", False),  # "inclui a Sonia": the imperative, spelled as the past
    ("aprova", "aprovar", False), ("confere", "confere", False), ("cancelamos", "cancelar", False),
])
def test_a_past_told_is_no_request(word, head, expected):
    assert _told_past([word, "311"], 0, Verb("x", (head,), "pt")) is expected


@pytest.mark.parametrize(("text", "at", "expected"), [
    ("i checked the workers", 1, True), ("we approved it yesterday", 1, True),
    ("is it approved", 2, False),  # a state asked (state_question.py)
])
def test_an_english_past_said_by_the_speaker(text, at, expected):
    words = tokens(text)
    assert _told_past(words, at, Verb("x", (words[at][:-2] + "e",), "en")) is expected


@pytest.mark.parametrize(("text", "word", "expected"), [
    ("olha a inspecao 52 passa ela pra sexta", "olha", True),
    ("bom olha cancela a 62", "olha", True),
    ("look cancel inspection 52", "look", True),
    ("me mostra a 52 olha", "olha", False),  # not where the message opens
    ("abre a 52", "abre", False),
])
def test_a_word_asking_for_attention(text, word, expected):
    parts, at = _at(text, word)
    assert calls_attention(parts, at) is expected


@pytest.mark.parametrize(("text", "word", "expected"), [
    ("equipe vai precisar cancelar", "equipe", True), ("crew will need to cancel", "crew", True),
    ("equipe da 311", "equipe", False),
])
def test_the_subject_of_a_future(text, word, expected):
    words, at = _at(text, word)
    assert will_follow(words, at) is expected


@pytest.mark.parametrize(("text", "word", "expected"), [
    ("a 52 que tá pra daqui 10 dias, passa pra daqui 21 dias", 8, date(2026, 12, 27)),
    ("the one due in 3 days, move it to in 9 days", 6, date(2026, 12, 15)),
    ("passa a 52 pra daqui 21 dias", 0, None),  # word 0: the whole message is date_in's
    ("a 52 de daqui 10 dias, abre ela", 7, None),  # no date after it
])
def test_the_date_said_after_a_word(text, word, expected):
    found = date_from_word(text, word, TODAY, "en" if text.startswith("the") else "pt-BR")
    assert (found.value if found else None) == expected
