"""What a person of the back office may do, kept by each process between requests.

Django's ModelBackend reads a person's permissions afresh on every request: two
statements joining permissions, content types and groups, which PostgreSQL plans each
time (about 2.5 ms of every admin page and action, more than the action's own work).
KeptPermissionsBackend keeps the answer in a core.memo entry under the configuration
generation, read in one trip to the cache: a change to anyone's permissions or groups,
or to a group's permissions, makes every entry stale (this process's at once, every
other's once it commits), and entries age out after memo.MAX_AGE seconds in any case.
Whether the person is active is read from the person's own row on every request, as
before; a superuser's answer is kept apart from the same person's without the flag.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission
from django.db.models.signals import m2m_changed, post_delete, post_save

from . import memo

_KEPT = memo.Memo("permissions", plain=True)


class KeptPermissionsBackend(ModelBackend):
    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            key = (user_obj.pk, user_obj.is_superuser)
            memo.generation_known()  # read now, unless this request has (get and put need it)
            kept = _KEPT.get(key)
            if kept is None:
                kept = frozenset(super().get_all_permissions(user_obj))
                _KEPT.put(key, kept)
            user_obj._perm_cache = set(kept)
        return user_obj._perm_cache


def _changed(sender, **kwargs):
    memo.changed()


def watch_permissions() -> None:
    """Any change that can change someone's permissions makes the kept ones stale."""
    user = get_user_model()
    throughs = (user.groups.through, user.user_permissions.through, Group.permissions.through)
    for through in throughs:
        uid = f"kept-permissions-{through._meta.label}"
        m2m_changed.connect(_changed, sender=through, dispatch_uid=uid, weak=False)
    for model in (Group, Permission):
        for signal in (post_save, post_delete):
            uid = f"kept-permissions-{model._meta.label}"
            signal.connect(_changed, sender=model, dispatch_uid=uid, weak=False)
