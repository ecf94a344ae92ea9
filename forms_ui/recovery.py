"""The payer's ways on from a dead end: after a search that found no requisites the
payer may pick another method while the session has time left (docs/form.md)."""

from django.db import transaction
from django.utils import timezone

from .models import FormSession, SessionState
from .services import SessionStateError


def session_can_choose_again(session: FormSession) -> bool:
    """Only a session whose payer chose the method (no button), which has no order and
    still has time left."""
    return (
        session.state == SessionState.REQUISITES_NOT_FOUND
        and session.selection
        and not session.button_name
        and session.order_id is None
        and session.expires_at > timezone.now()
    )


def session_choose_again(*, session_id: str) -> FormSession:
    """Back to method selection from `requisites_not_found`."""
    with transaction.atomic():
        session = FormSession.objects.select_for_update(of=("self",)).get(pk=session_id)
        if not session_can_choose_again(session):
            raise SessionStateError(f"The session is {session.state}")
        session.state = SessionState.METHOD_SELECTION
        session.method = None
        session.requisites_request_starts_at = None
        session.requisites_request_expires_at = None
        session.save()
    return session
