from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("relief/", views.relief_claim, name="relief"),
    path("sounds/", views.sounds_set, name="sounds"),
    path("identity/", views.identity_set, name="identity"),
    path("rewards/check-in/", views.check_in, name="check_in"),
    path("rewards/tasks/<slug:kind>/", views.task_claim, name="task_claim"),
    path("phrases/", views.phrases_set, name="phrases"),
]
