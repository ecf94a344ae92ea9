from django.urls import path, re_path

from . import balance_page, login, views
from .access import in_cabinet_language, page_missing

urlpatterns = [
    path("login/", login.sign_in, name="trader-login"),
    path("logout/", login.sign_out, name="trader-logout"),
    path("2fa/", login.two_factor, name="trader-2fa"),
    path("", views.orders_page, name="trader-orders"),
    path("orders/live/", views.orders_live, name="trader-orders-live"),
    path("orders/<str:order_id>/confirm/", views.order_confirm, name="trader-order-confirm"),
    path("orders/<str:order_id>/decline/", views.order_decline, name="trader-order-decline"),
    path(
        "orders/<str:order_id>/receipts/<str:receipt_id>/",
        views.order_receipt,
        name="trader-order-receipt",
    ),
]
urlpatterns += [
    path("requisites/", views.requisites_page, name="trader-requisites"),
    path(
        "requisites/<str:requisite_id>/toggle/",
        views.requisite_toggle,
        name="trader-requisite-toggle",
    ),
    path("stats/", views.stats_page, name="trader-stats"),
]
urlpatterns += [
    path("balance/", balance_page.balance_page, name="trader-balance"),
]
# Any other address under /trader/ that ends in a slash (one without is first sent to
# its slashed form, as everywhere): the cabinet's own 404 page, in its language.
urlpatterns += [re_path(r"^.*/$", in_cabinet_language(page_missing))]
