"""The logging configuration: one JSON object per line (core.logs), from web, worker and
beat alike."""


def logging_config(level: str) -> dict:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "core.logs.ContextFilter"}},
        "formatters": {
            "json": {
                "()": "core.logs.JsonFormatter",
                "timestamp": "time",
                "fmt": [
                    "levelname",
                    "name",
                    "message",
                    "request_id",
                    "terminal_id",
                    "trader_id",
                    "route",
                    "task",
                ],
                "rename_fields": {"levelname": "level", "name": "logger"},
            }
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "filters": ["context"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Django's own handlers (plain text in DEBUG) give way to the JSON one.
            "django": {"handlers": [], "level": "INFO", "propagate": True},
            "django.server": {"handlers": [], "level": "WARNING", "propagate": True},
            # httpx logs every request with its URL, and a merchant's webhook URL may carry
            # a token in its query; each webhook attempt logs its own line without it.
            "httpx": {"level": "WARNING"},
        },
    }
