"""A dispute's evidence on its admin page: images previewed, anything else downloaded."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .models import DisputeFile


class DisputeFileInline(admin.TabularInline):
    model = DisputeFile
    extra = 0
    can_delete = False
    fields = ["preview", "content_type", "size", "original_name", "created_at"]
    readonly_fields = fields
    verbose_name = _("evidence file")
    verbose_name_plural = _("evidence files")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("evidence"))
    def preview(self, obj):
        url = reverse("admin:disputes_evidence", args=[obj.pk])
        return evidence_link(
            url, content_type=obj.content_type, label=gettext("evidence {id}").format(id=obj.pk)
        )


def evidence_link(url: str, *, content_type: str, label: str):
    """An image previewed (served inline to the operator), anything else a download."""
    if content_type.startswith("image/"):
        return format_html(
            '<a href="{}"><img src="{}?inline=1" alt="{}" '
            'style="max-height:200px;max-width:320px"></a><br><a href="{}">{}</a>',
            url,
            url,
            label,
            url,
            gettext("Download"),
        )
    return format_html('<a href="{}">{}</a>', url, gettext("Download"))
