"""What kind of process this is, set by its entry point before Django reads the settings.

Not an environment variable: a process the ASGI server starts (a Celery worker a test spawns, say)
must not inherit it.
"""

asgi_server = False  # config.asgi sets it: the settings then give the process a bounded connection pool
