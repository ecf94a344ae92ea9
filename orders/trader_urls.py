from django.urls import path

from . import trader_api

urlpatterns = [
    path("orders", trader_api.TraderOrderListView.as_view()),
    path("orders/<str:order_id>/confirm", trader_api.TraderOrderConfirmView.as_view()),
    path("orders/<str:order_id>/cancel", trader_api.TraderOrderCancelView.as_view()),
    path("orders/<str:order_id>/receipts", trader_api.TraderOrderReceiptsView.as_view()),
    path(
        "orders/<str:order_id>/receipts/<str:receipt_id>",
        trader_api.TraderOrderReceiptView.as_view(),
    ),
]
