"""Table tests of the language layer's handling of slips and amounts (issue #15 point 7)."""

from __future__ import annotations

import pytest

from conversations.dates import shift_said_wrong
from conversations.grammar import dropped_letter
from conversations.increments import increment_sign
from conversations.lexicon import asks, run_of, tokens
from conversations.spelling import spelled_as_meant


@pytest.mark.parametrize(("text", "expected"), [
    ("postpone it by 4 dyas", "postpone it by 4 dias"), ("adia 10 dais", "adia 10 dias"),
    ("2 semnas depois", "2 semanas depois"), ("30 dias", "30 dias"), ("10 days", "10 days"),
    ("o 12 das permissões", "o 12 das permissões"), ("abre a 12 agora", "abre a 12 agora"),
    ("what's the deal w/ 318", "what's the deal with  318"), ("inspeções s/ inspetor", "inspeções sem  inspetor"),
    ("any w/o an inspector?", "any without  an inspector?"), ("and/or", "and/or"), ("https://x.io/w/a", "https://x.io/w/a"),
    # a unit glued to its number, a three-letter slip of it, a number's word slipped before it, markdown emphasis
    ("para 60dias", "para 60 dias"), ("em 5 dis", "em 5 dias"), ("daqui qiunze dias", "daqui quinze dias"),
    ("**reschedule** `52` to _12 days from now_", "reschedule 52 to 12 days from now"),
    ("the fifth day", "the fifth day"), ("snake_case_name", "snake_case_name"), ("quinta dias", "quinta dias"),
])
def test_spelled_as_meant(text, expected):
    assert spelled_as_meant(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("adia em -3 dias", "negative"), ("by -4 days", "negative"), ("adia em 1,5 dia", "fraction"),
    ("postpone by 2.5 days", "fraction"), ("adia em 3 dias", None), ("para 12/12", None),
])
def test_shift_problem(text, expected):
    assert (shift_said_wrong(text) or (None,))[0] == expected


@pytest.mark.parametrize(("word", "verb", "expected"), [
    ("extnd", "extend", True), ("aprova", "aprovar", True), ("remova", "renova", False), ("tira", "tiras", False),
    ("estao", "estado", True),  # a verb's first word only: field words use same_word, which refuses this
])
def test_dropped_letter(word, verb, expected):
    assert dropped_letter(word, verb) is expected


@pytest.mark.parametrize(("text", "at", "expected"), [
    ("gimme 10 more days on x 311", 1, 1), ("estende por mais 5 dias", 3, 1), ("com 3 dias a menos", 1, -1),
    ("para 20 dias", 1, 0), ("make it 5 days longer", 2, 1),
    ("extnd 311 by 5 days", 3, 1), ("prorroga a 311 em 5 dias", 4, 1), ("reduz a 312 em 10 dias", 4, -1),
    ("extend 311 to 40 days", 3, 0), ("muda a 311 em 40 dias", 4, 0),
])
def test_increment_sign(text, at, expected):
    assert increment_sign(tokens(text), at) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("joga a 57 pra semana que vem", False), ("que dia é a 57", True), ("when is 62 scheduled", True),
    ("abre a 57", False), ("abre a 57?", True),
])
def test_asks(text, expected):
    assert asks(tokens(text), text) is expected


@pytest.mark.parametrize(("text", "kind"), [
    ("nao, espera", "decline"), ("never mind, forget it", "cancel"), ("oops, undo that", "undo"),
    ("não, abre a 310", None), ("cancela a 312", None), ("oops", None),
])
def test_run_of_control_phrases(text, kind):
    from conversations.lexicon import CANCEL, DECLINE, UNDO, phrase

    found = [name for name, phrases in (("decline", DECLINE), ("cancel", CANCEL), ("undo", UNDO))
             if run_of(phrases, phrase(text))]
    assert found == ([kind] if kind else [])


@pytest.mark.parametrize(("word", "verb", "expected"), [("opne", "open", True), ("aprvoa", "aprova", True),
                                                       ("lsit", "list", True), ("abre", "abra", False)])
def test_swapped_letters_in_a_verb(word, verb, expected):
    assert dropped_letter(word, verb) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("move inspection 52 to next Monay", "move inspection 52 to next monday"),
    ("adia pra próxima segnda", "adia pra próxima segunda"), ("next monday", "next monday"),
    ("na cerca", "na cerca"), ("on fridya", "on friday"), ("no domngo", "no domingo"),
])
def test_weekday_slips(text, expected):
    assert spelled_as_meant(text) == expected


@pytest.mark.parametrize(("word", "verb", "expected"), [
    ("moved", "move", True), ("approving", "approve", True), ("opens", "open", True), ("opened", "open", True),
    ("needed", "need", True), ("mover", "move", False), ("remover", "remove", False),
])
def test_english_forms_of_a_verb(word, verb, expected):
    from conversations.grammar import english_form

    assert english_form(word, verb) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("não é a 60, é a 62", ["e", "a", "62"]), ("not 311 i meant permit 310", ["i", "meant", "permit", "310"]),
    ("nao a 312", []), ("e a 312", ["e", "a", "312"]),
    ("não adiciona nada na 311, adiciona na 312", ["nao", "adiciona", "nada", "na", "311", "adiciona", "na", "312"]),
])
def test_without_negated(text, expected):
    from conversations.lexicon import without_negated

    assert without_negated(tokens(text)) == expected


@pytest.mark.parametrize(("words", "verb", "expected"), [
    (["lsta", "permissoes", "construtora"], ("lista",), (0, 1)),  # a letter inside a short verb not typed
    (["chek", "permit", "311"], ("check",), (0, 1)),
    (["preciso", "lste", "inspecoes"], ("liste",), (1, 2)),  # after a request opener: still the verb's place
    (["mostra", "lsta", "nova"], ("lista",), None),  # elsewhere a short word is its own word
    (["quis", "dizer", "311"], ("quais",), None),  # a closed-class word is never a slip
    (["lose", "it"], ("close",), None),  # an end letter dropped: another word
    (["star", "311"], ("start",), None),
])
def test_a_short_verb_with_a_letter_dropped_at_the_verbs_place(words, verb, expected):
    from conversations.verb_find import find_verb

    assert find_verb(words, verb) == expected


@pytest.mark.parametrize(("word", "expected_word", "expected"), [
    ("lsta", "lista", True), ("lste", "liste", True), ("chek", "check", True), ("cont", "count", True),
    ("lose", "close", False), ("star", "start", False),  # an end letter: another word
    ("lista", "lista", False), ("lsa", "lista", False), ("extnd", "extend", False),  # longer: dropped_letter's
])
def test_a_letter_dropped_inside_a_five_letter_word(word, expected_word, expected):
    from conversations.keyboard import dropped_inside

    assert dropped_inside(word, expected_word) is expected


@pytest.mark.parametrize(("text", "at", "expected"), [
    ("make marta the responsible on 311", 5, True), ("put the finding on 52", 4, True),
    ("coloca a marta como responsavel na 311", 6, False),  # "na 311" is reference_number's own rule
    ("extend it on 30 days", 3, False),  # an amount with its unit
    ("prorroga para 30", 2, False), ("set it to 40", 3, False),
])
def test_a_number_after_on_names_an_item(text, at, expected):
    from conversations.numbers import on_an_item

    assert on_an_item(tokens(text), at) is expected


@pytest.mark.parametrize(("word", "expected"), [
    ("lste", "liste"), ("lsta", "lista"), ("opwn", "open"),  # a slip of one verb's first word: that word
    ("lista", "lista"), ("listar", "listar"),  # a verb as typed stays
    ("quis", "quis"),  # a closed-class word is itself
    ("cone", "cone"),  # a slip of no head here
    ("reagneda", "reagendar"),  # a slip in the root of a long verb, inflected
    ("reschdule", "reschdule"),  # a long verb with one slip opens as typed (grammar.one_typo)
    ("remova", "remova"),  # its own verb's word: never a slip of another ("renova")
])
def test_a_slip_at_the_verbs_place_is_read_as_the_verb(word, expected):
    from conversations.verb_find import as_meant as _as_meant

    heads = frozenset({"liste", "lista", "listar", "open", "quais", "reagendar", "reschedule", "remova", "renova"})
    assert _as_meant(heads, word) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("go ahead and approve permit 311", 3), ("vai la e abre a 311", 3), ("ok, go ahead and cancel it", 4),
    ("and approve it", 0), ("e aprova a 311", 0), ("go to permit 311", 0), ("approve and close 311", 0),
])
def test_words_that_only_open_the_request(text, expected):
    from conversations.lexicon import lead_in

    assert lead_in(tokens(text)) == expected


def test_a_one_word_slip_is_found_as_by_comparing_every_phrase():
    """run_of forgives one slip in one long word by asking rapidfuzz over the set's long one-word phrases, picked
    once per set (comparing every phrase in Python, per clause head, was 100+ ms of a count question's turn):
    it answers as the comparison with every phrase does."""
    from rapidfuzz.distance import OSA

    from conversations.lexicon import CANCEL, CONFIRM, DECLINE, UNDO

    def by_every_phrase(word, phrases):
        return any(" " not in p and len(p) >= 6 and OSA.distance(word, p, score_cutoff=1) <= 1 for p in phrases)

    words = ["cofirma", "confirma", "cancelaa", "cancela", "desfazr", "quantos", "funcionarios", "esquece",
             "esqueca", "nevermind", "permissao", "validade", "deletar", "aprovar", "aprova", "cadastrados"]
    for phrases in (CONFIRM, DECLINE, CANCEL, UNDO):
        for word in words:
            expected = word in phrases or by_every_phrase(word, phrases)
            assert run_of(phrases, word) is expected, (word, len(phrases))
