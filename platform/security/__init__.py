"""Deployment checks (``manage.py check --deploy``) and the Content-Security-Policy middleware.

An app of its own (``security`` in INSTALLED_APPS) so that its checks are registered when the
apps load, whatever else the core app does.
"""
