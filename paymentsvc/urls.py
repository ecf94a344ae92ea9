from django.contrib import admin
from django.urls import include, path, re_path, reverse_lazy
from django.utils.translation import gettext_lazy as _
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from core import metrics
from core.admin_2fa import two_factor
from core.admin_login import throttled_admin_login
from core.fallback import api_fallback
from finance.api import BanksView, TerminalView
from forms_ui.services import form_session_for_order
from orders.api import OrderCollectionView

from . import health
from .ping import PingView

# The back office names the service, and its "view site" link opens the dashboard.
admin.site.site_header = _("Payment orders service: back office")
admin.site.site_title = _("Payment orders service")
admin.site.index_title = _("Back office")
admin.site.site_url = reverse_lazy("operators-dashboard")

api_v1 = [
    path("finance/", include("finance.urls")),
    path("finance/", include("settlements.api_urls")),
    path("order/", OrderCollectionView.as_view(form_session=form_session_for_order)),
    path("order/", include("orders.urls")),
    path("trader/", include("traders.api_urls")),
    path("trader/", include("traders.books_urls")),
    path("terminal", TerminalView.as_view()),
    path("sandbox/", include("orders.sandbox_urls")),
    path("device/", include("traders.device_urls")),
    path("form/", include("forms_ui.api_urls")),
    path("disputes/", include("disputes.urls")),
    path("", include("webhooks.urls")),
    path("ping", PingView.as_view()),
    path("banks", BanksView.as_view()),
]

urlpatterns = [
    path("healthz", health.healthz),
    path("readyz", health.readyz),
    path("metrics", metrics.metrics_view),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/v1/", include(api_v1)),
    re_path(r"^api/", api_fallback),
    path("admin/login/", throttled_admin_login, name="admin-login"),
    path("admin/2fa/", two_factor, name="admin-2fa"),
    path("admin/dashboard/", include("operators.urls")),
    path("admin/settlements/", include("settlements.urls")),
    path("admin/audit/", include("audit.urls")),
    path("admin/i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("form/", include("forms_ui.urls")),
    path("trader/devices/", include("traders.device_page_urls")),
    path("trader/", include("traders.urls")),
]
