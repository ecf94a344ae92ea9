from django.urls import path

from . import sandbox_api

urlpatterns = [
    path("order/<str:order_id>/simulate", sandbox_api.SandboxOrderSimulateView.as_view()),
]
