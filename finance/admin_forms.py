"""The finance admin's forms: the checks a terminal, a payment method, a manual
adjustment or a blacklisted account must pass before the admin saves it."""

import json

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.errors import ServiceError
from core.formats import http_url_problem

from . import services
from .accounts import normalize_account
from .models import (
    WEBHOOK_URL_MAX_LENGTH,
    WEBHOOK_URLS_MAX,
    BlacklistedAccount,
    MethodType,
    PaymentMethod,
    Terminal,
)


class TerminalMethodFormSet(forms.BaseInlineFormSet):
    def clean(self):
        """One method per button on a terminal, checked across the rows being saved
        (the database constraint would otherwise surface as an error page)."""
        super().clean()
        seen = {}
        for form in self.forms:
            data = getattr(form, "cleaned_data", None) or {}
            button = data.get("button_name")
            if not button or data.get("DELETE"):
                continue
            if button in seen:
                raise ValidationError(
                    gettext("The {button} button is given to two methods.").format(button=button)
                )
            seen[button] = form


class UrlLinesField(forms.Field):
    """A list of URLs typed one per line (a JSON list is understood too)."""

    widget = forms.Textarea(
        attrs={"rows": 3, "cols": 80, "placeholder": "https://shop.example/hooks"}
    )

    def prepare_value(self, value):
        if isinstance(value, list):
            return "\n".join(str(v) for v in value)
        return value

    def to_python(self, value):
        text = (value or "").strip() if isinstance(value, str) else value
        if not text:
            return []
        if not isinstance(text, str):
            return text
        if text[0] in '[{"':
            try:
                return json.loads(text)
            except ValueError:
                raise ValidationError(
                    gettext("One URL per line, or a JSON list of URLs.")
                ) from None
        return [line.strip() for line in text.splitlines() if line.strip()]


class TerminalForm(forms.ModelForm):
    webhook_urls = UrlLinesField(
        required=False,
        label=_("Webhook URLs"),
        help_text=_("One URL per line; every order's events are sent to each."),
    )

    class Meta:
        model = Terminal
        fields = [
            "client",
            "name",
            "currency",
            "integration_type",
            "form_activated",
            "webhook_urls",
            "antifraud_max_pending",
            "is_active",
            "sandbox",
        ]

    def clean_webhook_urls(self):
        urls = self.cleaned_data.get("webhook_urls")
        if urls in (None, ""):
            return []
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise ValidationError(
                gettext('A JSON list of URLs, e.g. ["https://shop.example/hooks"].')
            )
        if len(urls) > WEBHOOK_URLS_MAX:
            raise ValidationError(gettext("At most {count} URLs.").format(count=WEBHOOK_URLS_MAX))
        for url in urls:
            if http_url_problem(url, max_length=WEBHOOK_URL_MAX_LENGTH):
                raise ValidationError(
                    gettext(
                        "{url}: an address beginning with http:// or https:// is needed, "
                        "with no spaces, of at most {count} characters."
                    ).format(url=url, count=WEBHOOK_URL_MAX_LENGTH)
                )
        return urls


class FeeRangeFormSet(forms.BaseInlineFormSet):
    def clean(self):
        super().clean()
        kept = []
        for form in self.forms:
            data = getattr(form, "cleaned_data", None) or {}
            if data and not data.get("DELETE"):
                kept.append(data)
        try:
            services.fee_ranges_check(kept)
        except ServiceError as exc:
            raise ValidationError(exc.message) from exc


class PaymentMethodForm(forms.ModelForm):
    class Meta:
        model = PaymentMethod
        fields = [
            "name",
            "method_type",
            "currency",
            "nspk_code",
            "is_aggregate",
            "is_active",
            "bank_slug",
            "deeplink_template",
            "hint_ru",
            "hint_en",
        ]

    def clean_deeplink_template(self):
        template = self.cleaned_data.get("deeplink_template") or ""
        problem = services.deeplink_template_problem(template)
        if problem:
            raise ValidationError(problem)
        return template


class AdjustForm(forms.Form):
    amount = forms.DecimalField(
        max_digits=14,  # twelve before the point, as every amount (core.amounts)
        decimal_places=2,
        label=_("Amount"),
        help_text=_("Positive: top-up. Negative: withdrawal."),
    )
    comment = forms.CharField(
        max_length=500,
        label=_("Comment"),
        help_text=_("Shown to the merchant as client_description"),
    )

    def clean_amount(self):
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise ValidationError(gettext("Amount must not be zero"))
        return amount


class BlacklistForm(forms.ModelForm):
    class Meta:
        model = BlacklistedAccount
        fields = ["account", "comment"]

    def clean_account(self):
        raw = self.cleaned_data["account"]
        for method_type in (MethodType.SBP, MethodType.BANK_CARD):
            try:
                return normalize_account(raw, method_type)
            except ServiceError:
                continue
        raise ValidationError(gettext("Enter a Russian phone number (+7…) or a card number"))
