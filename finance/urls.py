from django.urls import path

from . import api

urlpatterns = [
    path("balance", api.BalanceView.as_view()),
    path("transactions", api.TransactionsView.as_view()),
    path("payment_methods", api.PaymentMethodsView.as_view()),
]
