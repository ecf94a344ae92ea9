from django.core.management.base import BaseCommand, CommandError

from finance.services import ledger_check


class Command(BaseCommand):
    help = "Verify every balance against its ledger and open reserves; exit non-zero on a mismatch."

    def handle(self, *args, **options):
        problems = ledger_check()
        for p in problems:
            self.stderr.write(f"{p.terminal}: {p.field} is {p.actual}, ledger says {p.expected}")
        if problems:
            raise CommandError(f"{len(problems)} ledger mismatch(es)")
        self.stdout.write(self.style.SUCCESS("Ledger consistent"))
