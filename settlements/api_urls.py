from django.urls import path

from . import api

urlpatterns = [
    path("withdrawals", api.WithdrawalCollectionView.as_view()),
    path("withdrawals/<str:withdrawal_id>", api.WithdrawalDetailView.as_view()),
]
