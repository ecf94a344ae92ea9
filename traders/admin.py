"""Devices and their bank notifications in the admin: devices per trader (online or
not), notifications per device and per requisite with their status. An operator adds
a device for a trader and sees its token once; removing revokes it at once."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from core.admin_site import operator_note
from core.errors import ServiceError
from core.keys import generate_key
from orders.models import Requisite, Trader

from . import devices
from .models import TOKEN_PREFIX, BankNotification, Device
from .notifications import ATTACHABLE, notification_attach


class DeviceForm(forms.ModelForm):
    class Meta:
        model = Device
        fields = ["trader", "name", "requisites"]

    def clean(self):
        cleaned = super().clean()
        trader, requisites = cleaned.get("trader"), cleaned.get("requisites") or []
        if trader is not None and any(r.trader_id != trader.pk for r in requisites):
            raise forms.ValidationError(
                _("A device can be bound only to its own trader's requisites")
            )
        return cleaned


@admin.register(Device)
class DeviceAdmin(admin.ModelAdmin):
    form = DeviceForm
    list_display = [
        "name",
        "trader",
        "token_prefix",
        "online",
        "last_seen_at",
        "notifications_link",
    ]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter), "trader"]
    search_fields = ["name", "token_prefix", "trader__name"]
    list_select_related = ["trader"]
    filter_horizontal = ["requisites"]
    readonly_fields = ["token_prefix", "online", "last_seen_at", "created_at", "revoked_at"]
    actions = ["remove_devices"]

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        # Django's own hint is about holding down Control in a plain list, which the
        # two-list picker replaces; this one says what the choice means.
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        if db_field.name == "requisites":
            field.help_text = _("The requisites whose bank notifications this device forwards.")
        return field

    def get_readonly_fields(self, request, obj=None):
        # A device never moves to another trader.
        return [*self.readonly_fields, "trader"] if obj else self.readonly_fields

    @admin.display(description=_("online"), boolean=True)
    def online(self, obj):
        return obj.is_online

    @admin.display(description=_("notifications"))
    def notifications_link(self, obj):
        url = reverse("admin:traders_banknotification_changelist")
        return format_html('<a href="{}?device__id__exact={}">{}</a>', url, obj.pk, _("list"))

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        raw = generate_key(TOKEN_PREFIX)
        obj.set_token(raw)
        super().save_model(request, obj, form, change)
        messages.warning(
            request,
            _("The device's token: %(token)s — copy it now, it is not shown again.")
            % {"token": raw},
        )

    def has_delete_permission(self, request, obj=None):
        return False  # removing revokes: the notifications stay

    @admin.action(description=_("Remove selected devices (revokes their tokens)"))
    def remove_devices(self, request, queryset):
        removed = 0
        for device in queryset.filter(revoked_at__isnull=True):
            devices.device_remove(device=device)
            self.log_change(request, device, operator_note(_("Removed")))
            removed += 1
        messages.success(request, _("Removed %(n)d device(s).") % {"n": removed})

    remove_devices.allowed_permissions = ["change"]


class RequisiteFilter(admin.SimpleListFilter):
    """Notifications of the devices bound to one requisite."""

    title = _("requisite")
    parameter_name = "requisite"

    def lookups(self, request, model_admin):
        rows = Requisite.objects.filter(devices__isnull=False).distinct().select_related("method")
        return [(str(r.pk), f"{r.method} · {r.account}") for r in rows[:200]]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(device__requisites__id=self.value())
        return queryset


@admin.register(BankNotification)
class BankNotificationAdmin(admin.ModelAdmin):
    list_display = [
        "created_at",
        "device",
        "status",
        "amount",
        "direction",
        "bank",
        "source",
        "short_text",
        "order_link",
        "attach_link",
    ]
    list_filter = ["status", "direction", RequisiteFilter, "device__trader", "device"]
    search_fields = ["=external_id", "text", "source", "device__name", "=order__id"]
    list_select_related = ["device", "order"]
    date_hierarchy = "created_at"
    show_full_result_count = False

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    @admin.display(description=_("text"))
    def short_text(self, obj):
        return obj.text if len(obj.text) <= 80 else obj.text[:79] + "…"

    @admin.display(description=_("order"))
    def order_link(self, obj):
        if obj.order_id is None:
            return "-"
        url = reverse("admin:orders_order_change", args=[obj.order_id])
        return format_html('<a href="{}">{}</a>', url, str(obj.order_id)[:8])

    @admin.display(description=_("attach"))
    def attach_link(self, obj):
        if obj.status not in ATTACHABLE:
            return ""
        url = reverse("admin:traders_banknotification_attach", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, _("Attach to an order…"))

    def get_urls(self):
        attach = self.admin_site.admin_view(self.attach_view)
        return [
            path("<uuid:pk>/attach/", attach, name="traders_banknotification_attach"),
            *super().get_urls(),
        ]

    def attach_view(self, request, pk):
        """An unmatched notification attached to one of its trader's Pending Buys."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        notification = get_object_or_404(BankNotification.objects.select_related("device"), pk=pk)
        back = reverse("admin:traders_banknotification_changelist")
        form = AttachForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            actor = f"operator:{request.user.get_username()}"
            try:
                order = notification_attach(
                    notification=notification, order_id=form.cleaned_data["order_id"], actor=actor
                )
            except ServiceError as exc:
                form.add_error("order_id", exc.message)
            else:
                self.log_change(
                    request, notification, operator_note(_("Attached to order %(id)s"), id=order.pk)
                )
                messages.success(request, _("The order is completed."))
                return redirect(back)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Attach a notification to an order"),
            "notification": notification,
            "form": form,
            "back": back,
        }
        return TemplateResponse(request, "admin/traders/attach.html", context)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AttachForm(forms.Form):
    order_id = forms.CharField(label=_("Order id"), max_length=64)


@admin.display(description=_("devices"))
def trader_devices(trader):
    """A trader's devices on its admin page, each linked, online or not."""
    if trader.pk is None:
        return "-"
    rows = Device.objects.filter(trader=trader, revoked_at__isnull=True)
    items = format_html_join(
        ", ",
        '<a href="{}">{}</a> ({})',
        (
            (
                reverse("admin:traders_device_change", args=[d.pk]),
                d.name,
                _("online") if d.is_online else _("offline"),
            )
            for d in rows
        ),
    )
    listed = reverse("admin:traders_device_changelist") + f"?trader__id__exact={trader.pk}"
    return format_html('{} · <a href="{}">{}</a>', items or "-", listed, _("all devices"))


# The trader's page (orders' admin) shows its devices: a read-only field added here,
# where devices are known, since orders may not import traders.
_trader_admin = admin.site._registry.get(Trader)
if _trader_admin is not None and trader_devices not in _trader_admin.readonly_fields:
    _trader_admin.readonly_fields = [*_trader_admin.readonly_fields, trader_devices]
