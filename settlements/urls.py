from django.urls import path

from . import views

urlpatterns = [
    path("", views.settlement_list, name="settlements-list"),
    path("new/", views.settlement_new, name="settlements-new"),
    path("<uuid:settlement_id>/approve/", views.settlement_approve, name="settlements-approve"),
    path("<uuid:settlement_id>/reject/", views.settlement_reject, name="settlements-reject"),
]
