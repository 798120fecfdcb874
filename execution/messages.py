"""User-facing texts of the execution layer, one catalogue per language, keyed by template id."""

from __future__ import annotations

from typing import Any

MESSAGES: dict[str, dict[str, str]] = {
    "pt-BR": {
        "error.CONFLICT": "A permissão foi alterada por outra pessoa (revisão {expected} → {current}); "
                          "nada foi sobrescrito.",
        "error.KILL_SWITCH": "A execução foi interrompida por um bloqueio de segurança antes da próxima etapa.",
        "error.UNKNOWN": "Não foi possível confirmar se “{label}” foi aplicada; a execução aguarda revisão humana.",
        "error.VERIFICATION_FAILED": "A API respondeu sucesso, mas a leitura de verificação discorda do esperado.",
        "error.POLICY": "A etapa não foi autorizada no momento da execução ({code}).",
        "error.GENERIC": "A etapa “{label}” falhou ({code}).",
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
        "result.list_one": "Encontrei 1 {noun}: {items}.",
        "result.list_many": "Encontrei {count} {nouns}: {items}.",
        "result.list_more": "{items} e mais {count}",
        "result.list_empty_f": "Nenhuma {noun} encontrada.",
        "result.list_empty_m": "Nenhum {noun} encontrado.",
        "result.failed": "A execução falhou: {reason}",
        "result.compensated": "A operação não pôde continuar e o que havia sido feito foi desfeito.",
        "result.cancelled": "A execução foi cancelada.",
        "runtime.adaptation": "{kind} de {lane}: {old} → {new} porque {reason} ({facts}); "
                              "dentro dos limites registrados da capacidade.",
    },
    "en": {
        "error.CONFLICT": "The permit was changed by someone else (revision {expected} → {current}); "
                          "nothing was overwritten.",
        "error.KILL_SWITCH": "The execution was stopped by a kill switch before the next step.",
        "error.UNKNOWN": "Could not confirm whether “{label}” was applied; the execution awaits human review.",
        "error.VERIFICATION_FAILED": "The API answered success but the verification read disagrees.",
        "error.POLICY": "The step was not authorised at execution time ({code}).",
        "error.GENERIC": "Step “{label}” failed ({code}).",
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
        "result.list_one": "Found 1 {noun}: {items}.",
        "result.list_many": "Found {count} {nouns}: {items}.",
        "result.list_more": "{items} and {count} more",
        "result.list_empty_f": "No {nouns} found.",
        "result.list_empty_m": "No {nouns} found.",
        "result.failed": "The execution failed: {reason}",
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
