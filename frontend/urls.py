from django.urls import path

from frontend import views

app_name = "frontend"
urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("rooms/<slug:slug>/bots/", views.play_bots, name="play-bots"),
    path("rooms/<slug:slug>/private/", views.open_private, name="open-private"),
    path("tables/<int:table_id>/", views.table, name="table"),
    path("tables/<int:table_id>/sit/", views.table_sit, name="table-sit"),
    path("tables/<int:table_id>/leave/", views.table_leave, name="table-leave"),
    path("tables/<int:table_id>/add-bot/", views.table_add_bot, name="table-add-bot"),
    path("tables/<int:table_id>/start/", views.table_start, name="table-start"),
    path("tables/<int:table_id>/stop/", views.table_stop, name="table-stop"),
    path("tables/<int:table_id>/money.json", views.table_money, name="table-money"),
    path("tables/<int:table_id>/proof", views.proof, name="proof"),
    path("tables/<int:table_id>/proof.json", views.proof_json, name="proof-json"),
    path("tables/<int:table_id>/replay", views.replay, name="replay"),
    path("tables/<int:table_id>/hands.json", views.table_hands, name="table-hands"),
    path("proof/verify_proof.py", views.verify_proof_tool, name="verify-proof-tool"),
    path("proof/verify_proof.zip", views.verify_proof_bundle, name="verify-proof-bundle"),
    path("wallet/", views.wallet, name="wallet"),
]
