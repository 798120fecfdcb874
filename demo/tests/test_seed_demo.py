"""`seed_demo` builds the demo world through the services, and a second run changes nothing."""

from __future__ import annotations

import io

from django.contrib.auth import get_user_model
from django.core.management import call_command

from demo.seeding.sst import DEMO_PASSWORD
from sst.models import (
    Company,
    ComponentType,
    Employee,
    Finding,
    Inspection,
    PermitComponent,
    PermitStatus,
    PermitWorker,
    WorkPermit,
)
from tenancy.models import AccessToken, Membership, Tenant

SST_MODELS = [Company, Employee, ComponentType, WorkPermit, PermitComponent, PermitWorker, Inspection, Finding]


def snapshot() -> dict[str, list]:
    """Every row the seeder owns, with the fields an update would change."""
    rows = {model.__name__: list(model.objects.all_tenants().order_by("pk").values()) for model in SST_MODELS}
    rows["Tenant"] = list(Tenant.objects.order_by("pk").values())
    rows["User"] = list(get_user_model().objects.order_by("pk").values("pk", "username", "password", "is_staff",
                                                                        "is_superuser", "last_login"))
    rows["Membership"] = list(Membership.objects.order_by("pk").values())
    rows["AccessToken"] = list(AccessToken.objects.order_by("pk").values("pk"))
    return rows


def test_seed_demo_twice_changes_nothing(db):
    first_out = io.StringIO()
    call_command("seed_demo", stdout=first_out)
    before = snapshot()
    call_command("seed_demo", stdout=io.StringIO())
    assert snapshot() == before
    assert DEMO_PASSWORD in first_out.getvalue()
    assert sum(len(rows) for rows in before.values()) > 30


def test_demo_world_has_what_the_demos_need(db):
    call_command("seed_demo", stdout=io.StringIO())
    demo, other = Tenant.objects.get(slug="demo"), Tenant.objects.get(slug="other")
    assert (demo.name, other.name) == ("Demo SST", "Outra Empresa")
    companies = set(Company.objects.for_tenant(demo).values_list("name", flat=True))
    assert {"Alfa Construções", "Beta Montagens"} <= companies
    joaos = Employee.objects.for_tenant(demo).filter(name__startswith="João ")
    assert joaos.count() == 2
    catalog = dict(ComponentType.objects.for_tenant(demo).values_list("key", "undoable"))
    assert set(catalog) == {"workingAtHeight", "hotWork", "confinedSpace", "electricity", "excavation",
                            "loadLifting"}
    assert [key for key, undoable in catalog.items() if not undoable] == ["loadLifting"]
    permits = WorkPermit.objects.for_tenant(demo)
    numbers = list(permits.values_list("number", flat=True))
    assert len(numbers) == len(set(numbers)), "the README's demo names permits by number alone"
    assert permits.filter(status=PermitStatus.APPROVED).count() == 1
    assert WorkPermit.objects.for_tenant(other).filter(number="123").exists()


def test_demo_tenant_has_three_inspections_to_try_one_with_an_inspector_and_a_finding(db, client):
    from sst.clock import today

    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    assert "3 inspections created" in out.getvalue()
    inspections = Inspection.objects.for_tenant(Tenant.objects.get(slug="demo")).order_by("number")
    assert inspections.values("number").distinct().count() == 3
    assert all(i.status == "SCHEDULED" and i.scheduled_for > today() and i.site for i in inspections)
    staffed = [i for i in inspections if i.inspector_id is not None]
    assert len(staffed) == 1 and [f.severity for f in staffed[0].findings.all()] == ["HIGH"]
    assert client.login(username="demo-viewer", password=DEMO_PASSWORD)
    listed = client.get("/api/sst/inspections").json()
    assert sorted(i["number"] for i in listed) == sorted(i.number for i in inspections)
    assert not Inspection.objects.for_tenant(Tenant.objects.get(slug="other")).exists()


def test_demo_users_log_in_with_their_roles(db):
    call_command("seed_demo", stdout=io.StringIO())
    users = get_user_model().objects
    roles = dict(Membership.objects.filter(tenant__slug="demo").values_list("user__username", "role"))
    assert roles == {"demo-viewer": "viewer", "demo-operator": "operator", "demo-supervisor": "supervisor",
                     "demo-admin": "admin"}
    admin = users.get(username="demo-admin")
    assert admin.is_staff and admin.is_superuser and admin.check_password(DEMO_PASSWORD)
    assert not users.get(username="demo-operator").is_staff
    assert not Membership.objects.filter(tenant__slug="other", user__username__startswith="demo-").exists()


def test_demo_operator_sees_only_the_demo_tenant_through_the_api(db, client):
    call_command("seed_demo", stdout=io.StringIO())
    assert client.login(username="demo-operator", password=DEMO_PASSWORD)
    permits = client.get("/api/sst/permits", {"number": "123"}).json()
    assert [p["company"]["name"] for p in permits] == ["Alfa Construções"]  # not Outra Empresa's 123
