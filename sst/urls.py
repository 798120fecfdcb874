"""The SST API's URL table (names are part of the contract: capability manifests refer to them)."""

from __future__ import annotations

from functools import cache

from django.urls import path

from . import apis, check_apis, inspection_apis

app_name = "sst"

urlpatterns = [
    path("companies", apis.CompanyListApi.as_view(), name="company-list"),
    path("component-types", apis.ComponentTypeListApi.as_view(), name="componenttype-list"),
    path("employees", apis.EmployeeListApi.as_view(), name="employee-list"),
    path("employees/count", apis.EmployeeCountApi.as_view(), name="employee-count"),
    path("employees/<int:id>", apis.EmployeeDetailApi.as_view(), name="employee-detail"),
    path("permits", apis.PermitListApi.as_view(), name="permit-list"),
    path("permits/count", apis.PermitCountApi.as_view(), name="permit-count"),
    path("permits/<int:id>", apis.PermitDetailApi.as_view(), name="permit-detail"),
    path("permits/<int:id>/validity", apis.PermitValidityApi.as_view(), name="permit-validity"),
    path("permits/<int:id>/approve", apis.PermitApproveApi.as_view(), name="permit-approve"),
    path("permits/<int:id>/cancel", apis.PermitCancelApi.as_view(), name="permit-cancel"),
    path("permits/<int:id>/components", apis.PermitComponentsApi.as_view(), name="permit-components"),
    path(
        "permits/<int:id>/components/<int:component_id>",
        apis.PermitComponentDetailApi.as_view(),
        name="permit-component-detail",
    ),
    path("permits/<int:id>/workers", apis.PermitWorkersApi.as_view(), name="permit-workers"),
    path(
        "permits/<int:id>/workers/<int:employee_id>", apis.PermitWorkerDetailApi.as_view(), name="permit-worker-detail"
    ),
    path("permits/<int:id>/checks/training", check_apis.PermitTrainingCheckApi.as_view(), name="permit-training"),
    path("permits/<int:id>/checks/risk", check_apis.PermitRiskAssessmentApi.as_view(), name="permit-risk"),
    path("permits/<int:id>/checks/compliance", check_apis.PermitComplianceApi.as_view(), name="permit-compliance"),
    path("secondary/permits/<int:id>/checks/compliance", check_apis.PermitComplianceSecondaryApi.as_view(),
         name="permit-compliance-secondary"),
    path("permits/<int:id>/evaluations", check_apis.PermitEvaluationsApi.as_view(), name="permit-evaluations"),
    path("permits/<int:id>/evaluations/<int:evaluation_id>", check_apis.PermitEvaluationDetailApi.as_view(),
         name="permit-evaluation-detail"),
    path("inspections", inspection_apis.InspectionListApi.as_view(), name="inspection-list"),
    path("inspections/count", inspection_apis.InspectionCountApi.as_view(), name="inspection-count"),
    path("inspections/<int:id>", inspection_apis.InspectionDetailApi.as_view(), name="inspection-detail"),
    path("inspections/<int:id>/reschedule", inspection_apis.InspectionRescheduleApi.as_view(),
         name="inspection-reschedule"),
    path("inspections/<int:id>/inspector", inspection_apis.InspectionInspectorApi.as_view(),
         name="inspection-inspector"),
    path("inspections/<int:id>/complete", inspection_apis.InspectionCompleteApi.as_view(),
         name="inspection-complete"),
    path("inspections/<int:id>/cancel", inspection_apis.InspectionCancelApi.as_view(), name="inspection-cancel"),
    path("inspections/<int:id>/findings", inspection_apis.InspectionFindingsApi.as_view(),
         name="inspection-findings"),
    path("inspections/<int:id>/findings/<int:finding_id>", inspection_apis.InspectionFindingDetailApi.as_view(),
         name="inspection-finding-detail"),
]


@cache
def route_names() -> frozenset[str]:
    """Every route's full URL name ("sst:permit-validity"), for fault rules."""
    return frozenset(f"{app_name}:{pattern.name}" for pattern in urlpatterns)
