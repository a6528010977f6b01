"""REST API for rooms and tables. Thin: parse, call a service or selector, shape the answer."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import ApiError, ErrorSerializer, StrictIntegerField
from rooms import selectors, services
from rooms.models import Room, StopReason, Table, TableStatus


class RoomSerializer(serializers.ModelSerializer):
    stake_label = serializers.CharField(read_only=True)

    class Meta:
        model = Room
        fields = ["id", "slug", "name", "game", "seats", "min_seats", "options", "turn_seconds", "stake_kind",
                  "currency", "stake", "stake_label", "rake_bps", "bots_only", "fill_delay_seconds"]


class TableSummarySerializer(serializers.ModelSerializer):
    room = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    game = serializers.CharField(read_only=True)

    class Meta:
        model = Table
        fields = ["id", "room", "game", "status", "seat_count", "commitment", "committed_at", "version",
                  "is_private", "created_at", "started_at", "ended_at", "stop_reason"]


def _table(pk: int, request=None) -> Table:
    """The table, or 404 for a private table the caller may not see (``?invite=`` grants it)."""
    if request is None:
        return get_object_or_404(Table.objects.select_related("room", "host"), pk=pk)
    table = selectors.watchable_table(table_id=pk, user=request.user, invite_code=request.query_params.get("invite"))
    if table is None:
        raise ApiError("no_such_table", "There is no such table.")
    return table


class RoomListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=RoomSerializer(many=True))
    def get(self, request):
        return Response(RoomSerializer(Room.objects.filter(is_open=True), many=True).data)


class OpenTableSerializer(serializers.Serializer):
    private = serializers.BooleanField(default=False)
    seats = StrictIntegerField(required=False, min_value=2, max_value=7)


class RoomTablesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=TableSummarySerializer(many=True))
    def get(self, request, slug: str):
        room = get_object_or_404(Room, slug=slug)
        tables = room.tables.filter(status__in=[TableStatus.OPEN, TableStatus.RUNNING], is_private=False)
        return Response(TableSummarySerializer(tables.order_by("-pk")[:50], many=True).data)

    @extend_schema(request=OpenTableSerializer, responses={201: TableSummarySerializer, 400: ErrorSerializer})
    def post(self, request, slug: str):
        room = get_object_or_404(Room, slug=slug)
        body = OpenTableSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        table = services.table_open(room=room, host=request.user, private=body.validated_data["private"],
                                    seat_count=body.validated_data.get("seats"))
        return Response(TableSummarySerializer(table).data, status=status.HTTP_201_CREATED)


class SitSerializer(serializers.Serializer):
    seat = StrictIntegerField(required=False, min_value=0, max_value=6)
    invite = serializers.CharField(required=False, max_length=32, help_text="a private table's invite code")


class TableSitView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=SitSerializer, responses={200: inline_serializer("Sat", {"seat": serializers.IntegerField()}),
                                                     409: ErrorSerializer})
    def post(self, request, pk: int):
        body = SitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        seat = services.table_sit(table_id=pk, user=request.user, seat_number=body.validated_data.get("seat"),
                                  invite_code=body.validated_data.get("invite"))
        return Response({"seat": seat.number})


class TableLeaveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None, 409: ErrorSerializer})
    def post(self, request, pk: int):
        services.table_stand(table_id=pk, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TableStartView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: TableSummarySerializer, 409: ErrorSerializer})
    def post(self, request, pk: int):
        table = services.table_start(table_id=pk, by=request.user)
        return Response(TableSummarySerializer(table).data)


class TableStopView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: TableSummarySerializer, 403: ErrorSerializer})
    def post(self, request, pk: int):
        reason = StopReason.STAFF if request.user.is_staff and _table(pk).host_id != request.user.pk else StopReason.HOST
        table = services.table_stop(table_id=pk, reason=reason, by=request.user)
        return Response(TableSummarySerializer(table).data)


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField()
    username = serializers.CharField()
    bot = serializers.BooleanField()
    style = serializers.CharField()
    status = serializers.CharField()
    timeouts = serializers.IntegerField()


class FrameSerializer(serializers.Serializer):
    """The `state` frame (docs/protocol.md, "Server → client"): the same over REST and the socket."""

    type = serializers.CharField(help_text='"state"')
    table = serializers.IntegerField()
    game = serializers.CharField()
    status = serializers.CharField(help_text="open, running, finished or stopped")
    version = serializers.IntegerField(help_text="the table's change counter: send it back with a move")
    seat = serializers.IntegerField(allow_null=True, help_text="yours; null for a spectator")
    seats = SeatSerializer(many=True)
    seat_count = serializers.IntegerField()
    commitment = serializers.CharField(help_text="SHA-256 of the raw seed bytes, hex")
    deadline = serializers.DateTimeField(allow_null=True)
    deadline_seat = serializers.IntegerField(allow_null=True)
    server_time = serializers.DateTimeField()
    host = serializers.CharField(allow_null=True)
    view = serializers.JSONField(allow_null=True, help_text="the engine's view for your seat: docs/rules/<game>.md")
    legal = serializers.ListField(child=serializers.JSONField(), help_text="your legal moves now")
    result = serializers.JSONField(required=False, help_text="once ended")
    stop_reason = serializers.CharField(required=False, allow_null=True, help_text="once ended")


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="the event number (what ?after= counts), not a version")
    kind = serializers.CharField(help_text="the engine event's type, or a lifecycle kind (opened, sat, timer, ...)")
    version = serializers.IntegerField(help_text="the table version the event belongs to")
    at = serializers.DateTimeField()
    payload = serializers.JSONField()


class TableView(APIView):
    """The caller's own frame (their seat's view, or the spectator view)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=FrameSerializer)
    def get(self, request, pk: int):
        table = _table(pk, request)
        seat = selectors.seat_of(table=table, user=request.user)
        return Response(selectors.table_frame(table=table, seat_number=seat.number if seat else None))


class TableEventsView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=[OpenApiParameter("after", int, description="events after this event number (seq)")],
                   responses=EventSerializer(many=True))
    def get(self, request, pk: int):
        try:
            after = max(0, int(request.query_params.get("after", 0)))
        except ValueError:
            raise ApiError("bad_parameter", "'after' must be a whole number.") from None
        return Response(selectors.public_events(table=_table(pk, request), after=after))


class TableProofView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        return Response(selectors.proof_document(table=_table(pk, request)))
