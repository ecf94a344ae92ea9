from django.urls import path

from . import api, availability_api

urlpatterns = [
    path("", api.OrderCollectionView.as_view()),
    path("availability", availability_api.OrderAvailabilityView.as_view()),
    path("search-by-client-order-id", api.OrderSearchByClientIdView.as_view()),
    path("<str:order_id>", api.OrderDetailView.as_view()),
    path("<str:order_id>/cancel", api.OrderCancelView.as_view()),
]
