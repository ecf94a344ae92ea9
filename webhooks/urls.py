from django.urls import path

from . import api

urlpatterns = [
    path("events", api.EventCollectionView.as_view()),
    path("events/<str:event_id>", api.EventDetailView.as_view()),
    path("webhooks/deliveries", api.DeliveryCollectionView.as_view()),
    path("webhooks/deliveries/<str:delivery_id>", api.DeliveryDetailView.as_view()),
    path("webhooks/deliveries/<str:delivery_id>/resend", api.DeliveryResendView.as_view()),
    path("webhooks/endpoints", api.EndpointsView.as_view()),
    path("webhooks/secret/rotate", api.SecretRotateView.as_view()),
]
