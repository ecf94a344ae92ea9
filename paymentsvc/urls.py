from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from core import metrics
from core.admin_2fa import two_factor
from core.admin_login import throttled_admin_login
from core.fallback import api_fallback

from . import health
from .ping import PingView

api_v1 = [
    path("finance/", include("finance.urls")),
    path("order/", include("orders.urls")),
    path("trader/", include("traders.api_urls")),
    path("sandbox/", include("orders.sandbox_urls")),
    path("device/", include("traders.device_urls")),
    path("form/", include("forms_ui.api_urls")),
    path("disputes/", include("disputes.urls")),
    path("", include("webhooks.urls")),
    path("ping", PingView.as_view()),
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
    path("admin/", admin.site.urls),
    path("form/", include("forms_ui.urls")),
    path("trader/devices/", include("traders.device_page_urls")),
    path("trader/", include("traders.urls")),
]
