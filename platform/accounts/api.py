from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    preferred_language = serializers.CharField()
    is_staff = serializers.BooleanField()


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MeSerializer)
    def get(self, request):
        user = request.user
        return Response(MeSerializer({
            "username": user.username, "display_name": user.public_name,
            "preferred_language": user.preferred_language, "is_staff": user.is_staff,
        }).data)
