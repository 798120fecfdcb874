"""The SST REST API (contract: companies, employees, component types, permits and their children).

Views only parse, call one selector or service, and serialize; the guards (roles per method,
faults, If-Match, Idempotency-Key) live in `sst.api_base.SstApi`.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from tenancy.models import Role

from . import selectors, services
from .api_base import WRITE_HEADER_PARAMETERS, SstApi, created, ok
from .fields import ComponentKeyField, TenantReferenceField, TextField
from .models import (
    MAX_VALIDITY_DAYS,
    NOTES_MAX_LENGTH,
    NUMBER_MAX_LENGTH,
    Company,
    Employee,
    PermitStatus,
)
from .serializers import (
    MAX_ID,
    CountOutputSerializer,
    NamedRefSerializer,
    NumberedFilterSerializer,
    SearchFilterSerializer,
    StrictSerializer,
    no_duplicates,
    number_validator,
)


class ComponentTypeOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    name = serializers.CharField()
    undoable = serializers.BooleanField()


class EmployeeOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    company = NamedRefSerializer()


class PermitComponentOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField(source="component_type.key")
    name = serializers.CharField(source="component_type.name")
    undoable = serializers.BooleanField(source="component_type.undoable")
    notes = serializers.CharField()


class PermitComponentWriteOutputSerializer(PermitComponentOutputSerializer):
    permit_revision = serializers.IntegerField(source="permit.revision")


class PermitWorkerOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="employee_id")
    name = serializers.CharField(source="employee.name")


class PermitWorkerWriteOutputSerializer(PermitWorkerOutputSerializer):
    permit_revision = serializers.IntegerField(source="permit.revision")


class PermitOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.CharField()
    company = NamedRefSerializer()
    status = serializers.ChoiceField(choices=PermitStatus.choices)
    validity_days = serializers.IntegerField()
    responsible = NamedRefSerializer(allow_null=True)
    revision = serializers.IntegerField()
    components = PermitComponentOutputSerializer(many=True, source="components.all")
    workers = PermitWorkerOutputSerializer(many=True, source="workers.all")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def permit_response(api: SstApi, permit_id: int, *, status_code: int = status.HTTP_200_OK) -> Response:
    permit = selectors.permit_get(tenant=api.tenant, permit_id=permit_id)
    return ok(PermitOutputSerializer(permit).data, revision=permit.revision, status_code=status_code)


# -- catalog reads ------------------------------------------------------------------------------


class CompanyListApi(SstApi):
    class FilterSerializer(SearchFilterSerializer):
        pass

    @extend_schema(parameters=[FilterSerializer], responses=NamedRefSerializer(many=True))
    def get(self, request: Request) -> Response:
        filters = self.parse(self.FilterSerializer, request.query_params)
        return ok(NamedRefSerializer(selectors.company_list(tenant=self.tenant, **filters), many=True).data)


class ComponentTypeListApi(SstApi):
    class FilterSerializer(SearchFilterSerializer):
        pass

    @extend_schema(parameters=[FilterSerializer], responses=ComponentTypeOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        filters = self.parse(self.FilterSerializer, request.query_params)
        types = selectors.component_type_list(tenant=self.tenant, **filters)
        return ok(ComponentTypeOutputSerializer(types, many=True).data)


class EmployeeFilterSerializer(SearchFilterSerializer):
    company = serializers.IntegerField(source="company_id", required=False, min_value=1, max_value=MAX_ID)


class EmployeeListApi(SstApi):
    class FilterSerializer(EmployeeFilterSerializer):
        pass

    @extend_schema(parameters=[FilterSerializer], responses=EmployeeOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        filters = self.parse(self.FilterSerializer, request.query_params)
        employees = selectors.employee_list(tenant=self.tenant, **filters)
        return ok(EmployeeOutputSerializer(employees, many=True).data)


class EmployeeCountApi(SstApi):
    class FilterSerializer(EmployeeFilterSerializer):
        pass

    @extend_schema(parameters=[FilterSerializer], responses=CountOutputSerializer)
    def get(self, request: Request) -> Response:
        filters = self.parse(self.FilterSerializer, request.query_params)
        return ok({"count": selectors.employee_list(tenant=self.tenant, **filters).count()})


class EmployeeDetailApi(SstApi):
    @extend_schema(responses=EmployeeOutputSerializer)
    def get(self, request: Request, id: int) -> Response:
        employee = selectors.employee_get(tenant=self.tenant, employee_id=id)
        return ok(EmployeeOutputSerializer(employee).data)


# -- permits ------------------------------------------------------------------------------------


class PermitFilterSerializer(NumberedFilterSerializer):
    status = serializers.ChoiceField(required=False, choices=PermitStatus.choices)
    has_components = serializers.ChoiceField(required=False, choices=["HAS_ANY", "HAS_NONE"],
                                             help_text="HAS_ANY: with at least one component; HAS_NONE: without any.")
    has_workers = serializers.ChoiceField(required=False, choices=["HAS_ANY", "HAS_NONE"],
                                          help_text="HAS_ANY: with at least one worker; HAS_NONE: without any.")
    responsible = serializers.IntegerField(source="responsible_id", required=False, min_value=1, max_value=MAX_ID,
                                           help_text="Only the permits this employee is responsible for.")
    component = serializers.CharField(required=False, max_length=100,
                                      help_text="Only the permits with a component of this type (its key).")
    ids = serializers.RegexField(r"^[0-9]{1,18}(,[0-9]{1,18}){0,199}$", required=False,
                                 help_text="Comma-separated permit ids (at most 200): batch reads.")

    def validate_ids(self, value: str) -> tuple[int, ...]:
        return tuple(int(v) for v in value.split(","))


class PermitListApi(SstApi):
    class FilterSerializer(PermitFilterSerializer):
        pass

    class InputSerializer(StrictSerializer):
        company = TenantReferenceField(Company)
        number = TextField(required=False, max_length=NUMBER_MAX_LENGTH, validators=[number_validator])
        validity_days = serializers.IntegerField(min_value=1, max_value=MAX_VALIDITY_DAYS)
        responsible = TenantReferenceField(Employee, required=False, allow_null=True)
        components = serializers.ListField(child=ComponentKeyField(), required=False, max_length=50)
        workers = serializers.ListField(child=TenantReferenceField(Employee), required=False, max_length=200)

        def validate_components(self, value: list[Any]) -> list[Any]:
            return no_duplicates(value)

        def validate_workers(self, value: list[Any]) -> list[Any]:
            return no_duplicates(value)

    @extend_schema(parameters=[FilterSerializer], responses=PermitOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        filters = selectors.PermitFilters(**self.parse(self.FilterSerializer, request.query_params))
        return ok(PermitOutputSerializer(selectors.permit_list(tenant=self.tenant, filters=filters), many=True).data)

    @extend_schema(request=InputSerializer, responses={201: PermitOutputSerializer},
                   parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        permit = services.permit_create(
            tenant=self.tenant,
            company=data["company"],
            validity_days=data["validity_days"],
            number=data.get("number"),
            responsible=data.get("responsible"),
            component_types=data.get("components", ()),
            workers=data.get("workers", ()),
        )
        return permit_response(self, permit.pk, status_code=status.HTTP_201_CREATED)


class PermitCountApi(SstApi):
    class FilterSerializer(PermitFilterSerializer):
        pass

    @extend_schema(parameters=[FilterSerializer], responses=CountOutputSerializer)
    def get(self, request: Request) -> Response:
        filters = selectors.PermitFilters(**self.parse(self.FilterSerializer, request.query_params))
        return ok({"count": selectors.permit_count(tenant=self.tenant, filters=filters)})


class PermitDetailApi(SstApi):
    required_roles = {"DELETE": Role.SUPERVISOR}

    class InputSerializer(StrictSerializer):
        number = TextField(required=False, max_length=NUMBER_MAX_LENGTH, validators=[number_validator])
        responsible = TenantReferenceField(Employee, required=False, allow_null=True)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if not attrs:
                raise serializers.ValidationError("Send at least one of: number, responsible.")
            return attrs

    @extend_schema(responses=PermitOutputSerializer)
    def get(self, request: Request, id: int) -> Response:
        return permit_response(self, id)

    @extend_schema(request=InputSerializer, responses=PermitOutputSerializer, parameters=WRITE_HEADER_PARAMETERS)
    def patch(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        services.permit_update(tenant=self.tenant, permit_id=id, expected_revision=self.expected_revision, **data)
        return permit_response(self, id)

    @extend_schema(request=None, responses={204: None}, parameters=WRITE_HEADER_PARAMETERS)
    def delete(self, request: Request, id: int) -> Response:
        services.permit_delete(tenant=self.tenant, permit_id=id, expected_revision=self.expected_revision)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PermitValidityApi(SstApi):
    class InputSerializer(StrictSerializer):
        validity_days = serializers.IntegerField(min_value=1, max_value=MAX_VALIDITY_DAYS)

    @extend_schema(request=InputSerializer, responses=PermitOutputSerializer, parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        services.permit_validity_update(
            tenant=self.tenant, permit_id=id, validity_days=data["validity_days"],
            expected_revision=self.expected_revision,
        )
        return permit_response(self, id)


class PermitApproveApi(SstApi):
    required_roles = {"POST": Role.SUPERVISOR}

    class InputSerializer(StrictSerializer):
        pass

    @extend_schema(request=InputSerializer, responses=PermitOutputSerializer, parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        self.parse(self.InputSerializer, request.data)
        services.permit_approve(tenant=self.tenant, permit_id=id, expected_revision=self.expected_revision)
        return permit_response(self, id)


class PermitCancelApi(SstApi):
    required_roles = {"POST": Role.SUPERVISOR}

    class InputSerializer(StrictSerializer):
        reason = TextField(required=False, allow_blank=True, max_length=NOTES_MAX_LENGTH)

    @extend_schema(request=InputSerializer, responses=PermitOutputSerializer, parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        services.permit_cancel(
            tenant=self.tenant, permit_id=id, reason=data.get("reason", ""), expected_revision=self.expected_revision
        )
        return permit_response(self, id)


# -- permit children ----------------------------------------------------------------------------


class PermitComponentsApi(SstApi):
    class InputSerializer(StrictSerializer):
        component = ComponentKeyField()
        notes = TextField(required=False, allow_blank=True, max_length=NOTES_MAX_LENGTH)

    @extend_schema(responses=PermitComponentOutputSerializer(many=True))
    def get(self, request: Request, id: int) -> Response:
        components = selectors.permit_component_list(tenant=self.tenant, permit_id=id)
        return ok(PermitComponentOutputSerializer(components, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: PermitComponentWriteOutputSerializer},
                   parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        component = services.permit_component_add(
            tenant=self.tenant, permit_id=id, component_type=data["component"], notes=data.get("notes", ""),
            expected_revision=self.expected_revision,
        )
        return created(PermitComponentWriteOutputSerializer(component).data, revision=component.permit.revision)


class PermitComponentDetailApi(SstApi):
    class InputSerializer(StrictSerializer):
        notes = TextField(allow_blank=True, max_length=NOTES_MAX_LENGTH)

    @extend_schema(request=InputSerializer, responses=PermitComponentWriteOutputSerializer,
                   parameters=WRITE_HEADER_PARAMETERS)
    def patch(self, request: Request, id: int, component_id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        component = services.permit_component_update(
            tenant=self.tenant, permit_id=id, component_id=component_id, notes=data["notes"],
            expected_revision=self.expected_revision,
        )
        return ok(PermitComponentWriteOutputSerializer(component).data, revision=component.permit.revision)

    @extend_schema(request=None, responses=PermitComponentWriteOutputSerializer, parameters=WRITE_HEADER_PARAMETERS,
                   description="Removes the component and answers with it as it was (its catalog key and notes), "
                               "so that the removal can be undone by adding it back.")
    def delete(self, request: Request, id: int, component_id: int) -> Response:
        component = services.permit_component_remove(
            tenant=self.tenant, permit_id=id, component_id=component_id, expected_revision=self.expected_revision
        )
        return ok(PermitComponentWriteOutputSerializer(component).data, revision=component.permit.revision)


class PermitWorkersApi(SstApi):
    class InputSerializer(StrictSerializer):
        employee = TenantReferenceField(Employee)

    @extend_schema(responses=PermitWorkerOutputSerializer(many=True))
    def get(self, request: Request, id: int) -> Response:
        workers = selectors.permit_worker_list(tenant=self.tenant, permit_id=id)
        return ok(PermitWorkerOutputSerializer(workers, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: PermitWorkerWriteOutputSerializer},
                   parameters=WRITE_HEADER_PARAMETERS)
    def post(self, request: Request, id: int) -> Response:
        data = self.parse(self.InputSerializer, request.data)
        worker = services.permit_worker_add(
            tenant=self.tenant, permit_id=id, employee=data["employee"], expected_revision=self.expected_revision
        )
        return created(PermitWorkerWriteOutputSerializer(worker).data, revision=worker.permit.revision)


class PermitWorkerDetailApi(SstApi):
    @extend_schema(request=None, responses={204: None}, parameters=WRITE_HEADER_PARAMETERS)
    def delete(self, request: Request, id: int, employee_id: int) -> Response:
        permit = services.permit_worker_remove(
            tenant=self.tenant, permit_id=id, employee_id=employee_id, expected_revision=self.expected_revision
        )
        return ok(None, revision=permit.revision, status_code=status.HTTP_204_NO_CONTENT)
