"""OpenAPI descriptions of the views whose module does not declare them itself (drf-spectacular view extensions).

The review endpoints build their answers by hand (no Output serializer), so drf-spectacular cannot
guess their shape; these extensions give it, without touching the views. Imported by config/urls.py,
before any schema is generated. tests/contracts/test_openapi.py fails on any generator warning.
"""

from __future__ import annotations

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
