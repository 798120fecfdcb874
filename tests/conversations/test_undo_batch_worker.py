"""Undo of a batch evaluation with a real Celery worker (issue 19 point 2): the turns go through the REST
API, the batch and then its undo run in a separate worker process, and the sample application's data
shows the recorded decisions, then none."""

from __future__ import annotations

import pytest

from sst import services as sst
from sst.models import PermitEvaluation
from tests.conversations.test_undo_worker import on_worker, settled  # noqa: F401 - fixture: this module's worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("lanes")]


def test_a_batch_evaluation_and_its_undo_run_on_the_worker(world, operator_client, start, talk,
                                                           on_worker):  # noqa: F811
    more = [sst.permit_create(tenant=world.tenant, company=world.delta, number=str(n), validity_days=10)
            for n in (901, 902, 903)]
    drafts = {world.p771.pk, world.p771_omega.pk, world.p802.pk, *(p.pk for p in more)}
    evaluations = PermitEvaluation.objects.for_tenant(world.tenant)
    conversation = start(operator_client)
    asked = talk(operator_client, conversation, "avalie todas as permissões em rascunho")
    assert asked["status"] == "CONFIRMATION_REQUIRED", asked["response"]
    talk(operator_client, conversation, "sim")
    state = settled(operator_client, conversation)
    assert state["status"] == "SUCCESS", state
    assert set(evaluations.values_list("permit_id", flat=True)) == drafts and evaluations.count() == 6

    undo = talk(operator_client, conversation, "desfaça")
    assert undo["status"] == "CONFIRMATION_REQUIRED", undo["response"]
    assert "de 6 permissões" in undo["response"]["message"], undo["response"]["message"]
    talk(operator_client, conversation, "sim")
    state = settled(operator_client, conversation)
    assert state["status"] == "SUCCESS", state
    assert not evaluations.exists()
    assert state["last_result"]["message"].startswith("Desfeito: retirar a avaliação de 6 permissões")
