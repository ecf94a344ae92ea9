from django.contrib import admin


class KeyInline(admin.TabularInline):
    """API keys beside their owner: listed, never typed in or shown (only a prefix)."""

    extra = 0
    fields = ["key_prefix", "name", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False
