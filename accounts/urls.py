from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("relief/", views.relief_claim, name="relief"),
    path("sounds/", views.sounds_set, name="sounds"),
    path("phrases/", views.phrases_set, name="phrases"),
]
