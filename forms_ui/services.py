"""Hosted payment-form sessions (docs/form.md#states).

A session never has its own idea of whether money moved: once it has an order it
follows the order's status. Before that it is a search for requisites: at once when
the method is known, then again by the beat task until the search window closes.
"""

import logging
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.db import DbNow
from core.error_codes import ErrorCode
from core.errors import (
    Conflict,
    InvalidRequest,
    NoAvailableTraders,
    ServiceError,
    TooManyRequests,
)
from finance.models import Side, Terminal
from orders import services as orders
from orders.models import Order, overdue_q

from .models import (
    FINAL_SESSION_STATES,
    ORDER_TO_SESSION,
    SESSION_TRANSITIONS,
    FormSession,
    SessionState,
)
from .offers import canonical_button, check_amount_within_limits, methods_offered

logger = logging.getLogger(__name__)


class SessionStateError(Conflict):
    code = ErrorCode.SESSION_STATE_CONFLICT


def _move(session: FormSession, state: str) -> None:
    if state == session.state:
        return
    if state not in SESSION_TRANSITIONS[session.state]:
        raise SessionStateError(f"The session is {session.state}")
    session.state = state


def session_create(
    *,
    terminal: Terminal,
    client_order_id: str,
    order_side: str,
    amount: Decimal,
    button_name: str | None = None,
    customer_bank: str | None = None,
    unique_amount: bool = False,
    user_id: str | None = None,
    ip_address: str | None = None,
    redirect_url: str | None = None,
    support_url: str | None = None,
    return_url: str | None = None,
) -> FormSession:
    if order_side != Side.BUY:
        raise InvalidRequest(code=ErrorCode.FORM_SELL_NOT_SUPPORTED)
    if not terminal.form_activated:
        raise Conflict(code=ErrorCode.FORM_NOT_ACTIVATED)
    button = canonical_button(button_name)
    method = None
    if button is not None:
        method = orders.method_offered_as_button(terminal=terminal, button_name=button)
        if method is None:
            raise InvalidRequest(
                f"Button {button} is not configured for this terminal",
                code=ErrorCode.BUTTON_NOT_OFFERED,
            )
    if customer_bank is not None:
        customer_bank = orders.customer_bank_normalize(
            customer_bank.strip(), field="order_data.customer_bank"
        )
    check_amount_within_limits(terminal=terminal, method=method, amount=amount)
    orders.antifraud_check(terminal=terminal, user_id=user_id)

    now = timezone.now()
    session = FormSession(
        terminal=terminal,
        client_order_id=client_order_id,
        order_side=Side.BUY,
        amount=amount,
        currency=terminal.currency,
        button_name=button,
        method=method,
        customer_bank=customer_bank,
        unique_amount=unique_amount,
        user_id=user_id,
        ip_address=ip_address,
        redirect_url=redirect_url,
        support_url=support_url,
        return_url=return_url,
        selection=method is None,
        state=SessionState.METHOD_SELECTION if method is None else SessionState.REQUISITES_SEARCH,
        expires_at=now + timedelta(seconds=settings.FORM_SESSION_TTL_SECONDS),
    )
    # Without a method the window is the one the payer would have if they chose at
    # once; choosing opens it again from that moment.
    _open_search_window(session, now)
    session.save(force_insert=True)
    if method is not None:
        session = session_search(session_id=session.pk)
    return session


def _open_search_window(session: FormSession, now) -> None:
    session.requisites_request_starts_at = now
    session.requisites_request_expires_at = now + timedelta(
        seconds=settings.FORM_SEARCH_WINDOW_SECONDS
    )


def session_choose_method(*, session_id: str, method_id) -> FormSession:
    with transaction.atomic():
        session = (
            FormSession.objects.select_for_update(of=("self",))
            .select_related("terminal")
            .get(pk=session_id)
        )
        session = _sync_locked(session)
        if session.state != SessionState.METHOD_SELECTION:
            raise SessionStateError(f"The session is {session.state}")
        offered = {
            str(m.pk): m for m in methods_offered(terminal=session.terminal, amount=session.amount)
        }
        method = offered.get(str(method_id))
        if method is None:
            raise InvalidRequest(code=ErrorCode.METHOD_NOT_OFFERED)
        session.method = method
        _move(session, SessionState.REQUISITES_SEARCH)
        _open_search_window(session, timezone.now())
        session.save()
    return session_search(session_id=session.pk)


def _retry_due(session: FormSession, now) -> bool:
    return session.last_search_at is None or session.last_search_at <= now - timedelta(
        seconds=settings.FORM_SEARCH_RETRY_SECONDS
    )


def session_search(*, session_id: str, retry: bool = False) -> FormSession:
    """One requisite search attempt: an order is created, or the window runs on.

    A retry (beat task, page poll) is skipped when another caller searched less than
    one retry interval ago, so overlapping callers do not hammer the matcher.
    """
    with transaction.atomic():
        session = (
            FormSession.objects.select_for_update(of=("self",))
            .select_related("terminal", "method")
            .get(pk=session_id)
        )
        if session.state != SessionState.REQUISITES_SEARCH:
            return session
        now = timezone.now()
        if retry and not _retry_due(session, now):
            return session
        if now >= session.expires_at:
            _move(session, SessionState.EXPIRED)
            session.save()
            return session
        session.search_count += 1
        session.last_search_at = now
        try:
            order = orders.order_create(
                terminal=session.terminal,
                client_order_id=session.client_order_id,
                side=Side.BUY,
                amount=session.amount,
                payment_method_id=str(session.method_id),
                customer_bank=session.customer_bank,
                user_id=session.user_id,
                unique_amount=session.unique_amount,
                actor=f"payer:{session.pk}",
            )
        except (NoAvailableTraders, TooManyRequests):
            if now >= session.requisites_request_expires_at:
                _move(session, SessionState.REQUISITES_NOT_FOUND)
        except ServiceError as exc:
            # The method went away or the amount left its limits: nothing to retry.
            logger.info("Form session %s search refused: %s", session.pk, exc.message)
            _move(session, SessionState.REQUISITES_NOT_FOUND)
        else:
            session.order = order
            # From here the session lives as long as its order does.
            session.expires_at = order.expires_at
            _move(session, SessionState.REQUISITES_FOUND)
        session.save()
    return session


def session_refresh(*, session_id: str) -> FormSession:
    """What a payer's read does: a due search attempt, or catching up with the order.

    The beat task retries searches too; doing it on the page's poll as well keeps the
    form moving when the beat is late.
    """
    session = session_sync(session_id=session_id)
    if session.state == SessionState.REQUISITES_SEARCH and _retry_due(session, timezone.now()):
        session = session_search(session_id=session_id, retry=True)
    return session


def form_session_for_order(options: dict) -> Callable[[Order], str]:
    """order_create's `form_session` step for an order_with_form terminal's H2H order
    (the project's URLs give it to the order API): the session, in the same
    transaction, and its form_url."""
    return lambda order: session_for_order(order=order, options=options)


def session_for_order(*, order: Order, options: dict) -> str:
    """An order_with_form terminal's H2H order gets its session in the same transaction."""
    now = timezone.now()
    session = FormSession.objects.create(
        terminal=order.terminal,
        order=order,
        client_order_id=order.client_order_id,
        order_side=Side.BUY,
        amount=order.amount,
        currency=order.currency,
        method=order.method,
        customer_bank=order.customer_bank,
        unique_amount=bool(options.get("unique_amount", order.amount != order.requested_amount)),
        user_id=order.user_id,
        ip_address=options.get("ip_address"),
        redirect_url=options.get("redirect_url"),
        support_url=options.get("support_url"),
        return_url=options.get("return_url"),
        state=SessionState.REQUISITES_FOUND,
        selection=False,
        search_count=1,
        last_search_at=now,
        requisites_request_starts_at=now,
        requisites_request_expires_at=now,
        expires_at=order.expires_at,
    )
    return form_url(session)


def session_success_shown(*, session: FormSession):
    """The moment the payer first saw the success screen, recorded now if this is it."""
    if session.success_shown_at is None:
        now = timezone.now()
        # Two tabs may render it at once: the first write wins, the other reads it.
        recorded = FormSession.objects.filter(pk=session.pk, success_shown_at__isnull=True).update(
            success_shown_at=now
        )
        session.success_shown_at = (
            now
            if recorded
            else FormSession.objects.values_list("success_shown_at", flat=True).get(pk=session.pk)
        )
    return session.success_shown_at


def form_url(session: FormSession) -> str:
    return f"{settings.PUBLIC_BASE_URL}/form/?session_id={session.pk}"


def session_mark_paid(*, session_id: str) -> FormSession:
    with transaction.atomic():
        session = (
            FormSession.objects.select_for_update(of=("self",))
            .select_related("order")
            .annotate(db_clock=DbNow())
            .get(pk=session_id)
        )
        session = _sync_locked(session)
        if session.state == SessionState.PAYMENT_CONFIRMATION:
            return session
        _move(session, SessionState.PAYMENT_CONFIRMATION)
        session.payment_confirmation_starts_at = timezone.now()
        session.payment_confirmation_expires_at = session.order.expires_at
        session.save()
    return session


def shown_state(session: FormSession) -> str:
    """The state as it is right now, whether or not the sweep has written it yet."""
    now = timezone.now()
    if session.order_id is not None:
        target = ORDER_TO_SESSION.get(_order_shown_status(session))
        if target and (target == session.state or target in SESSION_TRANSITIONS[session.state]):
            return target
        return session.state
    if (
        session.state in (SessionState.METHOD_SELECTION, SessionState.REQUISITES_SEARCH)
        and now >= session.expires_at
    ):
        return SessionState.EXPIRED
    if (
        session.state == SessionState.REQUISITES_SEARCH
        and session.requisites_request_expires_at is not None
        and now
        >= session.requisites_request_expires_at
        + timedelta(seconds=settings.FORM_SEARCH_RETRY_SECONDS)
    ):
        # The beat task makes the last attempt when the window closes; a reader
        # that comes later than one retry interval after that knows the outcome.
        return SessionState.REQUISITES_NOT_FOUND
    return session.state


def _order_shown_status(session: FormSession) -> str:
    """The order's shown status by the database's time: the one read with the session
    (`db_clock`, annotated by the callers that read sessions), else the order's own."""
    order = session.order
    clock = getattr(session, "db_clock", None)
    if clock is not None and getattr(order, "db_clock", None) is None:
        order.db_clock = clock
    return order.shown_status


def _sync_locked(session: FormSession) -> FormSession:
    state = shown_state(session)
    if state != session.state:
        _move(session, state)
        session.save(update_fields=["state", "updated_at"])
    return session


def session_sync(*, session_id: str) -> FormSession:
    """Write down what the order (or the clock) already decided."""
    session = (
        FormSession.objects.select_related("terminal", "method", "order", "order__method")
        .annotate(db_clock=DbNow())
        .get(pk=session_id)
    )
    if shown_state(session) == session.state:
        return session
    with transaction.atomic():
        session = (
            FormSession.objects.select_for_update(of=("self",))
            .select_related("terminal", "method", "order", "order__method")
            .annotate(db_clock=DbNow())
            .get(pk=session_id)
        )
        return _sync_locked(session)


def sessions_sync_due(*, limit: int = 200) -> int:
    """The beat task: retry searches, close windows, follow orders, expire sessions."""
    now = timezone.now()
    retry_before = now - timedelta(seconds=settings.FORM_SEARCH_RETRY_SECONDS)
    touched = 0
    searching = FormSession.objects.filter(state=SessionState.REQUISITES_SEARCH).filter(
        Q(last_search_at__isnull=True) | Q(last_search_at__lte=retry_before)
    )
    for session_id in list(searching.values_list("pk", flat=True)[:limit]):
        session_search(session_id=session_id, retry=True)
        touched += 1
    following = (
        FormSession.objects.filter(order__isnull=False)
        .exclude(state__in=FINAL_SESSION_STATES)
        .filter(order__status__in=list(ORDER_TO_SESSION))
    )
    expiring = FormSession.objects.filter(
        order__isnull=True, state=SessionState.METHOD_SELECTION, expires_at__lte=now
    )
    overdue_orders = FormSession.objects.filter(
        overdue_q(path="order__"), order__isnull=False
    ).exclude(state__in=FINAL_SESSION_STATES)
    for qs in (following, expiring, overdue_orders):
        for session_id in list(qs.values_list("pk", flat=True)[:limit]):
            session_sync(session_id=session_id)
            touched += 1
    return touched
