from django.urls import path

from . import api

urlpatterns = [
    path("orders", api.TraderOrderListView.as_view()),
    path("orders/<str:order_id>/confirm", api.TraderOrderConfirmView.as_view()),
    path("orders/<str:order_id>/cancel", api.TraderOrderCancelView.as_view()),
    path("orders/<str:order_id>/receipts", api.TraderOrderReceiptsView.as_view()),
    path(
        "orders/<str:order_id>/receipts/<str:receipt_id>",
        api.TraderOrderReceiptView.as_view(),
    ),
]
