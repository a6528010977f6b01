"""REST API: the caller's balances and paginated history. Read only; value moves elsewhere."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from wallets import selectors
from wallets.models import Entry


class BalanceSerializer(serializers.Serializer):
    currency = serializers.CharField()
    label = serializers.CharField()
    amount = serializers.IntegerField()


class HistoryEntrySerializer(serializers.ModelSerializer):
    key = serializers.CharField(source="transaction.key")
    kind = serializers.CharField(source="transaction.kind")
    memo = serializers.CharField(source="transaction.memo")
    currency = serializers.CharField(source="account.currency")
    created_at = serializers.DateTimeField(source="transaction.created_at")

    class Meta:
        model = Entry
        fields = ["id", "key", "kind", "memo", "currency", "amount", "created_at"]


class HistoryPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class WalletView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=inline_serializer("Wallet", {
        "balances": BalanceSerializer(many=True), "bailout_count": serializers.IntegerField()}))
    def get(self, request):
        return Response({"balances": BalanceSerializer(selectors.balances(user=request.user), many=True).data,
                         "bailout_count": selectors.bailout_count(user=request.user)})


class WalletHistoryView(APIView):
    permission_classes = [IsAuthenticated]
    pagination_class = HistoryPagination  # the schema shows the page (count, next, previous, results)

    @extend_schema(responses=HistoryEntrySerializer(many=True))  # paged: the pagination class wraps it
    def get(self, request):
        paginator = HistoryPagination()
        page = paginator.paginate_queryset(selectors.history(user=request.user), request, view=self)
        return paginator.get_paginated_response(HistoryEntrySerializer(page, many=True).data)
