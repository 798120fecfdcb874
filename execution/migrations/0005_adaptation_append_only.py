from django.db import migrations

from tenancy.db import append_only


class Migration(migrations.Migration):
    dependencies = [("execution", "0004_adaptive_runtime")]

    operations = [append_only("execution_runtimeadaptation")]
