from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from core.money import MoneyField
from finance.models import Terminal
from orders.models import Order


class Resolution(models.TextChoices):
    ACCEPTED = "accepted", pgettext_lazy("dispute resolution", "accepted")
    REJECTED = "rejected", pgettext_lazy("dispute resolution", "rejected")


class Dispute(models.Model):
    """An appeal on an order; one per order, ever (the unique constraint holds it)."""

    order = models.OneToOneField(
        Order, on_delete=models.PROTECT, related_name="dispute", verbose_name=_("order")
    )
    terminal = models.ForeignKey(
        Terminal, on_delete=models.PROTECT, related_name="disputes", verbose_name=_("terminal")
    )
    amount = MoneyField(verbose_name=_("amount"))
    processed = models.BooleanField(default=False, verbose_name=_("processed"))
    resolution = models.CharField(
        max_length=10,
        choices=Resolution.choices,
        null=True,
        blank=True,
        verbose_name=_("resolution"),
    )
    comment = models.TextField(blank=True, verbose_name=_("comment"))
    resolved_by = models.CharField(max_length=150, blank=True, verbose_name=_("resolved by"))
    resolved_at = models.DateTimeField(null=True, blank=True, verbose_name=_("resolved at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("dispute")
        verbose_name_plural = _("disputes")
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
        return gettext("Dispute {id} on {order}").format(id=self.pk, order=self.order_id)


class DisputeFile(models.Model):
    dispute = models.ForeignKey(
        Dispute, on_delete=models.CASCADE, related_name="files", verbose_name=_("dispute")
    )
    file = models.FileField(upload_to="disputes/%Y/%m/", max_length=300, verbose_name=_("file"))
    content_type = models.CharField(max_length=100, verbose_name=_("content type"))
    size = models.PositiveIntegerField(verbose_name=_("size"))
    original_name = models.CharField(max_length=255, blank=True, verbose_name=_("original name"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("dispute file")
        verbose_name_plural = _("dispute files")

    def __str__(self):
        return self.file.name
