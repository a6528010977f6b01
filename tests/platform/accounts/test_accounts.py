import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts import services

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.mark.real_hashers
def test_signup_creates_a_player_logs_in_and_keeps_the_language(client):
    response = client.post(reverse("accounts:signup"), {
        "username": "siti", "display_name": "Siti", "preferred_language": "id",
        "password1": "kartu-batik-77", "password2": "kartu-batik-77",
    })
    assert response.status_code == 302
    user = User.objects.get(username="siti")
    assert user.display_name == "Siti" and user.preferred_language == "id" and not user.is_bot
    assert user.password.startswith("argon2")
    assert response.cookies["django_language"].value == "id"
    assert client.get(reverse("accounts:profile")).status_code == 200


def test_signup_refuses_mismatched_passwords_and_creates_nothing(client):
    response = client.post(reverse("accounts:signup"), {
        "username": "ali", "preferred_language": "en", "password1": "kartu-batik-77", "password2": "other-pass-88",
    })
    assert response.status_code == 200
    assert not User.objects.filter(username="ali").exists()


def test_login_and_logout(client):
    services.user_create(username="ayse", password="otuz-bir-31!")
    response = client.post(reverse("accounts:login"), {"username": "ayse", "password": "otuz-bir-31!"})
    assert response.status_code == 302
    assert client.get(reverse("accounts:profile")).status_code == 200
    assert client.post(reverse("accounts:logout")).status_code == 302
    assert client.get(reverse("accounts:profile")).status_code == 302  # back to login


def test_login_is_throttled_after_repeated_failures(client, settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 3
    services.user_create(username="budi", password="correct-horse-9")
    for _ in range(3):
        assert client.post(reverse("accounts:login"), {"username": "budi", "password": "nope"}).status_code == 200
    blocked = client.post(reverse("accounts:login"), {"username": "budi", "password": "correct-horse-9"})
    assert blocked.status_code == 429
    assert b"login_throttled" in blocked.content
    assert "_auth_user_id" not in client.session  # even the right password is refused while throttled


def test_throttle_counts_per_address_too(client, settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 2
    settings.LOGIN_THROTTLE_ADDRESS_ATTEMPTS = 2  # the address has its own (normally higher) bound
    for name in ("a1", "a2"):
        client.post(reverse("accounts:login"), {"username": name, "password": "x"})
    assert services.login_throttled(username="someone-else", address="127.0.0.1")


def test_successful_login_clears_the_user_counter(client, settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 3
    services.user_create(username="mei", password="right-pass-123")
    client.post(reverse("accounts:login"), {"username": "mei", "password": "wrong"})
    client.post(reverse("accounts:login"), {"username": "mei", "password": "right-pass-123"})
    assert not services.login_throttled(username="mei", address="10.9.9.9")


def test_profile_updates_display_name_and_language(client):
    user = services.user_create(username="kemal", password="right-pass-123")
    client.force_login(user)
    response = client.post(reverse("accounts:profile"), {"display_name": "Kemal B.", "preferred_language": "tr"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.display_name == "Kemal B." and user.preferred_language == "tr"
    page = client.get(reverse("accounts:profile"))
    assert "Profil" in page.content.decode()  # Turkish UI


def test_language_switcher_sets_cookie_and_preference(client):
    user = services.user_create(username="hamid", password="right-pass-123")
    client.force_login(user)
    response = client.post(reverse("accounts:language"), {"language": "ms", "next": "/accounts/profile/"})
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    assert response.cookies["django_language"].value == "ms"
    user.refresh_from_db()
    assert user.preferred_language == "ms"


def test_language_switcher_ignores_unknown_languages_and_foreign_redirects(client):
    response = client.post(reverse("accounts:language"), {"language": "xx", "next": "https://evil.example/"})
    assert response["Location"] == "/"
    assert "django_language" not in response.cookies


def test_bots_are_flagged_cannot_log_in_and_have_a_public_profile(client):
    bot = services.bot_create(username="bot-x", display_name="Bot X", style="careful", description="Plays safe.")
    assert bot.is_bot and not bot.has_usable_password()
    page = client.get(reverse("accounts:bot-profile", args=["bot-x"]))
    assert page.status_code == 200 and b"Plays safe." in page.content
    assert client.get(reverse("accounts:bot-profile", args=["nobody"])).status_code == 404


@pytest.mark.parametrize("language,word", [("en", "Log in"), ("id", "Masuk"), ("ms", "Log masuk"), ("tr", "Giriş yap")])
def test_login_page_in_every_language(client, language, word):
    client.cookies["django_language"] = language
    assert word in client.get(reverse("accounts:login")).content.decode()


def test_admin_is_not_at_the_default_path(client, settings):
    assert client.get("/admin/").status_code == 404
    assert client.get("/" + settings.ADMIN_PATH).status_code == 302
