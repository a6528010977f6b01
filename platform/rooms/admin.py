from django.contrib import admin

from rooms.models import Room


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "seats", "stake_kind", "stake", "currency", "rake_bps", "turn_seconds", "is_open")
    list_filter = ("game", "stake_kind", "is_open")
    prepopulated_fields = {"slug": ("name",)}
