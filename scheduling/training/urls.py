from django.urls import path

from scheduling.training import views as v

urlpatterns = [
    path("clusters/<int:pk>/training/start", v.session_start, name="training-start"),
    path("clusters/<int:pk>/training/ask-edit", v.ask_edit, name="training-ask-edit"),
    path("clusters/<int:pk>/training/ask-step", v.ask_step, name="training-ask-step"),
    path("clusters/<int:pk>/training/ask-pool", v.ask_pool, name="training-ask-pool"),
    path("clusters/<int:pk>/script", v.script_fragment, name="training-script"),
    path("clusters/<int:pk>/script/<slug:action>", v.script_action, name="training-script-action"),
    path("clusters/<int:pk>/rewind", v.rewind, name="training-rewind"),
    path("clusters/<int:pk>/fork-at", v.fork_at, name="training-fork-at"),
    path("clusters/<int:pk>/restart", v.restart, name="training-restart"),
    path("scenarios/<slug:name>/clean", v.clean_copies, name="scenario-clean"),
    path("training/join", v.join, name="training-join"),
    path("training/join/<str:code>", v.join, name="training-join-code"),
    path("training/<str:code>/", v.console, name="training-console"),
    path("training/<str:code>/qr.svg", v.qr_code, name="training-qr"),
    path("training/<str:code>/view", v.view_state, name="training-view"),
    path("training/<str:code>/follow", v.follow_again, name="training-follow"),
    path("training/<str:code>/presence", v.presence, name="training-presence"),
    path("training/<str:code>/question", v.question_fragment, name="training-question"),
    path("training/<str:code>/questions/<int:question_id>/answer", v.answer, name="training-answer"),
    path("training/<str:code>/questions/<int:question_id>/<slug:action>", v.question_action, name="training-question-action"),
    path("training/<str:code>/close", v.session_close, name="training-close"),
    path("training/<str:code>/ended", v.ended, name="training-ended"),
]
