"""Subprocess of tests/execution/test_check_durable.py: run one step until its external call, then wait.

On the database DATABASE_URL names (migrated): an SST world, a one-step plan approved the way the
conversation runtime approves it, and the step run as a worker runs it (autocommit). The Tool
Runtime's call is replaced by "AT-CALL <execution id>" on stdout and a long sleep: the parent crashes
the database server there and kills this process.
"""

from __future__ import annotations

import os
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from execution import perform, publish  # noqa: E402
from execution.engine import run_step  # noqa: E402
from execution.services import execution_start  # noqa: E402
from execution.tool_runtime import ToolSession  # noqa: E402
from planning.services import plan_from_steps  # noqa: E402
from sst import services as sst  # noqa: E402
from tenancy.models import Role  # noqa: E402
from tenancy.services import membership_grant, tenant_create  # noqa: E402
from tests.execution.helpers import approve  # noqa: E402
from tests.registry_fixtures import activate_manifest  # noqa: E402

invoke, revalidate = ToolSession.invoke, perform.revalidate_step
checked: list = []


def checking(*args, **kwargs):
    check = revalidate(*args, **kwargs)
    checked.append(check)
    return check


def at_the_call(session, **kwargs):
    """The facts reads before the check go through; the step's own call (after the check) waits."""
    if not checked:
        return invoke(session, **kwargs)
    print(f"AT-CALL {EXECUTION}", flush=True)
    time.sleep(600)
    raise SystemExit("never called")


activate_manifest()
tenant = tenant_create(slug="crash", name="Crash")
actor = get_user_model().objects.create_user(username="crash-operator", password=None)
membership_grant(user=actor, tenant=tenant, role=Role.OPERATOR)
company = sst.company_create(tenant=tenant, name="Alfa")
permit = sst.permit_create(tenant=tenant, company=company, validity_days=9)
plan = plan_from_steps(tenant=tenant, actor=actor, template="test.chain",
                       steps=[{"id": "r0", "capability": "workPermit.read", "input": {"permit_id": permit.pk},
                               "depends_on": []}])
sent: list = []
publish.send_soon = lambda task, args, countdown=None: sent.append(args)
execution = execution_start(plan=plan, receipt_id=approve(plan, actor=actor, tenant=tenant).pk, actor=actor,
                            tenant=tenant)
EXECUTION = execution.pk
ToolSession.invoke = at_the_call
perform.revalidate_step = checking
if os.environ.get("CRASH_TEST_RELAX"):  # the old relaxation, to see the test fail without the fix
    from django.db import connection

    connection.cursor().execute("SET synchronous_commit TO OFF")
run_step(*sent.pop(0))
sys.exit("the step finished without calling")
