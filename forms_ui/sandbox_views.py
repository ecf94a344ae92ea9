"""The sandbox's two buttons on a sandbox session's page (docs/sandbox.md): the payer's
page acts as the trader would, through the orders' lifecycle with actor sandbox.
Plain form posts with CSRF, so they work without script."""

from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from core.errors import ServiceError
from orders.services import SandboxAction, order_simulate

from .texts import language_for
from .views import _missing, _page_url, _session_or_none

BUTTON_ACTIONS = {"complete": SandboxAction.COMPLETE, "decline": SandboxAction.CANCEL}


@require_POST
def form_sandbox(request):
    session = _session_or_none(request.POST.get("session_id"))
    # Live sessions have no such buttons, and no such page behind them.
    if session is None or session.order is None or session.order.livemode:
        return _missing(request)
    action = BUTTON_ACTIONS.get(request.POST.get("action", ""))
    if action is not None:
        try:
            order_simulate(order=session.order, action=action)
        except ServiceError:
            pass  # already closed: the page shows the state the order is in
    return redirect(_page_url(session.pk, language_for(request)))
