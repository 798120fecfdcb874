"""GET /api/knowledge/search — the endpoint the `knowledge.search` capability calls (read risk)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tenancy.models import Role
from tenancy.permissions import tenant_context

from .selectors import MAX_LIMIT, knowledge_search


class _ReferenceSerializer(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.CharField()
    title = serializers.CharField()
    source = serializers.CharField()
    version = serializers.CharField()
    score = serializers.FloatField()
    excerpt = serializers.CharField()
    semantic_ids = serializers.ListField(child=serializers.CharField())


class _CitationSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    source = serializers.CharField()
    version = serializers.CharField()


class _AnswerSerializer(serializers.Serializer):
    text = serializers.CharField()
    citations = _CitationSerializer(many=True)


class KnowledgeSearchApi(APIView):
    required_role = Role.VIEWER

    class InputSerializer(serializers.Serializer):
        q = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000)
        semantic_id = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
        entity_type = serializers.CharField(required=False, allow_blank=True, default="", max_length=100)
        entity_name = serializers.CharField(required=False, allow_blank=True, default="", max_length=300)
        topic = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
        focus = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
        language = serializers.ChoiceField(choices=["pt", "en"], required=False)
        limit = serializers.IntegerField(required=False, default=5, min_value=1, max_value=MAX_LIMIT)

    @extend_schema_serializer(component_name="KnowledgeSearchResult")
    class OutputSerializer(serializers.Serializer):
        knowledge_version = serializers.CharField(allow_null=True)
        references = _ReferenceSerializer(many=True)
        answer = _AnswerSerializer()

    @extend_schema(parameters=[InputSerializer], responses=OutputSerializer, summary="Search the knowledge base",
                   description="Tenant-scoped search of the active knowledge package (BM25 over sections, pt/en "
                               "stemming): ranked references with excerpts and a short answer with citations.")
    def get(self, request: Request) -> Response:
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        entity = None
        if data["entity_type"] and (data["semantic_id"] or data["entity_name"]):
            entity = {"type": data["entity_type"], "name": data["entity_name"] or None}
        result = knowledge_search(
            tenant=tenant_context(request).tenant,
            query=data["q"],
            semantic_id=data["semantic_id"] or None,
            entity_type=data["entity_type"] or None,
            entity=entity,
            topic=data["topic"] or None,
            ui_context={"focus": {"label": data["focus"]}} if data["focus"] else None,
            language=data.get("language"),
            limit=data["limit"],
        )
        return Response(self.OutputSerializer(result.as_dict()).data)
