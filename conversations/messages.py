"""What the agent says, one catalogue per language keyed by template id (STYLE.md).

Placeholders are `str.format` fields; `say()` falls back to pt-BR for a template an English
catalogue lacks, so a missing translation degrades to the other language, never to an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PT: dict[str, str] = {
    "nothing.pending": "Não há nenhuma operação aguardando confirmação.",
    "nothing.to_cancel": "Não há nenhuma operação pendente para cancelar.",
    "nothing.to_undo": "Não encontrei uma operação recente para desfazer.",
    "undo.other_item": "A última operação que posso desfazer foi a {of_noun} {label}; só ela pode ser desfeita agora.",
    "undo.not_the_last": "Só posso desfazer a última alteração, e ela foi outra: {message}",
    "nothing.to_retry": "Não há uma operação com falha para tentar novamente.",
    "nothing.to_resume": "Não há nada para retomar.",
    "read.unfiltered": "Não consigo filtrar {nouns} por \u201c{text}\u201d; sem esse filtro:",
    "read.compared_gt": "com {field} acima de {value}",
    "read.compared_ge": "com {field} de pelo menos {value}",
    "read.compared_lt": "com {field} abaixo de {value}",
    "read.compared_le": "com {field} de até {value}",
    "confirmation.declined": "Certo, não vou executar essa operação.",
    "confirmation.expired": "A confirmação expirou. Preparei a operação de novo com os dados atuais.",
    "confirmation.stale_id": "Essa confirmação não é mais válida; confirme a operação pendente atual.",
    "confirmation.ask": "Deseja {action}?",
    "pending.superseded_confirmation": "Deixei de lado a operação que aguardava confirmação ({action}).",
    "pending.superseded_clarification": "Deixei de lado a pergunta anterior.",
    "confirmation.ask_strong": "Atenção: {action}. Risco {risk}. Afeta: {affected}. Confirma?",
    "confirmation.review": "Essa operação ({action}) precisa da aprovação de outra pessoa autorizada. "
                           "Pedi a revisão; aviso quando houver uma decisão.",
    "confirmation.review_waiting": "Essa operação aguarda a aprovação de outra pessoa; "
                                   "o seu \u201csim\u201d não basta.",
    "review.approved": "A revisão foi aprovada. Vou executar: {action}.",
    "review.rejected": "A revisão foi recusada{reason}. Nada foi executado.",
    "cancel.done": "Operação cancelada. Nada foi executado.",
    "cancel.running": "Cancelando as etapas que ainda não começaram.",
    "cancel.not_cancellable": "A operação já foi iniciada e não pode mais ser interrompida. "
                              "Vou concluir esta etapa e informar o resultado.",
    "cancel.stopped": "Cancelei a operação em andamento.",
    "cancel.already_requested": "O cancelamento já tinha sido pedido.",
    "cancel.part_cancelled": "Não serão feitos: {items}.",
    "cancel.part_done": "Já tinha sido feito: {items}.",
    "cancel.part_nothing_done": "Nada tinha sido feito ainda.",
    "cancel.part_finishing": "Já estava em andamento e não pode ser interrompido: {items}. "
                             "Vou concluir esta etapa e informar o resultado.",
    "cancel.part_undo_after": "Já estava em andamento: {items}. Assim que terminar, será desfeito.",
    "cancel.part_finished": "Estava em andamento e foi concluído: {items}.",
    "cancel.part_compensated": "Desfeito após o cancelamento: {items}.",
    "cancel.part_failed": "Estava em andamento e não foi concluído (não tento de novo após o cancelamento): {items}.",
    "cancel.part_kept": "Terminou antes que desse para parar e não tem desfazer registrado: {items}.",
    "cancel.settled": "A operação foi cancelada.",
    "cancel.already_settled": "A operação já tinha terminado ({outcome}); não há mais nada para cancelar.",
    "cancel.undo_hint": "Se quiser reverter o que foi feito, peça para desfazer.",
    "cancel.outcome.completed": "concluída",
    "cancel.outcome.partially_completed": "concluída em parte",
    "cancel.outcome.failed": "com falha",
    "cancel.outcome.cancelled": "cancelada",
    "cancel.outcome.compensated": "desfeita",
    "clarification.cancelled": "Tudo bem, deixei a pergunta de lado.",
    "clarification.expired": "A pergunta anterior expirou. O que você deseja fazer?",
    "clarify.which": "Encontrei {count} opções: {options}. Qual delas?",
    "clarify.which_entity": "Encontrei {count} {nouns} {number}: {options}. Qual delas?",
    "clarify.missing": "Qual {field} você deseja?",
    "clarify.missing_for": "Qual {field} você deseja para {target}?",
    "clarify.missing_entity": "Qual {noun_bare}? Abra {noun_one} ou informe o número.",
    "clarify.not_found": "Não encontrei {field} \u201c{text}\u201d.",
    "clarify.entity_not_found": "Não encontrei {noun} {number}.",
    "clarify.number_not_found": "Não encontrei nenhum registro com o número {number}.",
    "clarify.unknown": "Não entendi o que você deseja fazer. Pode reformular?",
    "clarify.invalid_number": "{said} não é um valor válido para {field}: {why}. Qual valor você deseja?",
    "number.negative": "não pode ser negativo",
    "number.past": "a data não pode estar no passado",
    "number.fraction": "use um número inteiro",
    "number.unit": "informe o valor em dias",
    "number.range": "use um número de {minimum} a {maximum}",
    "number.range_min": "use um número de pelo menos {minimum}",
    "social.greeting": "Olá! Posso ajudar, por exemplo:\n{examples}",
    "social.thanks": "Por nada! É só pedir se precisar de mais alguma coisa.",
    "social.bye": "Até mais! Chame quando precisar.",
    "social.help": "Você pode me pedir, por exemplo:\n{examples}",
    "social.nothing": "Olá! Seu papel não tem operações disponíveis aqui no momento.",
    "social.outcome.done": "Sim, deu certo. {message}",
    "social.outcome.partial": "Só em parte. {message}",
    "social.outcome.failed": "Não deu certo. {message}",
    "social.outcome.running": "Ainda está em andamento; aviso aqui quando terminar.",
    "social.outcome.none": "Ainda não executei nada nesta conversa.",
    "social.recap.done": "A última alteração que fiz: {message}",
    "social.recap.none": "Ainda não alterei nada nesta conversa.",
    "social.pending.waiting": "Aguardando sua confirmação: {summary}. Responda sim para executar ou não para "
                              "descartar.",
    "social.pending.none": "Nada está aguardando sua confirmação.",
    "batch.which": "Quais permissões devo avaliar? Diga o status (por exemplo, em rascunho), a empresa ou o número.",
    "batch.read_failed": "Não consegui buscar as permissões para avaliar agora. Tente novamente.",
    "clarify.llm_unavailable": "Não consegui interpretar o pedido agora. Pode dizer de outra forma, mais direta?",
    "navigation.open": "Abrindo {noun} {label} da {company}.",
    "navigation.tab": "Abrindo a aba {tab} {of_noun} {label} da {company}.",
    "correction.applied": "Entendido, corrigi: {what}.",
    "stale.context": "A seleção mudou desde que preparei essa operação. A operação continua sendo sobre "
                     "{noun} {label}. Deseja continuar?",
    "undo.not_undoable": "Essa operação não pode ser desfeita automaticamente.",
    "undo.expired": "O prazo para desfazer essa operação passou; ela não pode ser desfeita automaticamente.",
    # A batch undone as one plan (undo_plan.py): {verb} and {nouns} are the registry's words.
    "undo.batch": "{verb} de {count} {nouns}: {items}",
    "undo.batch_more": "{items} e mais {count}",
    "undo.batch_done": "Desfeito: {verb} de {count} {nouns}.",
    "undo.batch_partial": "Desfeito só em parte: {verb} de {count} de {total} {nouns}; "
                          "não foi possível desfazer em {failed}.",
    "retry.asks_again": "Vou tentar novamente: {action}.",
    "retry.unavailable": "Não consigo consultar {noun} {number} agora: o serviço está indisponível no momento. "
                         "Tente novamente {when}.",
    "policy.denied": "Não posso executar essa operação: {reason}.",
    "policy.denied_action": "Não posso {action}: {reason}.",
    "operation.already_so": "Não é preciso {action}: já está assim.",
    "plan.invalid": "Não consegui montar essa operação: {reason}.",
    "execution.started": "Executando: {action}.",
    "execution.completed": "Concluído: {action}.",
    "execution.failed": "A operação falhou: {reason}.",
    "execution.partial": "Concluída parcialmente: {detail}.",
    "execution.cancelled": "A execução foi cancelada.",
    "answer.count": "Há {count} {entity}.",
    "answer.field": "{field} {of_noun} {label}: {value}.",
    "answer.field_count": "{field} {of_noun} {label}: {count} ({value}).",
    "answer.state_yes": "Sim, {noun} {label} está {state}.",
    "answer.state_no": "Não, {noun} {label} está {state}.",
    "answer.condition_not_held": "Não: {noun} {label} está {state}; a condição não vale, nada foi feito.",
    "answer.none": "nenhum",
    "answer.read_failed": "Não consegui ler essa informação: {reason}.",
    "clarify.compound_sequence": ("Esse pedido tem mais de uma ação. Sem o planejador de IA configurado, "
                                  "faço uma por vez: diga a primeira."),
    "clarify.compound_condition": ("Esse pedido depende de uma condição. Sem o planejador de IA configurado, "
                                   "não executo nada condicional: pergunte primeiro o que quer verificar."),
    "retry.expired": "Essa operação é antiga demais para ser repetida; para fazê-la, peça de novo.",
    "retry.unknown_outcome": ("Não sei se um passo dessa operação foi feito (o resultado ficou incerto). Antes de "
                              "repetir, ela precisa de uma revisão."),
    "retry.context_changed": ("A tela mudou desde essa operação. Para repeti-la, diga de novo o pedido, "
                              "nomeando o registro."),
    "compound.then": "; depois ",
    "compound.if": "se {condition}, ",
    "compound.condition": "“{path}” {op} {value}",
    "compound.result_of": "o item do passo {n}",
    "clarify.compound_incomplete": ("Entendi um pedido em etapas, mas no passo “{action}” falta: {missing}. "
                                    "Pode dizer o pedido de novo?"),
    "busy": "Aguarde: uma operação desta conversa está em execução.",
    "conflict": "A conversa mudou enquanto eu processava; tente de novo.",
}

EN: dict[str, str] = {
    "nothing.pending": "There is no operation waiting for confirmation.",
    "nothing.to_cancel": "There is no pending operation to cancel.",
    "nothing.to_undo": "I found no recent operation to undo.",
    "undo.other_item": "The last operation I can undo was on {noun} {label}; only that one can be undone now.",
    "undo.not_the_last": "I can only undo the last change, and it was another one: {message}",
    "nothing.to_retry": "There is no failed operation to try again.",
    "nothing.to_resume": "There is nothing to resume.",
    "read.unfiltered": "I cannot filter {nouns} by \u201c{text}\u201d; without that filter:",
    "read.compared_gt": "with {field} over {value}",
    "read.compared_ge": "with {field} of at least {value}",
    "read.compared_lt": "with {field} under {value}",
    "read.compared_le": "with {field} of at most {value}",
    "confirmation.declined": "All right, I will not run that operation.",
    "confirmation.expired": "The confirmation expired. I prepared the operation again with current data.",
    "confirmation.stale_id": "That confirmation is no longer valid; confirm the current pending operation.",
    "confirmation.ask": "Do you want to {action}?",
    "pending.superseded_confirmation": "I set aside the operation that was waiting for confirmation ({action}).",
    "pending.superseded_clarification": "I set aside the earlier question.",
    "confirmation.ask_strong": "Warning: {action}. Risk {risk}. Affects: {affected}. Confirm?",
    "confirmation.review": "This operation ({action}) needs approval by another authorised person. "
                           "I asked for a review and will tell you the decision.",
    "confirmation.review_waiting": "This operation is waiting for another person's approval; your \u201cyes\u201d "
                                   "is not enough.",
    "review.approved": "The review was approved. Running: {action}.",
    "review.rejected": "The review was rejected{reason}. Nothing was run.",
    "cancel.done": "Operation cancelled. Nothing was run.",
    "cancel.running": "Cancelling the steps that have not started yet.",
    "cancel.not_cancellable": "The operation has already started and cannot be interrupted. "
                              "I will finish this step and report the result.",
    "cancel.stopped": "I cancelled the running operation.",
    "cancel.already_requested": "The cancel had already been requested.",
    "cancel.part_cancelled": "Will not be done: {items}.",
    "cancel.part_done": "Already done: {items}.",
    "cancel.part_nothing_done": "Nothing had been done yet.",
    "cancel.part_finishing": "Already under way and cannot be interrupted: {items}. "
                             "I will finish this step and report the result.",
    "cancel.part_undo_after": "Already under way: {items}. As soon as it finishes, it will be undone.",
    "cancel.part_finished": "Was under way and finished: {items}.",
    "cancel.part_compensated": "Undone after the cancel: {items}.",
    "cancel.part_failed": "Was under way and did not finish (not retried after the cancel): {items}.",
    "cancel.part_kept": "Finished before it could be stopped and has no registered undo: {items}.",
    "cancel.settled": "The operation was cancelled.",
    "cancel.already_settled": "The operation had already finished ({outcome}); there is nothing left to cancel.",
    "cancel.undo_hint": "If you want to revert what was done, ask me to undo it.",
    "cancel.outcome.completed": "completed",
    "cancel.outcome.partially_completed": "partly completed",
    "cancel.outcome.failed": "failed",
    "cancel.outcome.cancelled": "cancelled",
    "cancel.outcome.compensated": "undone",
    "clarification.cancelled": "All right, I dropped the question.",
    "clarification.expired": "The previous question expired. What would you like to do?",
    "clarify.which": "I found {count} options: {options}. Which one?",
    "clarify.which_entity": "I found {count} {nouns} {number}: {options}. Which one?",
    "clarify.missing": "Which {field} do you want?",
    "clarify.missing_for": "Which {field} do you want for {target}?",
    "clarify.missing_entity": "Which {noun_bare}? Open {noun_one} or tell me its number.",
    "clarify.not_found": "I could not find {field} \u201c{text}\u201d.",
    "clarify.entity_not_found": "I could not find {noun} {number}.",
    "clarify.number_not_found": "I found no record numbered {number}.",
    "clarify.unknown": "I did not understand what you want to do. Could you rephrase?",
    "clarify.invalid_number": "{said} is not a valid value for {field}: {why}. Which value do you want?",
    "number.negative": "it cannot be negative",
    "number.past": "the date cannot be in the past",
    "number.fraction": "use a whole number",
    "number.unit": "give the value in days",
    "number.range": "use a number from {minimum} to {maximum}",
    "number.range_min": "use a number of at least {minimum}",
    "social.greeting": "Hello! I can help, for example:\n{examples}",
    "social.thanks": "You're welcome! Just ask if you need anything else.",
    "social.bye": "Bye! Call me whenever you need.",
    "social.help": "You can ask me, for example:\n{examples}",
    "social.nothing": "Hello! Your role has no operations available here right now.",
    "social.outcome.done": "Yes, it worked. {message}",
    "social.outcome.partial": "Only in part. {message}",
    "social.outcome.failed": "No, it did not work. {message}",
    "social.outcome.running": "It is still running; I will tell you here when it finishes.",
    "social.outcome.none": "I have not run anything in this conversation yet.",
    "social.recap.done": "The last change I made: {message}",
    "social.recap.none": "I have not changed anything in this conversation yet.",
    "social.pending.waiting": "Waiting for your confirmation: {summary}. Answer yes to run it or no to drop it.",
    "social.pending.none": "Nothing is waiting for your confirmation.",
    "batch.which": "Which permits should I evaluate? Say a status (for example, draft), a company or a number.",
    "batch.read_failed": "I could not look up the permits to evaluate right now. Please try again.",
    "clarify.llm_unavailable": "I could not interpret that right now. Could you say it more directly?",
    "navigation.open": "Opening {noun} {label} of {company}.",
    "navigation.tab": "Opening the {tab} tab of {noun} {label} of {company}.",
    "correction.applied": "Understood, corrected: {what}.",
    "stale.context": "The selection changed since I prepared this operation. It still targets {noun} {label}. "
                     "Do you want to continue?",
    "undo.not_undoable": "This operation cannot be undone automatically.",
    "undo.expired": "The time to undo this operation has passed; it cannot be undone automatically.",
    "undo.batch": "{verb} of {count} {nouns}: {items}",
    "undo.batch_more": "{items} and {count} more",
    "undo.batch_done": "Undone: {verb} of {count} {nouns}.",
    "undo.batch_partial": "Only partly undone: {verb} of {count} of {total} {nouns}; it could not be undone "
                          "on {failed}.",
    "retry.asks_again": "Trying again: {action}.",
    "retry.unavailable": "I cannot read {noun} {number} right now: the service is unavailable. Try again {when}.",
    "policy.denied": "I cannot run this operation: {reason}.",
    "policy.denied_action": "I cannot {action}: {reason}.",
    "operation.already_so": "No need to {action}: that is already the case.",
    "plan.invalid": "I could not build this operation: {reason}.",
    "execution.started": "Running: {action}.",
    "execution.completed": "Done: {action}.",
    "execution.failed": "The operation failed: {reason}.",
    "execution.partial": "Partially done: {detail}.",
    "execution.cancelled": "The execution was cancelled.",
    "answer.count": "There are {count} {entity}.",
    "answer.field": "{field} of {noun} {label}: {value}.",
    "answer.field_count": "{field} of {noun} {label}: {count} ({value}).",
    "answer.state_yes": "Yes, {noun} {label} is {state}.",
    "answer.state_no": "No, {noun} {label} is {state}.",
    "answer.condition_not_held": "No: {noun} {label} is {state}; the condition does not hold, nothing was done.",
    "answer.none": "none",
    "answer.read_failed": "I could not read that: {reason}.",
    "clarify.compound_sequence": ("That asks for more than one action. Without the AI planner configured, "
                                  "I do one at a time: tell me the first."),
    "clarify.compound_condition": ("That depends on a condition. Without the AI planner configured, I run "
                                   "nothing conditionally: ask first about what you want to check."),
    "retry.expired": "That operation is too old to be repeated; to do it, ask again.",
    "retry.unknown_outcome": ("I do not know whether a step of that operation was done (its outcome is "
                              "uncertain). It needs a review before it is repeated."),
    "retry.context_changed": ("The screen changed since that operation. To repeat it, say the request again, "
                              "naming the record."),
    "compound.then": "; then ",
    "compound.if": "if {condition}, ",
    "compound.condition": "“{path}” {op} {value}",
    "compound.result_of": "the item from step {n}",
    "clarify.compound_incomplete": ("I understood a request in steps, but step “{action}” lacks: {missing}. "
                                    "Could you say the request again?"),
    "busy": "Please wait: an operation of this conversation is running.",
    "conflict": "The conversation changed while I was working; please try again.",
}

CATALOGUES = {"pt-BR": PT, "en": EN}

# Words the runtime itself needs to phrase replies: field and entity names per language.
TERMS: dict[str, dict[str, str]] = {
    "pt-BR": {"permit": "permissão", "employee": "funcionário", "componentType": "componente",
              "company": "empresa", "validity_days": "validade", "responsible": "responsável",
              "number": "número", "status": "status", "employees": "funcionários", "permits": "permissões",
              "components": "componentes", "workers": "trabalhadores", "details": "detalhes", "and": "e",
              "item": "item", "tab": "aba", "field": "campo", "days": "dias", "permitComponent": "componente",
              "permitWorker": "trabalhador", "workPermit": "permissão"},
    "en": {"permit": "permit", "employee": "employee", "componentType": "component", "company": "company",
           "validity_days": "validity", "responsible": "responsible", "number": "number", "status": "status",
           "employees": "employees", "permits": "permits", "components": "components", "workers": "workers",
           "details": "details", "and": "and", "item": "item", "tab": "tab", "field": "field", "days": "days",
           "permitComponent": "component", "permitWorker": "worker", "workPermit": "permit"},
}


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return ""


def say(template: str, language: str, **values: Any) -> str:
    catalogue = CATALOGUES.get(language, PT)
    text = catalogue.get(template) or PT.get(template) or template
    return text.format_map(_Blank({k: "" if v is None else v for k, v in values.items()}))


def term(word: str, language: str) -> str:
    return TERMS.get(language, TERMS["pt-BR"]).get(word, word)


def join_list(items: list[str], language: str) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {term('and', language)} " + items[-1]

# Policy and plan reason codes → what the user reads.
REASONS: dict[str, dict[str, str]] = {
    "pt-BR": {
        "PERMIT_APPROVED": "a permissão está aprovada e a validade não pode mais ser alterada",
        "PERMIT_NOT_EDITABLE": "a permissão está cancelada ou encerrada e não pode ser alterada",
        "INVALID_STATUS": "a situação atual da permissão não permite essa operação",
        "PERMISSION_MISSING": "você não tem permissão para essa operação",
        "CAPABILITY_NOT_GRANTED": "você não tem permissão para essa operação",
        "NOT_A_MEMBER": "você não tem acesso a esta organização",
        "KILL_SWITCH": "a operação está bloqueada por segurança no momento",
        "CAPABILITY_BLOCKED_FOR_TENANT": "a operação está desativada para esta organização",
        "CAPABILITY_UNKNOWN": "a operação não está disponível",
        "TARGET_NOT_FOUND": "o registro não foi encontrado",
        "TARGET_CHANGED": "o registro foi alterado desde que preparei a operação",
        "REVIEW_NOT_APPROVED": "a revisão ainda não foi aprovada",
        "APPROVAL_NOT_BY_ACTOR": "a confirmação não é sua",
        "NO_PLAN_FOR_INTENT": "não sei executar esse pedido",
        "COMPOUND_REFERENCE": "um passo do pedido depende de outro que não vem antes dele",
        "COMPOUND_SIZE": "o pedido tem passos demais para uma só confirmação",
        "COMPOUND_PART_ID": "o pedido em etapas veio malformado",
        "RULE": "uma regra do sistema não permite essa operação agora",
        "SLOT_MISSING": "falta uma informação",
        "TARGET_MISSING": "não sei sobre qual registro agir",
    },
    "en": {
        "PERMIT_APPROVED": "the permit is approved and its validity can no longer change",
        "PERMIT_NOT_EDITABLE": "the permit is cancelled or closed and cannot change",
        "INVALID_STATUS": "the permit's current status does not allow this",
        "PERMISSION_MISSING": "you are not allowed to do this",
        "CAPABILITY_NOT_GRANTED": "you are not allowed to do this",
        "NOT_A_MEMBER": "you have no access to this organisation",
        "KILL_SWITCH": "this operation is blocked for safety right now",
        "CAPABILITY_BLOCKED_FOR_TENANT": "this operation is turned off for this organisation",
        "CAPABILITY_UNKNOWN": "this operation is not available",
        "TARGET_NOT_FOUND": "the record was not found",
        "TARGET_CHANGED": "the record changed since I prepared the operation",
        "REVIEW_NOT_APPROVED": "the review is not approved yet",
        "APPROVAL_NOT_BY_ACTOR": "the confirmation is not yours",
        "NO_PLAN_FOR_INTENT": "I do not know how to do that",
        "COMPOUND_REFERENCE": "a step of the request depends on one that does not come before it",
        "COMPOUND_SIZE": "the request has too many steps for one confirmation",
        "COMPOUND_PART_ID": "the request in steps came malformed",
        "RULE": "a rule of the system does not allow this operation now",
        "SLOT_MISSING": "some information is missing",
        "TARGET_MISSING": "I do not know which record to act on",
    },
}

# How a compound request's condition reads (planning.conditions ops).
OP_WORDS = {"pt-BR": {"equals": "for", "not_equals": "não for", "contains": "contém", "not_contains": "não contém",
                      "in": "está em", "not_in": "não está em", "lt": "<", "lte": "≤", "gt": ">", "gte": "≥",
                      "exists": "existe", "not_exists": "não existe", "truthy": "sim", "falsy": "não",
                      "count_equals": "tem", "expired": "venceu", "not_expired": "não venceu"},
            "en": {"equals": "is", "not_equals": "is not", "contains": "contains", "not_contains": "lacks",
                   "in": "is in", "not_in": "is not in", "lt": "<", "lte": "≤", "gt": ">", "gte": "≥",
                   "exists": "exists", "not_exists": "does not exist", "truthy": "yes", "falsy": "no",
                   "count_equals": "has", "expired": "expired", "not_expired": "has not expired"}}

RISK_WORDS = {"pt-BR": {"read": "nenhum", "low": "baixo", "medium": "médio", "high": "alto", "critical": "crítico"},
              "en": {"read": "none", "low": "low", "medium": "medium", "high": "high", "critical": "critical"}}


def reason_text(codes: list[str], language: str, said: Mapping[str, str] | None = None) -> str:
    """The reasons as the user reads them: a precondition's own words (manifest `says`), the catalogue's,
    else a plain sentence — never the code itself."""
    table = REASONS.get(language, REASONS["pt-BR"])
    texts = []
    for code in codes:
        if code.startswith("RISK_") or code == "CONFIRMATION_REQUIRED":
            continue
        text = (said or {}).get(code) or table.get(code) or table["RULE"]
        if text not in texts:
            texts.append(text)
    return "; ".join(texts) or table.get("NO_PLAN_FOR_INTENT", "")
