"""What the seventeenth session mended. Each test failed before its change, unless it says it guards. (Permit 802
of Delta has 20 days; 771 is both Delta's and Omega's; inspection 78 is 5 days out, 79 six.)"""

from __future__ import annotations

from datetime import timedelta

import pytest

from planning.models import PlanStep
from sst.models import Inspection

from .conftest import inspection_78, said

pytestmark = pytest.mark.django_db

# --- one write said of several items ------------------------------------------------------------------------------


def _proposed(world, reply) -> list[tuple[str, dict]]:
    steps = PlanStep.objects.for_tenant(world.tenant).filter(plan_id=reply["confirmation"]["plan_id"], kind="write")
    return [(step.capability_id, step.input) for step in steps.order_by("position")]


def _statuses(world) -> dict[str, str]:
    return dict(Inspection.objects.filter(tenant=world.tenant).values_list("number", "status"))


@pytest.mark.parametrize(("texts", "language"), [
    (("cancela as inspeções 78 e 79",), None),
    (("cancel inspections 78 and 79",), "en"),
    (("cancela a 78 e cancela a 79",), None),
    (("abre a inspeção 78", "abre a 79", "cancela as duas"), None),
    (("open inspection 78", "now 79", "cancel both of them"), "en"),
])
def test_one_write_said_of_two_items_is_proposed_for_each_and_runs_for_each(world, supervisor_client, start, talk,
                                                                          texts, language):
    """It had proposed the first item only (or the one in view), and said nothing of the other."""
    inspections = {i.number: i.pk for i in (inspection_78(world),)} | {
        "79": Inspection.objects.get(tenant=world.tenant, number="79").pk}
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "confirmation", reply
    assert "78" in reply["message"] and "79" in reply["message"], reply
    proposed = _proposed(world, reply)
    assert [(cap, step["inspection_id"]) for cap, step in proposed] == [
        ("inspection.cancel", inspections["78"]), ("inspection.cancel", inspections["79"])], proposed
    assert set(_statuses(world).values()) == {"SCHEDULED"}

    said(supervisor_client, start, talk, *texts, "!confirm", "ok", language=language)
    assert _statuses(world) == {"78": "CANCELLED", "79": "CANCELLED"}


def test_a_value_said_for_two_items_is_each_ones(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "muda a validade da 802 e da 771 da Omega pra 40 dias")

    assert reply["type"] == "confirmation", reply
    proposed = _proposed(world, reply)
    assert [(step["permit_id"], step["validity_days"]) for _, step in proposed] == [
        (world.p802.pk, 40), (world.p771_omega.pk, 40)], proposed


@pytest.mark.parametrize("text", [
    "adia a 78 e a 79 em 3 dias",  # a date counted from each item's own
    "aprova a 802 e a 771",  # 771 names two items
])
def test_two_items_whose_value_or_item_is_not_plain_are_asked_one_at_a_time(world, supervisor_client, start, talk,
                                                                            text):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, text)

    assert reply["type"] == "clarification", reply
    assert not reply.get("confirmation"), reply


def test_a_second_value_of_a_child_is_still_the_one_items_many(world, supervisor_client, start, talk):
    """Guards: two children added to one item stay one proposal for that item."""
    reply = said(supervisor_client, start, talk, "adiciona Solda Elétrica e adiciona Ruído Contínuo na 802")

    assert reply["type"] == "confirmation", reply
    assert {step["permit_id"] for _, step in _proposed(world, reply)} == {world.p802.pk}


def test_a_listed_number_that_names_nothing_is_said_not_dropped(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "aprova a 802 e a 999")

    assert reply["type"] != "confirmation" and "999" in reply["message"], reply


# --- a yes said in the user's own words ---------------------------------------------------------------------------


@pytest.mark.parametrize(("texts", "language"), [
    (("muda a validade da 802 pra 33 dias", "sim, 33 dias mesmo"), None),
    (("set the validity of 802 to 33 days", "Sounds good to me, confrimed."), "en"),
    (("set the validity of 802 to 33 days", "k do it"), "en"),
    (("set the validity of 802 to 33 days", "yes, 33 works, confirm it"), "en"),
    (("muda a validade da 802 pra 33 dias", "sí, pode fazer"), None),
    (("muda a validade da 802 pra 33 dias", "sim, tenho certeza, pode mudar a validade da 802 pra 33 dias"), None),
])
def test_a_yes_in_own_words_runs_what_is_on_screen(world, supervisor_client, start, talk, texts, language):
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "execution", reply
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 33


@pytest.mark.parametrize(("texts", "days"), [
    (("muda a validade da 802 pra 33 dias", "sim, 35 dias"), 35),
    (("muda a validade da 802 pra 33 dias", "pode ser, mas 36 dias"), 36),
])
def test_a_yes_with_another_value_proposes_that_value(world, supervisor_client, start, talk, texts, days):
    reply = said(supervisor_client, start, talk, *texts)

    assert reply["type"] == "confirmation" and str(days) in reply["message"], reply
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20


def test_a_yes_that_names_another_write_runs_nothing(world, supervisor_client, start, talk):
    """Safety: "sim, confirma a aprovação" with a change of validity on screen had run the change."""
    reply = said(supervisor_client, start, talk, "muda a validade da 802 pra 33 dias", "sim, confirma a aprovação")

    assert reply["type"] != "execution", reply
    world.p802.refresh_from_db()
    assert (world.p802.validity_days, world.p802.status) == (20, "DRAFT")


# --- words that look like verbs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "qual achado da 78 é de gravidade baixa?",  # "dá baixa" folds to "da baixa": no "baixa" alone
    "achei isso escrito num achado da 78",  # "isso" is no form of "issue"
])
def test_a_question_or_a_remark_proposes_nothing(world, supervisor_client, start, talk, text):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, text)

    assert reply["type"] != "confirmation", reply
    assert reply.get("template") != "clarify.missing", reply  # (no value of a write asked for either)


def test_a_small_number_in_words_and_a_half_is_asked_about(world, supervisor_client, start, talk):
    """Silent value: "dois dias e meio" had proposed 2 days."""
    reply = said(supervisor_client, start, talk, "validade da 802 pra dois dias e meio")

    assert reply["type"] == "clarification" and "2.5" in reply["message"], reply


# --- what is said around a proposal ------------------------------------------------------------------------------


def test_a_yes_to_a_question_asks_the_question_again(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "muda a validade da 771 pra 30 dias", "sim")

    assert reply["type"] == "clarification" and len(reply["clarification"]["candidates"]) == 2, reply


def test_a_yes_with_nothing_pending_says_so(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "yes, I confirm", language="en")

    assert reply["type"] == "error" and reply["error"]["code"] == "NOTHING_PENDING", reply


def test_a_hold_then_an_undo_undoes_what_ran(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "add Solda Elétrica to permit 802", "!confirm",
                 "wait, that was a mistake, take it back", language="en")

    assert reply["type"] == "confirmation" and "Solda" in reply["message"], reply
    assert "remove" in reply["message"].lower(), reply


def test_a_yes_with_the_undos_verb_and_again_confirms_it(world, supervisor_client, start, talk):
    said(supervisor_client, start, talk, "add Solda Elétrica to permit 802", "!confirm", "undo it",
         "yes remove it again", language="en")

    assert not world.p802.components.exists()


def test_define_a_person_as_a_role_is_no_definition_asked(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "define a Ana Costa como inspetora da inspeção 78")

    assert reply["type"] == "confirmation" and "Ana Costa" in reply["message"], reply


def test_leave_it_for_a_weekday_moves_the_proposed_date(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "remarca a inspeção 78 pra daqui 9 dias",
                 "na verdade, deixa pra sexta-feira")

    assert reply["type"] == "confirmation" and "78" in reply["message"], reply
    steps = _proposed(world, reply)
    assert steps[0][0] == "inspection.reschedule", steps


@pytest.mark.parametrize("answer", ["troca pra Ana Costa", "sim, e põe a Ana Costa como responsável"])
def test_a_person_said_with_another_writes_verb_is_the_proposals_value(world, supervisor_client, start, talk,
                                                                        answer):
    reply = said(supervisor_client, start, talk, "cria uma permissão pra Delta Engenharia com 20 dias, responsável "
                                                 "Bruno Teixeira", answer)

    assert reply["type"] == "confirmation" and "Ana Costa" in reply["message"], reply
    assert [cap for cap, _ in _proposed(world, reply)] == ["workPermit.create"]


# --- Portuguese with Spanish words ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("texts", "kind"), [
    (("abre la permissão 802", "agora la aba de trabajadores"), "navigation"),
    (("agregar Ana Costa a los trabajadores de la 802",), "confirmation"),
    (("quem é o responsável da 771 da Delta?", "y de la 802?"), "answer"),
])
def test_portuguese_with_spanish_function_words_is_understood(world, supervisor_client, start, talk, texts, kind):
    reply = said(supervisor_client, start, talk, *texts)

    assert reply["type"] == kind, reply


# --- a no with what is wanted instead -------------------------------------------------------------------------------


@pytest.mark.parametrize(("texts", "days"), [
    (("set the validity of 802 to 40 days", "sorry, not 40, make it 45"), 45),
    (("muda a validade da 802 pra 40 dias", "usa 45 em vez de 40"), 45),
])
def test_a_value_denied_then_given_proposes_the_given_one(world, supervisor_client, start, talk, texts, days):
    """(The second guards: "usa 45" was read before; what follows "em vez de" is now left out.)"""
    reply = said(supervisor_client, start, talk, *texts)

    assert reply["type"] == "confirmation", reply
    assert [step["validity_days"] for _, step in _proposed(world, reply)] == [days]


def test_a_no_then_the_same_verb_changed_proposes_the_change(world, supervisor_client, start, talk):
    inspection = inspection_78(world)
    reply = said(supervisor_client, start, talk, "remarca a inspeção 78 pra daqui 30 dias",
                 "melhor não, só adia uma semana em relação à data que ela já tem")

    assert reply["type"] == "confirmation", reply
    assert [step["scheduled_for"] for _, step in _proposed(world, reply)] == [
        (inspection.scheduled_for + timedelta(days=7)).isoformat()]


@pytest.mark.parametrize(("request_", "answer"), [
    ("remarca a inspeção 78 pra daqui 30 dias", "não, não adia"),  # guards: "não adia" was a no and stays one
    ("adiciona o componente Ruído Contínuo na 802", "negativo, não quero esse componente nela"),
])
def test_a_no_with_its_own_verb_negated_or_its_thing_pointed_at_declines(world, supervisor_client, start, talk,
                                                                        request_, answer):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, request_, answer)

    assert reply["type"] == "answer" and reply["template"] == "confirmation.declined", reply


# --- told, not asked ----------------------------------------------------------------------------------------------


def test_what_was_done_to_an_item_told_shows_it_and_proposes_nothing(world, supervisor_client, start, talk):
    reply = said(supervisor_client, start, talk, "a 802 foi criada errada")

    assert reply["type"] == "answer" and "802" in reply["message"], reply
    reply = said(supervisor_client, start, talk, "a 802 foi criada errada", "apaga ela pfv")
    assert reply["type"] == "confirmation" and "802" in reply["message"], reply


def test_a_que_in_a_request_asks_no_definition(world, supervisor_client, start, talk):
    """'o que é' is one verb: a 'que' alone ("… q preciso fechar …") asks the knowledge base nothing."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "me passa os achados da 78 q preciso fechar o relatório")

    assert reply["type"] == "answer" and "Escada sem trava" in reply["message"], reply


def test_the_text_a_write_records_may_be_told_before_it(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "mangueira de incêndio vencida, gravidade alta. registra na 78")

    assert reply["type"] == "confirmation", reply
    assert [step.get("description") for _, step in _proposed(world, reply)] == ["mangueira de incêndio vencida"]


@pytest.mark.parametrize(("texts", "language", "days"), [
    (("passa a inspeção 78 pro dia seguinte",), None, 1),
    (("passa a inspeção 78 pra 2 dias antes",), None, -2),
    (("move inspection 78 to 3 days after its current date",), "en", 3),
    (("open inspection 78", "move it to the day before"), "en", -1),
])
def test_a_day_said_from_the_items_own_date_moves_it(world, supervisor_client, start, talk, texts, language, days):
    inspection = inspection_78(world)
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] == "confirmation", reply
    assert [step["scheduled_for"] for _, step in _proposed(world, reply)] == [
        (inspection.scheduled_for + timedelta(days=days)).isoformat()]


@pytest.mark.parametrize("text", [
    "dá baixa na inspeção 78",  # a verb whose first word folds to an article still acts where that word stands
    "tô fechando a inspeção 78, conclui ela pra mim",  # what is being done is told, but a request after it is asked
])
def test_a_request_is_still_proposed(world, supervisor_client, start, talk, text):
    """Guards: readings the told-sentence and lead-word rules must leave as they were."""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, text)

    assert reply["type"] == "confirmation" and "78" in reply["message"], reply


def test_about_an_item_opens_it_and_proposes_nothing(world, supervisor_client, start, talk):
    """Safety: "sobre a pt 312" had proposed doubling its validity ("sobre" read as "dobre" with a slip)."""
    reply = said(supervisor_client, start, talk, "sobre a permissão 802")

    assert reply["type"] == "navigation", reply
    reply = said(supervisor_client, start, talk, "sobre a permissão 802", "cancela ela, o serviço foi suspenso")
    assert reply["type"] == "confirmation" and "802" in reply["message"], reply
    world.p802.refresh_from_db()
    assert (world.p802.validity_days, world.p802.status) == (20, "DRAFT")


def test_a_child_picked_by_its_state_without_its_noun_after_its_list(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "quais são os achados da inspeção 78?", "remove o de gravidade alta")

    assert reply["type"] == "confirmation" and "Escada sem trava" in reply["message"], reply


@pytest.mark.parametrize(("answer", "kept"), [
    ("Não, peraí, a 79 continua. Só a 78.", ["78"]),
    ("não, a 80", []),  # no step said to keep: set aside and asked, never the same two proposed again
])
def test_a_correction_of_several_steps_keeps_only_what_it_says(world, supervisor_client, start, talk, answer, kept):
    """Safety: "só a 78" after "cancela a 78 e a 79" had proposed both again. (The second guards: with no step
    kept, nothing is proposed.)"""
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "cancela a 78 e a 79", answer)

    numbers = dict(Inspection.objects.filter(tenant=world.tenant).values_list("pk", "number"))
    proposed = [numbers[step["inspection_id"]] for _, step in _proposed(world, reply)] if kept else []
    assert proposed == kept, reply
    assert reply["type"] == ("confirmation" if kept else "clarification"), reply


# --- a request under a condition on an item's state ----------------------------------------------------------------


@pytest.mark.parametrize(("text", "language", "held"), [
    ("se a 802 estiver em rascunho, aprova ela", None, True),
    ("if 802 is still a draft, approve it", "en", True),
    ("se a 802 ainda não estiver em rascunho, aprova ela", None, False),
    ("se a 802 já estiver aprovada, cancela ela", None, False),
])
def test_a_condition_on_the_items_state_is_checked_from_its_data(world, supervisor_client, start, talk, text,
                                                                 language, held):
    reply = said(supervisor_client, start, talk, text, language=language)

    if held:
        assert reply["type"] == "confirmation" and "802" in reply["message"], reply
    else:
        assert reply["type"] == "answer" and reply["template"] == "answer.condition_not_held", reply
    world.p802.refresh_from_db()
    assert world.p802.status == "DRAFT"


def test_a_condition_that_names_no_state_is_still_asked_about(world, supervisor_client, start, talk):
    """Guards: what cannot be checked from the data is never proposed."""
    reply = said(supervisor_client, start, talk, "se a 802 estiver vencida, renova por 30 dias")

    assert reply["type"] == "clarification" and reply["template"] == "clarify.compound_condition", reply


# --- corrections said with noise, after a question, or closed by an apology ----------------------------------------


@pytest.mark.parametrize(("texts", "language", "says"), [
    (("qual a validade da 771 da Omega? digo, da 802",), None, "802"),
    (("abre a 771 da Omega", "eita kkk errei, é a 802"), None, "802"),
    (("who is responsible for permit 771 of Delta?", "permit 802 I mean"), "en", "802"),
    (("muda a validade da 802", "50... não, 40"), None, "40"),
    (("cria uma permissão pra Delta Engenharia com 10 dias, ops, 12 dias",), None, "12"),
])
def test_a_correction_with_noise_or_after_a_question_is_read(world, supervisor_client, start, talk, texts, language,
                                                             says):
    reply = said(supervisor_client, start, talk, *texts, language=language)

    assert reply["type"] in ("answer", "navigation", "confirmation") and says in reply["message"], reply


def test_a_no_then_a_dash_denies_nothing_after_it(world, supervisor_client, start, talk):
    """"no - permit 771 of Omega": the dash ends the no; the item after it is the one meant."""
    reply = said(supervisor_client, start, talk, "approve permit 802", "no - permit 771 of Omega", language="en")

    assert reply["type"] == "confirmation" and "771" in reply["message"] and "802" not in reply["message"], reply


def test_a_count_asked_again_of_another_item_is_counted(world, supervisor_client, start, talk):
    inspection_78(world)
    reply = said(supervisor_client, start, talk, "quantos achados tem a inspeção 78?", "e a 79?")

    assert reply["template"] == "answer.field_count" and "79: 0" in reply["message"], reply


@pytest.mark.parametrize(("answer", "kind"), [("faz o mesmo na 802, só que com 25 dias", "confirmation"),
                                              ("faz o mesmo na 802, só que com -5 dias", "clarification")])
def test_the_same_for_another_item_with_a_value_of_its_own(world, supervisor_client, start, talk, answer, kind):
    """The value said with "the same for <item>" was dropped: "25 dias" proposed 40 on 2b813a3; "-5 dias" was asked
    about there only because its "que" was read as a definition asked, and proposed 40 (a silent value) once "o que
    é" needed its "o" (b03b92f, this session) — the whole corpus caught it."""
    reply = said(supervisor_client, start, talk, "muda a validade da 771 da Omega pra 40", "!confirm", answer)

    assert reply["type"] == kind, reply
    if kind == "confirmation":
        assert [step["validity_days"] for _, step in _proposed(world, reply)] == [25]
    world.p802.refresh_from_db()
    assert world.p802.validity_days == 20
