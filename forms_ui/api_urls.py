from django.urls import path

from . import api

urlpatterns = [
    path("create", api.FormCreateView.as_view()),
    path("search", api.FormSearchView.as_view()),
]
