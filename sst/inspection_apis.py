"""The SST REST API for safety inspections and their findings (same guards and shapes as the permit API).

Views only parse, call one selector or service, and serialize; roles per method, faults, If-Match
and Idempotency-Key live in `sst.api_base.SstApi`. A date in the past is a 400 naming the field:
inspections are scheduled from today on (today by the server clock, sst.clock).
"""

from __future__ import annotations

from datetime import date

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from tenancy.models import Role

from . import inspection_selectors as selectors
from . import inspection_services as services
from .api_base import WRITE_HEADER_PARAMETERS, SstApi, created, ok
from .clock import today
from .fields import TenantReferenceField, TextField
from .models import (
    FINDING_MAX_LENGTH,
    NAME_MAX_LENGTH,
    NOTES_MAX_LENGTH,
    NUMBER_MAX_LENGTH,
    Company,
    Employee,
    FindingSeverity,
    InspectionStatus,
)
from .serializers import (
    MAX_ID,
    CountOutputSerializer,
    NamedRefSerializer,
    NumberedFilterSerializer,
    StrictSerializer,
    number_validator,
)


def not_in_the_past(value: date) -> None:
    if value < today():
        raise serializers.ValidationError(f"The date cannot be in the past (today is {today().isoformat()}).")


class FindingSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    description = serializers.CharField()
    severity = serializers.ChoiceField(choices=FindingSeverity.choices)


class FindingOutputSerializer(FindingSummarySerializer):
    """A finding on its own: with the revision of its inspection, which a finding write bumps."""

    inspection_revision = serializers.IntegerField(source="inspection.revision")


class InspectionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.CharField()
    company = NamedRefSerializer()
    site = serializers.CharField()
    status = serializers.ChoiceField(choices=InspectionStatus.choices)
    scheduled_for = serializers.DateField()
    inspector = NamedRefSerializer(allow_null=True)
    findings = FindingSummarySerializer(many=True, source="findings.all")
    revision = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def inspection_response(api: SstApi, inspection_id: int, *, status_code: int = status.HTTP_200_OK) -> Response:
    inspection = selectors.inspection_get(tenant=api.tenant, inspection_id=inspection_id)
    return ok(InspectionOutputSerializer(inspection).data, revision=inspection.revision, status_code=status_code)


class InspectionFilterSerializer(NumberedFilterSerializer):
    status = serializers.ChoiceField(required=False, choices=InspectionStatus.choices)
    inspector_status = serializers.ChoiceField(required=False, choices=["ASSIGNED", "UNASSIGNED"],
                                               help_text="ASSIGNED: with an inspector; UNASSIGNED: without one.")
    inspector = serializers.IntegerField(source="inspector_id", required=False, min_value=1, max_value=MAX_ID,
                                         help_text="Only the inspections this employee inspects.")
    finding_severity = serializers.ChoiceField(required=False, choices=FindingSeverity.choices,
                                               help_text="Only inspections with a finding of this severity.")
    has_findings = serializers.ChoiceField(required=False, choices=["HAS_ANY", "HAS_NONE"],
                                           help_text="HAS_ANY: with at least one finding; HAS_NONE: without any.")
    scheduled_from = serializers.DateField(required=False, help_text="Only inspections scheduled on or after this day.")
    scheduled_to = serializers.DateField(required=False, help_text="Only inspections scheduled on or before this day.")

    def validate(self, attrs):
        first, last = attrs.get("scheduled_from"), attrs.get("scheduled_to")
        if first and last and first > last:
            raise serializers.ValidationError({"scheduled_to": "must not be before scheduled_from"})
        return attrs


class InspectionListApi(SstApi):
    class FilterSerializer(InspectionFilterSerializer):
        pass

    class InputSerializer(StrictSerializer):
        company = TenantReferenceField(Company)
        number = TextField(required=False, max_length=NUMBER_MAX_LENGTH, validators=[number_validator])
        site = TextField(max_length=NAME_MAX_LENGTH)
        scheduled_for = serializers.DateField(validators=[not_in_the_past])
        inspector = TenantReferenceField(Employee, required=False, allow_null=True)

    @extend_schema(parameters=[FilterSerializer], responses=InspectionOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        filters = selectors.InspectionFilters(**self.parse(self.FilterSerializer, request.query_params))
        inspections = selectors.inspection_list(tenant=self.tenant, filters=filters)
        return ok(InspectionOutputSerializer(inspections, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: InspectionOutputSerializer},
                   parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        inspection = services.inspection_create(tenant=self.tenant, **data)
        return inspection_response(self, inspection.pk, status_code=status.HTTP_201_CREATED)


class InspectionCountApi(SstApi):
    class FilterSerializer(InspectionFilterSerializer):
        pass

    @extend_schema(parameters=[FilterSerializer], responses=CountOutputSerializer)
    def get(self, request: Request) -> Response:
        filters = selectors.InspectionFilters(**self.parse(self.FilterSerializer, request.query_params))
        return ok({"count": selectors.inspection_count(tenant=self.tenant, filters=filters)})


class InspectionDetailApi(SstApi):
    @extend_schema(responses=InspectionOutputSerializer)
    def get(self, request: Request, id: int) -> Response:
        return inspection_response(self, id)


class InspectionRescheduleApi(SstApi):
    class InputSerializer(StrictSerializer):
        scheduled_for = serializers.DateField(validators=[not_in_the_past])

    @extend_schema(request=InputSerializer, responses=InspectionOutputSerializer, parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        services.inspection_reschedule(tenant=self.tenant, inspection_id=id, scheduled_for=data["scheduled_for"],
                                       expected_revision=self.expected_revision)
        return inspection_response(self, id)


class InspectionInspectorApi(SstApi):
    class InputSerializer(StrictSerializer):
        inspector = TenantReferenceField(Employee, allow_null=True, help_text="Employee id; null clears it.")

    @extend_schema(request=InputSerializer, responses=InspectionOutputSerializer, parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        services.inspection_inspector_assign(tenant=self.tenant, inspection_id=id, inspector=data["inspector"],
                                             expected_revision=self.expected_revision)
        return inspection_response(self, id)


class InspectionCompleteApi(SstApi):
    required_roles = {"POST": Role.SUPERVISOR}

    class InputSerializer(StrictSerializer):
        pass

    @extend_schema(request=InputSerializer, responses=InspectionOutputSerializer, parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        self.parse(self.InputSerializer, request.data)
        services.inspection_complete(tenant=self.tenant, inspection_id=id, expected_revision=self.expected_revision)
        return inspection_response(self, id)


class InspectionCancelApi(SstApi):
    required_roles = {"POST": Role.SUPERVISOR}

    class InputSerializer(StrictSerializer):
        reason = TextField(required=False, allow_blank=True, max_length=NOTES_MAX_LENGTH)

    @extend_schema(request=InputSerializer, responses=InspectionOutputSerializer, parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        services.inspection_cancel(tenant=self.tenant, inspection_id=id, reason=data.get("reason", ""),
                                   expected_revision=self.expected_revision)
        return inspection_response(self, id)


class InspectionFindingsApi(SstApi):
    class InputSerializer(StrictSerializer):
        description = TextField(max_length=FINDING_MAX_LENGTH)
        severity = serializers.ChoiceField(required=False, choices=FindingSeverity.choices)

    @extend_schema(responses=FindingOutputSerializer(many=True))
    def get(self, request: Request, id: int) -> Response:
        findings = selectors.inspection_finding_list(tenant=self.tenant, inspection_id=id)
        return ok(FindingOutputSerializer(findings, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: FindingOutputSerializer},
                   parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        finding = services.inspection_finding_add(tenant=self.tenant, inspection_id=id,
                                                  expected_revision=self.expected_revision, **data)
        return created(FindingOutputSerializer(finding).data, revision=finding.inspection.revision)


class InspectionFindingDetailApi(SstApi):
    @extend_schema(request=None, responses={204: None}, parameters=WRITE_HEADER_PARAMETERS)
    def delete(self, request: Request, id: int, finding_id: int) -> Response:
        inspection = services.inspection_finding_remove(tenant=self.tenant, inspection_id=id, finding_id=finding_id,
                                                        expected_revision=self.expected_revision)
        return ok(None, revision=inspection.revision, status_code=status.HTTP_204_NO_CONTENT)
