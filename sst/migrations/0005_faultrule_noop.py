from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('sst', '0004_inspections'),
    ]

    operations = [
        migrations.AddField(
            model_name='faultrule',
            name='noop',
            field=models.BooleanField(default=False),
        ),
        migrations.RemoveConstraint(
            model_name='faultrule',
            name='sst_faultrule_has_effect',
        ),
        migrations.AddConstraint(
            model_name='faultrule',
            constraint=models.CheckConstraint(condition=models.Q(('status__isnull', False), ('latency_ms__isnull', False), ('noop', True), _connector='OR'), name='sst_faultrule_has_effect'),
        ),
    ]
