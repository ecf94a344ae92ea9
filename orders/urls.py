from django.urls import path

from . import api, availability_api

# The collection ("", create and list) is routed by the project's URLs, which give it
# the payment form's step (api.OrderCollectionView.form_session).
urlpatterns = [
    path("availability", availability_api.OrderAvailabilityView.as_view()),
    path("search-by-client-order-id", api.OrderSearchByClientIdView.as_view()),
    path("<str:order_id>", api.OrderDetailView.as_view()),
    path("<str:order_id>/cancel", api.OrderCancelView.as_view()),
]
