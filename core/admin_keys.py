from django.contrib import admin, messages
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from .admin_site import operator_note

# A key issued from its owner's page: its name, and the note in the owner's history.
ISSUED_BY = _("issued by %(user)s")
ISSUED = _("Issued API key %(prefix)s…")


def issue_keys(model_admin, request, owners, issue) -> None:
    """A new key for each owner (`issue(owner, name)` returns the key and its raw
    text), noted in the owner's history and shown once in a message."""
    name = operator_note(ISSUED_BY, user=request.user.get_username())
    for owner in owners:
        key, raw = issue(owner, name)
        model_admin.log_change(request, owner, operator_note(ISSUED, prefix=key.key_prefix))
        messages.warning(
            request,
            gettext("New key for {name}: {key} — copy it now, it is not shown again.").format(
                name=owner.name, key=raw
            ),
        )


class KeyInline(admin.TabularInline):
    """API keys beside their owner: listed, never typed in or shown (only a prefix)."""

    extra = 0
    fields = ["key_prefix", "name", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class KeyAdmin(admin.ModelAdmin):
    """Keys of one kind of owner: searchable, revocable one by one, never typed in and
    never moved to another owner. `owner` names the key's foreign key to its owner;
    `revoke_key` is the service that revokes one key."""

    owner = ""
    actions = ["revoke"]
    ordering = ["-created_at"]

    @staticmethod
    def revoke_key(*, key):
        raise NotImplementedError

    def get_list_display(self, request):
        return ["key_prefix", self.owner, "name", "created_at", "last_used_at", "revoked_at"]

    def get_list_filter(self, request):
        return [("revoked_at", admin.EmptyFieldListFilter), self.owner]

    def get_search_fields(self, request):
        return ["key_prefix", "name", f"{self.owner}__name"]

    def get_fields(self, request, obj=None):
        return [self.owner, "name", "key_prefix", "created_at", "last_used_at", "revoked_at"]

    def get_readonly_fields(self, request, obj=None):
        return [self.owner, "key_prefix", "created_at", "last_used_at", "revoked_at"]

    def has_add_permission(self, request):
        return False  # keys are generated from their owner's page, never typed in

    @admin.action(description=_("Revoke selected keys"), permissions=["change"])
    def revoke(self, request, queryset):
        revoked = 0
        for key in queryset.filter(revoked_at__isnull=True):
            self.revoke_key(key=key)
            self.log_change(request, key, operator_note(_("Revoked")))
            revoked += 1
        messages.success(
            request, ngettext("Revoked %d key.", "Revoked %d keys.", revoked) % revoked
        )
