"""REST API for tournaments (thin): list, detail snapshot, register, unregister. Under /api/tournaments/."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import ApiError
from tournaments import selectors, services
from tournaments.models import Tournament


class TournamentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tournament
        fields = ["id", "name", "game", "status", "registration_opens_at", "starts_at", "currency", "entry_fee",
                  "rake_bps", "starting_stack", "ante_schedule", "seats_per_table", "min_entrants", "max_entrants",
                  "sit_and_go", "late_registration_level", "max_entries", "levels_by", "level_minutes",
                  "round", "entrants", "pool"]


def _pk(pk: int) -> int:
    if not Tournament.objects.filter(pk=pk).exists():
        raise ApiError("no_such_tournament", "There is no such tournament.")
    return pk


class TournamentListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=TournamentSerializer(many=True))
    def get(self, request):
        return Response(TournamentSerializer(selectors.tournament_list(), many=True).data)


class TournamentDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=inline_serializer("TournamentSnapshot", {"status": serializers.CharField()}))
    def get(self, request, pk: int):
        return Response(selectors.live_snapshot(tournament_id=_pk(pk)))


class RegisterSerializer(serializers.Serializer):
    partner = serializers.CharField(required=False, max_length=150, help_text="Baloot: your partner's username")


class TournamentRegisterView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=RegisterSerializer, responses=inline_serializer("Registered", {"entry": serializers.IntegerField()}))
    def post(self, request, pk: int):
        body = RegisterSerializer(data=request.data if isinstance(request.data, dict) else {})
        if not body.is_valid():
            raise ApiError("malformed", "Send {} or {\"partner\": \"username\"}.")
        partner = None
        if body.validated_data.get("partner"):
            partner = get_user_model().objects.filter(username=body.validated_data["partner"]).first()
            if partner is None:
                raise ApiError("no_such_partner", "Your partner is not registered.")
        entry = services.register(tournament_id=_pk(pk), user=request.user, partner=partner)
        return Response({"entry": entry.pk, "status": entry.status}, status=201)


class TournamentUnregisterView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=inline_serializer("Unregistered", {"status": serializers.CharField()}))
    def post(self, request, pk: int):
        entry = services.unregister(tournament_id=_pk(pk), user=request.user)
        return Response({"entry": entry.pk, "status": entry.status})
