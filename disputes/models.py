from django.db import models
from django.db.models import Q

from core.money import MoneyField
from finance.models import Terminal
from orders.models import Order


class Resolution(models.TextChoices):
    ACCEPTED = "accepted", "accepted"
    REJECTED = "rejected", "rejected"


class Dispute(models.Model):
    """An appeal on an order; one per order, ever (the unique constraint holds it)."""

    order = models.OneToOneField(Order, on_delete=models.PROTECT, related_name="dispute")
    terminal = models.ForeignKey(Terminal, on_delete=models.PROTECT, related_name="disputes")
    amount = MoneyField()
    processed = models.BooleanField(default=False)
    resolution = models.CharField(max_length=10, choices=Resolution.choices, null=True, blank=True)
    comment = models.TextField(blank=True)
    resolved_by = models.CharField(max_length=150, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["terminal", "-created_at"], name="dispute_terminal_created"),
            models.Index(fields=["processed", "-created_at"], name="dispute_queue"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="dispute_amount_positive"),
            models.CheckConstraint(
                condition=Q(processed=False, resolution__isnull=True)
                | Q(processed=True, resolution__isnull=False),
                name="dispute_processed_has_resolution",
            ),
        ]

    def __str__(self):
        return f"Dispute {self.pk} on {self.order_id}"


class DisputeFile(models.Model):
    dispute = models.ForeignKey(Dispute, on_delete=models.CASCADE, related_name="files")
    file = models.FileField(upload_to="disputes/%Y/%m/", max_length=300)
    content_type = models.CharField(max_length=100)
    size = models.PositiveIntegerField()
    original_name = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.file.name
