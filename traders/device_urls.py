from django.urls import path

from . import device_api

urlpatterns = [
    path("notifications", device_api.NotificationView.as_view()),
    path("heartbeat", device_api.HeartbeatView.as_view()),
]
