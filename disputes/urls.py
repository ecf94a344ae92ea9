from django.urls import path

from . import api

urlpatterns = [
    path("create", api.DisputeCreateView.as_view()),
    path("search", api.DisputeSearchView.as_view()),
]
