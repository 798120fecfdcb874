"""Receipts, step checks, reviews, review decisions and the audit trail are append-only (invariant 11).

UPDATE is refused always; DELETE/TRUNCATE only for members of `agent_maintainer` (tenancy.db).
"""

from django.db import migrations

from tenancy.db import append_only

TABLES = ["policy_policyreceipt", "policy_receiptcheck", "policy_auditevent", "policy_reviewrequest",
          "policy_reviewdecision"]


class Migration(migrations.Migration):
    dependencies = [("policy", "0001_initial")]

    operations = [append_only(table) for table in TABLES]
