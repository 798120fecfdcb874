"""The README's demo script and the answers given before any confirmation, in headless Debian chromium
against daphne (eager Celery) on seed_demo's tenant (issue 17: the browser evidence left open).

- The README's sentences, typed as written ("sim", "desfaça", "sim"): each confirmation card names what
  it acts on, the undo's card included ("remover “Trabalho em Altura”…", the component among the
  affected), each execution draws one timeline and one reply.
- A write the data already shows as done (a component the permit has) and an approval of a permit
  already approved are answered at once: no card, no timeline, nothing to say yes to.
"""

from __future__ import annotations

import pytest

from demo.tests.test_readme_demo import readme_sentences

from .chat import affected, card, replies, say, structure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PERMIT = "permissão 123 (Alfa Construções)"


def test_the_readme_script_in_the_browser_names_the_component_on_every_card(demo_page, snap):
    page = demo_page()
    sentences = readme_sentences()
    assert sentences[:5] == ["Abra a permissão 123", "Adicione o componente de trabalho em altura", "sim", "desfaça",
                             "sim"], sentences

    assert say(page, sentences[0]) == "Abrindo a permissão 123 da Alfa Construções."
    say(page, sentences[1])
    assert card(page).locator(".summary").inner_text() == f"adicionar “Trabalho em Altura” à {PERMIT}"
    assert affected(card(page)) == "123, Trabalho em Altura"
    assert say(page, sentences[2]) == f"“Trabalho em Altura” adicionado(s) à {PERMIT}."

    # The undo asks again, naming the component it removes, in the summary and among the affected.
    assert say(page, sentences[3]) == f"Deseja remover “Trabalho em Altura” da {PERMIT}?"
    undo = card(page)
    assert undo.locator(".summary").inner_text() == f"remover “Trabalho em Altura” da {PERMIT}"
    assert affected(undo) == "123, Trabalho em Altura"
    assert undo.get_by_role("button", name="Confirmar").is_enabled()
    snap(page, "undo_card")

    assert say(page, sentences[4]) == f"“Trabalho em Altura” removido(s) da {PERMIT}."
    for sentence in sentences[5:]:
        say(page, sentence)
    explained = page.locator("#log > li.msg.agent").last
    assert explained.locator("p").inner_text().startswith("Segundo “Trabalho em Altura”: Trabalho em altura é")
    assert "Fontes:" in explained.locator(".citations").inner_text()

    page.wait_for_timeout(1000)  # nothing late may add a bubble or a timeline
    assert structure(page) == ["you", "agent", "you", "card", "you", "timeline:completed:1/1", "agent",
                               "you", "card", "you", "timeline:completed:1/1", "agent", "you", "agent"]
    labels = page.locator(".timeline [data-step] .label").all_inner_texts()
    assert labels == ["Adicionando componente…", "Removendo componente…"]
    shown = replies(page)
    assert len(shown) == len(set(shown)), shown
    snap(page)


def test_what_the_data_already_shows_is_answered_before_any_confirmation(demo_page, snap):
    # Alfa's permit 123 has "Espaço Confinado" in the demo data: adding it again would change nothing.
    operator = demo_page("demo-operator")
    say(operator, "Abra a permissão 123")
    reply = say(operator, "adicione o componente espaço confinado")
    assert reply == f"Não é preciso adicionar “Espaço Confinado” à {PERMIT}: já está assim.", reply
    assert operator.locator(".card.confirm").count() == 0 and operator.locator(".timeline").count() == 0
    assert structure(operator) == ["you", "agent", "you", "agent"]
    # The next request is asked as usual: nothing was left pending or failed.
    say(operator, "Adicione o componente de trabalho em altura")
    assert card(operator).locator(".summary").inner_text() == f"adicionar “Trabalho em Altura” à {PERMIT}"
    snap(operator, "component_present")

    # Permit 124 is approved in the demo data: a supervisor asking to approve it gets the reason now.
    supervisor = demo_page("demo-supervisor")
    reply = say(supervisor, "aprove a permissão 124")
    assert reply.startswith("Não posso aprovar a permissão 124 (Alfa Construções): "), reply
    assert "a permissão já está aprovada" in reply, reply
    assert supervisor.locator(".card.confirm").count() == 0 and supervisor.locator(".timeline").count() == 0
    # A draft permit is asked for, with the strong confirmation of a high-risk approval.
    say(supervisor, "aprove a permissão 125")
    assert card(supervisor).locator(".summary").inner_text() == "aprovar a permissão 125 (Alfa Construções)"
    assert structure(supervisor) == ["you", "agent", "you", "card"]
    snap(supervisor, "permit_approved")
