from django.core.management.base import BaseCommand

from operators.permissions import operators_group_sync


class Command(BaseCommand):
    help = "Create the Operators group, or reset it to exactly the permissions operators need."

    def handle(self, *args, **options):
        group = operators_group_sync()
        self.stdout.write(f"{group.name}: {group.permissions.count()} permissions")
