from django import template

from frontend import selectors

register = template.Library()


@register.simple_tag
def recent_tables(user, limit: int = 10):
    """The user's latest ended tables (for the profile page)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    return selectors.recent_tables_of(user, limit)
