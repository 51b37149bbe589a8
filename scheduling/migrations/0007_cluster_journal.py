from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("scheduling", "0006_snapshot_deltas"),
    ]

    operations = [
        migrations.AddField(
            model_name="cluster",
            name="journal",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
