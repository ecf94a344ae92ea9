"""Staff's authenticator devices in the operators' language.

django-otp's own admin page speaks only English (its labels are plain strings), so it
is replaced by this one: a device is listed, renamed, switched off or deleted (the
staff member then sets up a new one at the next sign-in); it is never typed in here.
"""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django_otp.plugins.otp_totp.models import TOTPDevice

# The model's own names are plain English strings; the admin shows these instead.
TOTPDevice._meta.verbose_name = _("authenticator device")
TOTPDevice._meta.verbose_name_plural = _("authenticator devices")
TOTPDevice._meta.app_config.verbose_name = _("Two-factor sign-in")


class DeviceForm(forms.ModelForm):
    class Meta:
        model = TOTPDevice
        fields = ["name", "confirmed"]
        labels = {"name": _("name"), "confirmed": _("confirmed")}
        help_texts = {
            "name": _("The device's name, as its owner knows it."),
            "confirmed": _("Off: the device's codes are refused until it is switched on again."),
        }


if admin.site.is_registered(TOTPDevice):
    admin.site.unregister(TOTPDevice)


@admin.register(TOTPDevice)
class DeviceAdmin(admin.ModelAdmin):
    form = DeviceForm
    list_display = ["device_name", "owner", "is_confirmed", "created", "last_used"]
    search_fields = ["user__username", "name"]
    search_help_text = _("User name or device name")
    readonly_fields = ["owner", "created", "last_used"]
    fields = ["owner", "name", "confirmed", "created", "last_used"]

    def has_add_permission(self, request):
        return False  # a device is set up by its owner at sign-in, never typed in

    @admin.display(description=_("name"), ordering="name")
    def device_name(self, obj):
        return obj.name

    @admin.display(description=_("user"), ordering="user__username")
    def owner(self, obj):
        return obj.user.get_username()

    @admin.display(description=_("confirmed"), boolean=True, ordering="confirmed")
    def is_confirmed(self, obj):
        return obj.confirmed

    @admin.display(description=_("created at"), ordering="created_at")
    def created(self, obj):
        return obj.created_at

    @admin.display(description=_("last used at"), ordering="last_used_at")
    def last_used(self, obj):
        return obj.last_used_at
