"""The REST API's URL table."""

from django.urls import include, path

from accounts import api as accounts_api
from rooms import api as rooms_api
from wallets import api as wallets_api

urlpatterns = [
    path("me/", accounts_api.MeView.as_view(), name="api-me"),
    path("rooms/", rooms_api.RoomListView.as_view(), name="api-rooms"),
    path("rooms/<slug:slug>/tables/", rooms_api.RoomTablesView.as_view(), name="api-room-tables"),
    path("tables/<int:pk>/", rooms_api.TableView.as_view(), name="api-table"),
    path("tables/<int:pk>/sit/", rooms_api.TableSitView.as_view(), name="api-table-sit"),
    path("tables/<int:pk>/leave/", rooms_api.TableLeaveView.as_view(), name="api-table-leave"),
    path("tables/<int:pk>/start/", rooms_api.TableStartView.as_view(), name="api-table-start"),
    path("tables/<int:pk>/stop/", rooms_api.TableStopView.as_view(), name="api-table-stop"),
    path("tables/<int:pk>/events/", rooms_api.TableEventsView.as_view(), name="api-table-events"),
    path("tables/<int:pk>/proof.json", rooms_api.TableProofView.as_view(), name="api-table-proof"),
    path("wallet/", wallets_api.WalletView.as_view(), name="api-wallet"),
    path("wallet/history/", wallets_api.WalletHistoryView.as_view(), name="api-wallet-history"),
    path("matchmaking/", include("matchmaking.api_urls")),
    path("tournaments/", include("tournaments.api_urls")),
]
