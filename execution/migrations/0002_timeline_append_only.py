from django.db import migrations

from tenancy.db import append_only


class Migration(migrations.Migration):
    dependencies = [("execution", "0001_initial")]

    operations = [append_only("execution_timelineentry")]
