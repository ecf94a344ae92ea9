from django.urls import path

from . import revenue, views

urlpatterns = [
    path("", views.dashboard, name="operators-dashboard"),
    path("revenue/", revenue.revenue_view, name="operators-revenue"),
]
