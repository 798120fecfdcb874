"""User-facing texts of the execution layer, one catalogue per language, keyed by template id."""

from __future__ import annotations

import math
from typing import Any

MESSAGES: dict[str, dict[str, str]] = {
    "pt-BR": {
        "error.CONFLICT": "os dados foram alterados por outra pessoa depois da sua confirmação; nada foi "
                          "sobrescrito. Confira e peça de novo",
        "error.KILL_SWITCH": "a execução foi interrompida por um bloqueio de segurança antes da próxima etapa",
        "error.UNKNOWN": "não foi possível confirmar se “{label}” foi aplicada; a execução aguarda revisão humana",
        "error.VERIFICATION_FAILED": "o sistema respondeu sucesso, mas a leitura de conferência discorda do esperado",
        "error.POLICY": "a etapa “{label}” deixou de ser permitida no momento da execução (os acessos ou os dados "
                        "mudaram)",
        "error.GENERIC": "a etapa “{label}” não pôde ser concluída: {why}",
        "error.CIRCUIT_OPEN": "o serviço que a etapa “{label}” usa está indisponível no momento (as chamadas "
                              "foram suspensas depois de falhas seguidas); tente novamente {when}",
        "when.seconds": "em cerca de {n} segundo(s)",
        "when.minutes": "em cerca de {n} minuto(s)",
        "when.moment": "em alguns instantes",
        "why.VALIDATION": "o sistema recusou os dados enviados",
        "why.BUSINESS_RULE": "uma regra do sistema não permite essa operação no estado atual",
        "why.NOT_FOUND": "o registro não existe mais",
        "why.FORBIDDEN": "o sistema de destino recusou o acesso",
        "why.UNAUTHORIZED": "o sistema de destino recusou o acesso",
        "why.CONFLICT": "os dados foram alterados por outra pessoa",
        "why.UNAVAILABLE": "o sistema de destino não respondeu a tempo",
        "why.OTHER": "o sistema recusou o pedido",
        "step.unnamed": "a operação",
        "result.created": "Permissão {number} criada.",
        "result.responsible": "Responsável: {name}.",
        "result.validity": "Validade: {days} dias.",
        "result.components_copied": "{count} componentes copiados.",
        "result.components_added": "{count} componente(s) adicionado(s).",
        "result.components_failed": "Não adicionado(s): {names}.",
        "result.validity_updated": "Validade da permissão {number} alterada para {days} dias.",
        "result.responsible_updated": "Responsável da permissão {number} alterado para {name}.",
        "result.skipped_condition": "A condição não foi atendida; “{label}” não foi executada.",
        "result.navigation": "Abrindo {label}.",
        "result.read": "Permissão {number}: {status}, validade de {days} dias.",
        "result.completed": "Concluído.",
        "result.count_one": "Há {count} {noun}.",
        "result.count_many": "Há {count} {nouns}.",
        "result.count_one_in": "Há {count} {noun} {where}.",
        "result.count_many_in": "Há {count} {nouns} {where}.",
        "result.matching": "com \u201c{text}\u201d",
        "result.between": "entre {first} e {last}",
        "result.on_day": "em {first}",
        "result.list_one": "Encontrei 1 {noun}: {items}.",
        "result.list_many": "Encontrei {count} {nouns}: {items}.",
        "result.list_more": "{items} e mais {count}",
        "result.list_empty_f": "Nenhuma {noun} encontrada.",
        "result.list_empty_m": "Nenhum {noun} encontrado.",
        "result.list_one_in": "Encontrei 1 {noun} {where}: {items}.",
        "result.list_many_in": "Encontrei {count} {nouns} {where}: {items}.",
        "result.list_empty_f_in": "Nenhuma {noun} encontrada {where}.",
        "result.list_empty_m_in": "Nenhum {noun} encontrado {where}.",
        "result.failed": "A execução falhou: {reason}.",
        "result.compensated": "A operação não pôde continuar e o que havia sido feito foi desfeito.",
        "result.cancelled": "A execução foi cancelada.",
        "runtime.adaptation": "{kind} de {lane}: {old} → {new} porque {reason} ({facts}); "
                              "dentro dos limites registrados da capacidade.",
    },
    "en": {
        "error.CONFLICT": "the data was changed by someone else after you confirmed; nothing was overwritten. "
                          "Check it and ask again",
        "error.KILL_SWITCH": "the execution was stopped by a kill switch before the next step",
        "error.UNKNOWN": "could not confirm whether “{label}” was applied; the execution awaits human review",
        "error.VERIFICATION_FAILED": "the system answered success but the checking read disagrees",
        "error.POLICY": "the step “{label}” was no longer authorised at execution time (permissions or data changed)",
        "error.GENERIC": "the step “{label}” could not be completed: {why}",
        "error.CIRCUIT_OPEN": "the service the step “{label}” uses is unavailable right now (calls were "
                              "suspended after repeated failures); try again {when}",
        "when.seconds": "in about {n} second(s)",
        "when.minutes": "in about {n} minute(s)",
        "when.moment": "in a few moments",
        "why.VALIDATION": "the system refused the data sent",
        "why.BUSINESS_RULE": "a rule of the system does not allow this operation in the current state",
        "why.NOT_FOUND": "the record no longer exists",
        "why.FORBIDDEN": "not authorised in the target system",
        "why.UNAUTHORIZED": "not authorised in the target system",
        "why.CONFLICT": "the data was changed by someone else",
        "why.UNAVAILABLE": "the target system did not answer in time",
        "why.OTHER": "the system refused the request",
        "step.unnamed": "the operation",
        "result.created": "Permit {number} created.",
        "result.responsible": "Responsible: {name}.",
        "result.validity": "Validity: {days} days.",
        "result.components_copied": "{count} components copied.",
        "result.components_added": "{count} component(s) added.",
        "result.components_failed": "Not added: {names}.",
        "result.validity_updated": "Permit {number} validity set to {days} days.",
        "result.responsible_updated": "Permit {number} responsible changed to {name}.",
        "result.skipped_condition": "The condition did not hold; “{label}” was not run.",
        "result.navigation": "Opening {label}.",
        "result.read": "Permit {number}: {status}, valid for {days} days.",
        "result.completed": "Done.",
        "result.count_one": "There is {count} {noun}.",
        "result.count_many": "There are {count} {nouns}.",
        "result.count_one_in": "There is {count} {noun} {where}.",
        "result.count_many_in": "There are {count} {nouns} {where}.",
        "result.matching": "matching \u201c{text}\u201d",
        "result.between": "between {first} and {last}",
        "result.on_day": "on {first}",
        "result.list_one": "Found 1 {noun}: {items}.",
        "result.list_many": "Found {count} {nouns}: {items}.",
        "result.list_more": "{items} and {count} more",
        "result.list_empty_f": "No {nouns} found.",
        "result.list_empty_m": "No {nouns} found.",
        "result.list_one_in": "Found 1 {noun} {where}: {items}.",
        "result.list_many_in": "Found {count} {nouns} {where}: {items}.",
        "result.list_empty_f_in": "No {nouns} found {where}.",
        "result.list_empty_m_in": "No {nouns} found {where}.",
        "result.failed": "The execution failed: {reason}.",
        "result.compensated": "The operation could not continue and what had been done was undone.",
        "result.cancelled": "The execution was cancelled.",
        "runtime.adaptation": "{kind} of {lane}: {old} → {new} because {reason} ({facts}); "
                              "within the capability's registered limits.",
    },
}


def text(language: str, key: str, **values: Any) -> str:
    catalogue = MESSAGES.get(language) or MESSAGES["pt-BR"]
    return catalogue[key].format(**values)


def both(key: str, **values: Any) -> dict[str, str]:
    return {lang: text(lang, key, **values) for lang in MESSAGES}


def when_text(seconds: float | None, language: str) -> str:
    """"em cerca de 40 segundo(s)", "in about 2 minute(s)"; None (nothing to wait for): "in a few moments"."""
    if seconds is None:
        return text(language, "when.moment")
    if seconds < 60:
        return text(language, "when.seconds", n=max(1, math.ceil(seconds)))
    return text(language, "when.minutes", n=math.ceil(seconds / 60))
