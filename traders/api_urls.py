from django.urls import path

from . import account_api, api

urlpatterns = [
    path("orders", api.TraderOrderListView.as_view()),
    path("orders/<str:order_id>/confirm", api.TraderOrderConfirmView.as_view()),
    path("orders/<str:order_id>/cancel", api.TraderOrderCancelView.as_view()),
    path("orders/<str:order_id>/receipts", api.TraderOrderReceiptsView.as_view()),
    path(
        "orders/<str:order_id>/receipts/<str:receipt_id>",
        api.TraderOrderReceiptView.as_view(),
    ),
    path("me", account_api.TraderMeView.as_view()),
    path("requisites", account_api.TraderRequisiteListView.as_view()),
    path("requisites/<str:requisite_id>/enable", account_api.TraderRequisiteEnableView.as_view()),
    path("requisites/<str:requisite_id>/disable", account_api.TraderRequisiteDisableView.as_view()),
    path("stats", account_api.TraderStatsView.as_view()),
]
