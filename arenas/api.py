"""REST API for arenas (thin): list, the live snapshot, join, pause. Under /api/arenas/.
Refusals are ``ArenaError``s, mapped to ``{"code", "message"}`` and their status by ``core.api``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from arenas import selectors, services
from arenas.errors import ArenaError
from arenas.models import Arena


class ArenaSerializer(serializers.ModelSerializer):
    class Meta:
        model = Arena
        fields = ["id", "name", "game", "status", "starts_at", "ends_at", "duration_minutes", "table_seats",
                  "bot_fill_seconds", "currency", "entry_fee", "rake_bps", "payouts"]


def _pk(pk: int) -> int:
    if not Arena.objects.filter(pk=pk).exists():
        raise ArenaError("no_such_arena", "There is no such arena.")
    return pk


class ArenaListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=ArenaSerializer(many=True))
    def get(self, request):
        return Response(ArenaSerializer(selectors.arena_list(), many=True).data)


class ArenaDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=inline_serializer("ArenaSnapshot", {"status": serializers.CharField()}))
    def get(self, request, pk: int):
        return Response(selectors.live_snapshot(arena_id=_pk(pk)))


def _player(player) -> dict:
    return {"player": player.pk, "status": player.status, "score": player.score, "paid": player.paid}


class ArenaJoinView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=inline_serializer("ArenaJoined", {"status": serializers.CharField()}))
    def post(self, request, pk: int):
        return Response(_player(services.join(arena_id=_pk(pk), user=request.user)), status=201)


class ArenaPauseView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=inline_serializer("ArenaPaused", {"status": serializers.CharField()}))
    def post(self, request, pk: int):
        return Response(_player(services.pause(arena_id=_pk(pk), user=request.user)))
