"""Staff read chat reports in the admin with the reported message in its context, and mute site-wide."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User
from audit.models import AuditRecord
from chat import services
from chat.errors import ChatError
from chat.models import ChatReport, ReportStatus, SiteMute
from tests.platform.chat.tables import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    user = User.objects.create_superuser(username="moderator", password="pass-word-123", email="m@x.org")
    client.force_login(user)
    return user


def _reported():
    table, a, b, w = make_table()
    services.chat_post(table_id=table.pk, user=a, text="before it")
    bad = services.chat_post(table_id=table.pk, user=b, text="<script>alert(1)</script> you cheat")
    services.chat_post(table_id=table.pk, user=w, text="a spectator's word")
    services.chat_post(table_id=table.pk, user=a, text="after it")
    report = services.chat_report(table_id=table.pk, user=a, message_id=bad.pk, reason="abuse", note="insult")
    return table, a, b, report


def test_the_report_list_and_page_show_the_message_in_its_context(client, staff):
    table, a, b, report = _reported()
    listing = client.get(reverse("admin:chat_chatreport_changelist")).content.decode()
    assert "Abuse or harassment" in listing and b.username in listing
    assert "&lt;script&gt;alert(1)&lt;/script&gt; you cheat" in listing and "<script>alert(1)" not in listing
    page = client.get(reverse("admin:chat_chatreport_change", args=[report.pk])).content.decode()
    context = page[page.index('class="chat-context"'):]
    order = [context.index(text) for text in ("before it", "you cheat", "a spectator&#x27;s word", "after it")]
    assert order == sorted(order)  # the messages around it, both channels, oldest first
    assert "★" in context and "insult" in page
    assert client.get(reverse("admin:chat_chatreport_add")).status_code == 403


def test_staff_mute_the_reported_user_site_wide_from_the_report_list(client, staff):
    table, a, b, report = _reported()
    response = client.post(reverse("admin:chat_chatreport_changelist"),
                           {"action": "mute_24h", "_selected_action": [report.pk]})
    assert response.status_code == 302
    mute = SiteMute.objects.get(user=b)
    assert mute.created_by == staff and mute.report_id == report.pk
    assert 23.9 * 3600 < (mute.until - mute.created_at).total_seconds() < 24.1 * 3600
    report.refresh_from_db()
    assert report.status == ReportStatus.ACTED and report.handled_by == staff
    assert AuditRecord.objects.filter(action_name="mute_24h").exists()
    with pytest.raises(ChatError) as refused:
        services.chat_post(table_id=table.pk, user=b, text="let me talk")
    assert refused.value.code == "chat_muted"
    # Lifted from the mutes' list, the user may talk again.
    client.post(reverse("admin:chat_sitemute_changelist"), {"action": "lift", "_selected_action": [mute.pk]})
    assert services.chat_post(table_id=table.pk, user=b, text="thanks").text == "thanks"


def test_staff_dismiss_a_report(client, staff):
    *_, report = _reported()
    client.post(reverse("admin:chat_chatreport_changelist"), {"action": "mark_dismissed", "_selected_action": [report.pk]})
    assert ChatReport.objects.get(pk=report.pk).status == ReportStatus.DISMISSED
    assert not SiteMute.objects.exists()


def test_a_player_cannot_open_the_reports(client):
    *_, report = _reported()
    client.force_login(report.reporter)
    assert client.get(reverse("admin:chat_chatreport_changelist")).status_code == 302  # to the admin's login
