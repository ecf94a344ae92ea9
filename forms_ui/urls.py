from django.urls import path

from . import sandbox_views, views

urlpatterns = [
    path("", views.form_page, name="form-page"),
    path("status", views.form_status, name="form-status"),
    path("choose", views.form_choose, name="form-choose"),
    path("paid", views.form_paid, name="form-paid"),
    path("again", views.form_choose_again, name="form-choose-again"),
    path("receipt", views.form_receipt, name="form-receipt"),
    path("sandbox", sandbox_views.form_sandbox, name="form-sandbox"),
]
