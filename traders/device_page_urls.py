"""The cabinet's devices page, under /trader/devices/."""

from django.urls import path

from . import device_pages

urlpatterns = [
    path("", device_pages.devices_page, name="trader-devices"),
    path("add/", device_pages.device_add_view, name="trader-device-add"),
    path("<str:device_id>/requisites/", device_pages.device_bind_view, name="trader-device-bind"),
    path("<str:device_id>/remove/", device_pages.device_remove_view, name="trader-device-remove"),
    path(
        "notifications/<str:notification_id>/attach/",
        device_pages.notification_attach_view,
        name="trader-notification-attach",
    ),
]
