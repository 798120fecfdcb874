"""The SST API's per-permit checks for batch evaluation (PRD-034 §110; sst.checks): reads and the decision."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from . import checks
from .api_base import WRITE_HEADER_PARAMETERS, SstApi, created, ok
from .serializers import NamedRefSerializer, StrictSerializer


class TrainingCheckOutputSerializer(serializers.Serializer):
    permit_id = serializers.IntegerField()
    trained = serializers.BooleanField()
    workers = serializers.IntegerField()
    untrained = NamedRefSerializer(many=True)


class RiskAssessmentOutputSerializer(serializers.Serializer):
    permit_id = serializers.IntegerField()
    level = serializers.ChoiceField(choices=["low", "medium", "high"])
    score = serializers.IntegerField()
    factors = serializers.ListField(child=serializers.CharField())


class ComplianceOutputSerializer(serializers.Serializer):
    permit_id = serializers.IntegerField()
    compliant = serializers.BooleanField()
    issues = serializers.ListField(child=serializers.CharField())
    source = serializers.CharField()


class EvaluationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    permit_id = serializers.IntegerField()
    outcome = serializers.CharField()
    reasons = serializers.ListField(child=serializers.CharField())
    checks = serializers.DictField()
    created_at = serializers.DateTimeField()


class PermitTrainingCheckApi(SstApi):
    @extend_schema(responses=TrainingCheckOutputSerializer)
    def get(self, request: Request, id: int) -> Response:
        return ok(TrainingCheckOutputSerializer(checks.training_check(tenant=self.tenant, permit_id=id)).data)


class PermitRiskAssessmentApi(SstApi):
    @extend_schema(responses=RiskAssessmentOutputSerializer)
    def get(self, request: Request, id: int) -> Response:
        return ok(RiskAssessmentOutputSerializer(checks.risk_assessment(tenant=self.tenant, permit_id=id)).data)


class PermitComplianceApi(SstApi):
    source = "primary"

    @extend_schema(responses=ComplianceOutputSerializer)
    def get(self, request: Request, id: int) -> Response:
        result = checks.compliance_check(tenant=self.tenant, permit_id=id, source=self.source)
        return ok(ComplianceOutputSerializer(result).data)


class PermitComplianceSecondaryApi(PermitComplianceApi):
    """The registered secondary compliance source: same answer, its own route (and faults)."""

    source = "secondary"


class PermitEvaluationsApi(SstApi):
    class InputSerializer(StrictSerializer):
        trained = serializers.BooleanField()
        risk_level = serializers.ChoiceField(choices=["low", "medium", "high"])
        compliant = serializers.BooleanField()

    @extend_schema(responses=EvaluationOutputSerializer(many=True))
    def get(self, request: Request, id: int) -> Response:
        rows = checks.permit_evaluation_list(tenant=self.tenant, permit_id=id)
        return ok(EvaluationOutputSerializer(rows, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: EvaluationOutputSerializer},
                   parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        evaluation = checks.permit_evaluation_record(tenant=self.tenant, permit_id=id,
                                                     findings=checks.Findings(**data),
                                                     expected_revision=self.expected_revision)
        return created(EvaluationOutputSerializer(evaluation).data)


class PermitEvaluationDetailApi(SstApi):
    @extend_schema(request=None, responses={200: EvaluationOutputSerializer}, parameters=WRITE_HEADER_PARAMETERS,
                   description="Withdraws one recorded evaluation of the permit and answers with it as it was "
                               "(the undo of recording it); the permit's revision is kept.")
    def delete(self, request: Request, id: int, evaluation_id: int) -> Response:
        evaluation = checks.permit_evaluation_withdraw(tenant=self.tenant, permit_id=id, evaluation_id=evaluation_id,
                                                       expected_revision=self.expected_revision)
        return ok(EvaluationOutputSerializer(evaluation).data)
