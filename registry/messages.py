"""The registry's user-facing messages (admins see them), one catalogue per language."""

from __future__ import annotations

from django.utils.translation import get_language

MESSAGES: dict[str, dict[str, str]] = {
    "ILLEGAL_TRANSITION": {
        "pt-BR": "Transição não permitida: {from_status} → {to_status}.",
        "en": "Transition not allowed: {from_status} → {to_status}.",
    },
    "NOT_STAFF": {
        "pt-BR": "Somente membros da equipe ativos podem fazer isso.",
        "en": "Only active staff users can do this.",
    },
    "MISSING_PERMISSION": {
        "pt-BR": "Você não tem a permissão {permission}.",
        "en": "You do not have the {permission} permission.",
    },
    "AUTHOR_CANNOT_APPROVE": {
        "pt-BR": "O autor de uma versão não pode aprová-la.",
        "en": "The author of a version cannot approve it.",
    },
    "SAME_PERSON_TWICE": {
        "pt-BR": "A aprovação técnica e a de negócio precisam ser de duas pessoas diferentes; "
                 "você já aprovou esta versão.",
        "en": "The technical and the business approval must come from two different people; "
              "you already approved this version.",
    },
    "ALREADY_APPROVED": {
        "pt-BR": "Esta versão já tem a aprovação {kind}.",
        "en": "This version already has its {kind} approval.",
    },
    "NOT_PENDING": {
        "pt-BR": "Só uma versão aguardando aprovação pode ser aprovada (esta está {status}).",
        "en": "Only a version pending approval can be approved (this one is {status}).",
    },
    "REASON_REQUIRED": {
        "pt-BR": "Informe o motivo.",
        "en": "Give a reason.",
    },
    "UNKNOWN_CAPABILITY": {
        "pt-BR": "Capacidade desconhecida: {capability}.",
        "en": "Unknown capability: {capability}.",
    },
}


def message(code: str, language: str | None = None, **params: object) -> str:
    """The message for `code` in `language` (default: the active one), pt-BR when unknown."""
    language = language or get_language() or "pt-BR"
    catalogue = MESSAGES[code]
    text = catalogue["en"] if language.lower().startswith("en") else catalogue["pt-BR"]
    return text.format(**params)
