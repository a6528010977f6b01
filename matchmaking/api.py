"""REST API for matchmaking (thin): queue, play again, private tables, leaderboards. Errors are {code, message}."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import ApiError, ErrorSerializer, StrictIntegerField
from matchmaking import selectors, services
from rooms.models import Game, Room

QueueFrame = inline_serializer("QueueFrame", {"type": serializers.CharField(), "status": serializers.CharField(),
                                              "room": serializers.CharField(required=False),
                                              "position": serializers.IntegerField(required=False),
                                              "estimated_wait": serializers.IntegerField(required=False)})


def _room(slug) -> Room:
    room = Room.objects.filter(slug=slug).first() if isinstance(slug, str) and len(slug) <= 50 else None
    if room is None:
        raise ApiError("no_such_room", "There is no such room.")
    return room


class JoinSerializer(serializers.Serializer):
    room = serializers.SlugField(max_length=50)


class QueueView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=QueueFrame)
    def get(self, request):
        return Response(selectors.queue_frame(entry=selectors.latest_entry(user=request.user)))

    @extend_schema(request=JoinSerializer, responses={201: QueueFrame, 402: ErrorSerializer, 409: ErrorSerializer})
    def post(self, request):
        body = JoinSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        entry = services.queue_join(room=_room(body.validated_data["room"]), user=request.user)
        return Response(selectors.queue_frame(entry=entry), status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: QueueFrame, 409: ErrorSerializer})
    def delete(self, request):
        entry = services.queue_leave(user=request.user)
        return Response(selectors.queue_frame(entry=entry))


class RematchView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: QueueFrame, 409: ErrorSerializer})
    def post(self, request, pk: int):
        entries = services.rematch(table_id=pk, user=request.user)
        mine = next((e for e in entries if e.user_id == request.user.pk), None)
        frame = selectors.queue_frame(entry=mine)
        frame["players"] = [e.user.public_name for e in entries]
        return Response(frame, status=status.HTTP_201_CREATED)


class PrivateOpenSerializer(serializers.Serializer):
    room = serializers.SlugField(max_length=50)
    seats = StrictIntegerField(required=False, min_value=2, max_value=7)


def _private_body(request, table) -> dict:
    return {"table": table.pk, "invite_code": table.invite_code, "room": table.room.slug,
            "invite_url": request.build_absolute_uri(f"/play/invite/{table.invite_code}/"),
            "table_url": request.build_absolute_uri(f"/tables/{table.pk}/?invite={table.invite_code}")}


class PrivateOpenView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=PrivateOpenSerializer, responses={201: OpenApiTypes.OBJECT, 409: ErrorSerializer})
    def post(self, request):
        body = PrivateOpenSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        table = services.private_open(room=_room(body.validated_data["room"]), host=request.user,
                                      seat_count=body.validated_data.get("seats"))
        return Response(_private_body(request, table), status=status.HTTP_201_CREATED)


class InviteSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=16)


class PrivateJoinView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=InviteSerializer, responses={200: OpenApiTypes.OBJECT, 404: ErrorSerializer})
    def post(self, request):
        body = InviteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        seat = services.private_join(code=body.validated_data["code"], user=request.user)
        return Response({"table": seat.table_id, "seat": seat.number})


class BotSerializer(serializers.Serializer):
    style = serializers.CharField(max_length=40, required=False, allow_blank=True)


class PrivateBotView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=BotSerializer, responses={200: OpenApiTypes.OBJECT, 403: ErrorSerializer})
    def post(self, request, pk: int):
        body = BotSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        seat = services.private_add_bot(table_id=pk, by=request.user, style=body.validated_data.get("style"))
        return Response({"table": pk, "seat": seat.number, "player": seat.user.public_name,
                         "style": seat.user.bot_style, "description": seat.user.bot_description})


class PrivateStartView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 403: ErrorSerializer})
    def post(self, request, pk: int):
        table = services.private_start(table_id=pk, by=request.user)
        return Response({"table": table.pk, "status": table.status})


class PrivateStopView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 403: ErrorSerializer})
    def post(self, request, pk: int):
        table = services.private_stop(table_id=pk, by=request.user)
        return Response({"table": table.pk, "status": table.status, "stop_reason": table.stop_reason})


def _page(request, name: str, default: int, high: int) -> int:
    raw = request.query_params.get(name, default)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ApiError("bad_parameter", f"'{name}' must be a whole number.") from None
    if not 0 <= value <= high:
        raise ApiError("bad_parameter", f"'{name}' must lie between 0 and {high}.")
    return value


class LeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=[OpenApiParameter("limit", int), OpenApiParameter("offset", int)],
                   responses={200: OpenApiTypes.OBJECT, 404: ErrorSerializer})
    def get(self, request, game: str):
        if game not in Game.values:
            raise ApiError("no_such_game", "There is no such game.")
        limit = max(1, _page(request, "limit", 50, 200))
        offset = _page(request, "offset", 0, 100_000)
        return Response({"game": game, "players": selectors.leaderboard(game=game, limit=limit, offset=offset)})


class MyRatingsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request):
        return Response({"ratings": selectors.ratings_of(user=request.user)})
