"""User-facing messages of the SST API, one catalogue per language, keyed by error code."""

from __future__ import annotations

from django.utils import translation

PT_BR: dict[str, str] = {
    "PERMIT_APPROVED": "A permissão {number} está aprovada e não pode ter a validade alterada.",
    "INVALID_STATUS": "A permissão {number} está com status {status}; a operação não é permitida nesse status.",
    "PERMIT_NOT_EDITABLE": "A permissão {number} está {status} e não pode ser alterada.",
    "COMPONENT_ALREADY_PRESENT": "O componente {component} já está na permissão {number}.",
    "WORKER_ALREADY_PRESENT": "{employee} já é trabalhador da permissão {number}.",
    "NUMBER_TAKEN": "Já existe uma permissão {number} nessa empresa.",
    "INSPECTION_NUMBER_TAKEN": "Já existe uma inspeção {number} nessa empresa.",
    "INSPECTION_NOT_SCHEDULED": "A inspeção {number} está {status}; a operação só é permitida em inspeções agendadas.",
    "REVISION_MISMATCH": (
        "O registro foi alterado por outra pessoa (revisão atual {current}). Recarregue e tente de novo."
    ),
    "IDEMPOTENCY_KEY_REUSED": "Esta chave de idempotência já foi usada com outra requisição.",
    "IDEMPOTENCY_IN_PROGRESS": "Uma requisição com esta chave de idempotência ainda está em andamento.",
    "INVALID_IF_MATCH": "O cabeçalho If-Match deve conter o número da revisão.",
    "INVALID_IDEMPOTENCY_KEY": "O cabeçalho Idempotency-Key deve ter de 1 a 255 caracteres visíveis.",
    "INJECTED_FAULT": "Falha injetada para teste.",
    "not_found": "Não encontrado.",
}

EN: dict[str, str] = {
    "PERMIT_APPROVED": "Permit {number} is approved; its validity cannot be changed.",
    "INVALID_STATUS": "Permit {number} is {status}; the operation is not allowed in that status.",
    "PERMIT_NOT_EDITABLE": "Permit {number} is {status} and cannot be changed.",
    "COMPONENT_ALREADY_PRESENT": "Component {component} is already on permit {number}.",
    "WORKER_ALREADY_PRESENT": "{employee} is already a worker of permit {number}.",
    "NUMBER_TAKEN": "The company already has a permit {number}.",
    "INSPECTION_NUMBER_TAKEN": "The company already has an inspection {number}.",
    "INSPECTION_NOT_SCHEDULED": "Inspection {number} is {status}; only scheduled inspections allow the operation.",
    "REVISION_MISMATCH": "It was changed by someone else (current revision {current}). Reload and try again.",
    "IDEMPOTENCY_KEY_REUSED": "This idempotency key was already used with a different request.",
    "IDEMPOTENCY_IN_PROGRESS": "A request with this idempotency key is still in progress.",
    "INVALID_IF_MATCH": "The If-Match header must hold the revision number.",
    "INVALID_IDEMPOTENCY_KEY": "The Idempotency-Key header must be 1 to 255 visible characters.",
    "INJECTED_FAULT": "Injected fault for testing.",
    "not_found": "Not found.",
}

_CATALOGUES = {"pt-br": PT_BR, "en": EN}


def message(code: str, **params: object) -> str:
    """The message for `code` in the active language (set from Accept-Language by LocaleMiddleware)."""
    language = (translation.get_language() or "pt-br").lower()
    catalogue = _CATALOGUES.get(language) or _CATALOGUES.get(language.split("-")[0], PT_BR)
    return catalogue.get(code, code).format(**params)
