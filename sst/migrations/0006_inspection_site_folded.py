"""Inspection.site_folded: the site lower-cased and without accents, so a text filter finds
"Galpão Norte" from "galpao norte" (as the `*_folded` name columns do)."""

from django.db import migrations, models


def backfill(apps, schema_editor):
    from sst.text import fold

    inspection = apps.get_model("sst", "Inspection")
    for row in inspection.objects.exclude(site="").only("pk", "site").iterator():
        inspection.objects.filter(pk=row.pk).update(site_folded=fold(row.site))


class Migration(migrations.Migration):

    dependencies = [
        ("sst", "0005_faultrule_noop"),
    ]

    operations = [
        migrations.AddField(
            model_name="inspection",
            name="site_folded",
            field=models.CharField(blank=True, editable=False, max_length=200),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
