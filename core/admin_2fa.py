"""Two-factor sign-in for staff (django-otp, TOTP).

The sign-in form asks for the code of a staff member who has a confirmed device and
checks it with the password (a wrong code counts as a failed sign-in). One who has none
yet signs in with the password and is sent to `/admin/2fa/` before anything else: a QR
code for an authenticator app, and the first code it shows confirms the device.
"""

from base64 import b32encode

import segno
from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_otp import login as otp_login
from django_otp import user_has_device
from django_otp.forms import OTPAuthenticationFormMixin
from django_otp.plugins.otp_totp.models import TOTPDevice


class SignInCodeFields(forms.Form, OTPAuthenticationFormMixin):
    """The authenticator's code beside a sign-in form's password; `check_code()` from
    the form's clean() checks it when two-factor sign-in is on and the user has a
    confirmed device (one authenticator each: its code is checked without asking which)."""

    otp_device = forms.CharField(required=False, widget=forms.HiddenInput)
    otp_token = forms.CharField(
        required=False,
        label=gettext_lazy("Authentication code"),
        max_length=8,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )
    otp_challenge = forms.CharField(required=False, widget=forms.HiddenInput)

    def check_code(self, *, enabled: bool) -> None:
        user = self.get_user()
        if enabled and user is not None and user_has_device(user):
            device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
            self.cleaned_data["otp_device"] = device.persistent_id if device else ""
            self.clean_otp(user)


class AdminSignInForm(AdminAuthenticationForm, SignInCodeFields):
    """Password, and with ADMIN_2FA on, the code of an enrolled staff member's device."""

    def clean(self):
        cleaned = super().clean()
        self.check_code(enabled=settings.ADMIN_2FA)
        return cleaned


class CodeForm(forms.Form):
    otp_token = forms.RegexField(
        regex=r"^\s*\d{6}\s*$",
        label=gettext_lazy("Code from the app"),
        error_messages={"invalid": gettext_lazy("Enter the six digits the app shows.")},
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )


def _next_url(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/admin/"


@staff_member_required
def two_factor(request):
    """Enrol a TOTP device (QR code), or give a code for the one already confirmed."""
    device, form, done = second_factor_step(request)
    if done:
        return redirect(_next_url(request))
    context = {
        **admin.site.each_context(request),
        "title": _("Two-factor sign-in"),
        **enrolment_context(device),
        "form": form,
        "next": _next_url(request),
    }
    return TemplateResponse(request, "admin/two_factor.html", context)


def second_factor_step(request) -> tuple[TOTPDevice, CodeForm, bool]:
    """The signed-in user's authenticator (made, unconfirmed, on the first visit) and
    the code form; a POST with the code it shows now confirms the device and marks the
    session verified (the third value True)."""
    user = request.user
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    if device is None:
        device = TOTPDevice.objects.filter(user=user, confirmed=False).first()
        if device is None:
            device = TOTPDevice.objects.create(user=user, name="Authenticator", confirmed=False)
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if device.verify_token(form.cleaned_data["otp_token"].strip()):
            if not device.confirmed:
                device.confirmed = True
                device.save(update_fields=["confirmed"])
            otp_login(request, device)
            return device, form, True
        form.add_error("otp_token", _("That code is not valid. Try the one the app shows now."))
    return device, form, False


def enrolment_context(device: TOTPDevice) -> dict:
    """What an enrolment page shows: the QR code and the key, until it is confirmed."""
    enrolling = not device.confirmed
    return {
        "enrolling": enrolling,
        "qr_svg": segno.make(device.config_url, error="m").svg_inline(scale=4) if enrolling else "",
        "secret": b32encode(device.bin_key).decode() if enrolling else "",
    }
