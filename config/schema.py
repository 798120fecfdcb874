"""OpenAPI descriptions of the views whose module does not declare them itself (drf-spectacular view extensions).

The review endpoints build their answers by hand (no Output serializer), so drf-spectacular cannot
guess their shape; these extensions give it, without touching the views. Imported by config/urls.py,
before any schema is generated. tests/contracts/test_openapi.py fails on any generator warning.
`describe_operations` (a postprocessing hook) adds each operation's summary, description and examples.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiViewExtension
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers

_DECISION_INPUT = inline_serializer("ReviewDecisionInput", {
    "reason": serializers.CharField(required=False, allow_blank=True, max_length=500)})


class ReviewListExtension(OpenApiViewExtension):
    target_class = "conversations.apis.ReviewListApi"

    def view_replacement(self):
        class Fixed(self.target_class):
            @extend_schema(summary="Confirmations waiting for my review",
                           description="The tenant's confirmations that need a human review (human_review level) "
                                       "which the caller may decide. Needs the `policy.review_conversation` "
                                       "permission (403 otherwise).",
                           responses=inline_serializer("ReviewList", {
                               "reviews": serializers.ListField(child=serializers.DictField())}))
            def get(self, request):
                return super().get(request)  # pragma: no cover - schema only

        return Fixed


def _decision(target: str, verb: str, outcome: str):
    class Extension(OpenApiViewExtension):
        target_class = target

        def view_replacement(self):
            class Fixed(self.target_class):
                @extend_schema(summary=f"{verb.capitalize()} a review",
                               description=f"{verb.capitalize()}s a confirmation waiting for review; the conversation "
                                           "goes on (or is cancelled) as the decision says. 404 for a review that "
                                           "does not exist or is not the caller's tenant's, 409 when it was already "
                                           "decided.",
                               request=_DECISION_INPUT,
                               responses=inline_serializer(f"Review{outcome.capitalize()}", {
                                   "status": serializers.CharField()}))
                def post(self, request, confirmation_id: str):
                    return super().post(request, confirmation_id)  # pragma: no cover - schema only

            return Fixed

    Extension.__name__ = f"Review{verb.capitalize()}Extension"
    return Extension


ReviewApproveExtension = _decision("conversations.apis.ReviewDecisionApi", "approve", "approved")
ReviewRejectExtension = _decision("conversations.apis.ReviewRejectApi", "reject", "rejected")


def _described(target: str, method: str, summary: str, description: str, parameters: list | None = None):
    """An extension that adds a summary and a description to one operation of a view, keeping the rest."""

    class Extension(OpenApiViewExtension):
        target_class = target

        def view_replacement(self):
            return extend_schema_view(**{method: extend_schema(summary=summary, description=description,
                                                                     parameters=parameters)})(
                type(self.target_class.__name__, (self.target_class,), {}))

    Extension.__name__ = f"{target.rsplit('.', 1)[1]}Description"
    return Extension


ConversationCreateDescription = _described(
    "conversations.apis.ConversationCreateApi", "post", "Start a conversation",
    "Creates a conversation of the caller in the caller's tenant (IDLE, version 1); its id is used by every "
    "other conversation endpoint and by the websocket `ws/agent/conversations/{id}/`.")
ConversationDetailDescription = _described(
    "conversations.apis.ConversationDetailApi", "get", "A conversation's state",
    "The conversation's persistent state: status, version, the focused entity, what is pending (clarification "
    "or confirmation) and the last executions. Another user's or tenant's conversation is a 404.")
EventsDescription = _described(
    "conversations.apis.EventsApi", "get", "A conversation's events",
    "The conversation's event log after sequence number `after` (default 0), in order and without gaps, a "
    "page at a time: the same envelopes the websocket streams.",
    [OpenApiParameter("after", int, description="the last sequence number the caller has (default 0)")])


# --- summaries, descriptions and examples (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]) -------------

# Values by property name for the examples the table does not give, so a synthesized example still
# reads like the demo tenant's data rather than Swagger UI's "string" / 0.
_VALUES: dict[str, Any] = {
    "id": 1, "number": "123", "name": "Alfa Construções", "key": "workingAtHeight", "title": "Trabalho em Altura",
    "source": "trabalho-em-altura.md", "version": "2026.12.01.1", "knowledge_version": "2026.12.01.1",
    "text": "Trabalho em altura é toda atividade executada acima de 2 metros…", "excerpt": "Trabalho em altura é…",
    "language": "pt", "status": "completed", "severity": "HIGH", "description": "Guarda-corpo solto",
    "outcome": "approved", "score": 1.0, "revision": 3,
}
_FORMATS = {"date-time": "2026-12-01T12:00:00Z", "date": "2026-12-10", "uuid": "8d0b7a56-52a4-4d8e-b1a4-6c1f0e3d9a21"}
_BY_TYPE = {"integer": 1, "number": 1.0, "boolean": True, "string": "…"}


def _synthesized(schema: dict, components: dict, name: str = "", depth: int = 0) -> Any:
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    for combined in ("allOf", "oneOf", "anyOf"):
        if schema.get(combined):
            return _synthesized(schema[combined][0], components, name, depth)
    if "enum" in schema:
        return next((value for value in schema["enum"] if value is not None), None)
    kind = schema.get("type")
    if kind == "array":
        return [] if depth > 8 else [_synthesized(schema.get("items", {}), components, name, depth + 1)]
    if kind == "object" or "properties" in schema:
        return {key: _synthesized(value, components, key, depth + 1)
                for key, value in (schema.get("properties") or {}).items()} if depth <= 8 else {}
    typed, value = _BY_TYPE.get(kind), _VALUES.get(name)
    if value is not None and (typed is None or type(value) is type(typed)):
        return value
    return _FORMATS.get(schema.get("format", ""), typed)


def _json(content: dict | None) -> dict | None:
    return (content or {}).get("application/json")


def describe_operations(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """Every operation gets the table's summary and description (config/openapi_docs.py) and an example
    of its JSON request body and of its JSON success response: the table's, else one synthesized."""
    from config.openapi_docs import DOCS

    components = result.get("components", {}).get("schemas", {})
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            docs = DOCS.get(operation.get("operationId"), {})
            for field in ("summary", "description"):
                if docs.get(field):
                    operation[field] = docs[field]
            body = _json(operation.get("requestBody", {}).get("content"))
            if body is not None:
                body["example"] = docs.get("request", _synthesized(body.get("schema", {}), components))
            success = next((r for code, r in sorted(operation.get("responses", {}).items()) if code.startswith("2")),
                           {})
            media = _json(success.get("content"))
            if media is not None:
                media["example"] = docs.get("response", _synthesized(media.get("schema", {}), components))
    return result
