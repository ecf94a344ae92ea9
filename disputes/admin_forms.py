"""The form of the accept/reject confirmation page."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class ResolveForm(forms.Form):
    # A missing comment or confirmation comes back as a message on the page, not as the
    # browser's tooltip an operator may never see.
    use_required_attribute = False

    comment = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        max_length=2000,
        label=_("Comment"),
        help_text=_("Why: kept with the dispute and shown to other operators."),
    )

    def __init__(self, *args, large_claims: list[str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if large_claims:
            # A claim far from the order's amount moves that much money: a second,
            # explicit confirmation that names it.
            self.fields["confirm_money"] = forms.BooleanField(
                required=True,
                label=gettext("I confirm the money that will move: ") + "; ".join(large_claims),
                error_messages={
                    "required": _("Tick this box to confirm the money that will move.")
                },
            )
