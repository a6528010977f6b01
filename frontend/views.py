from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from rooms import selectors as room_selectors


@login_required
def lobby(request):
    return render(request, "frontend/lobby.html", {"games": room_selectors.lobby_games()})
