from django.urls import path

from . import books_api

urlpatterns = [
    path("balance", books_api.TraderBalanceView.as_view()),
    path("transactions", books_api.TraderTransactionsView.as_view()),
]
