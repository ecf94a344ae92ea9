"""Answers about the service itself."""

from ._base import Model


class Ping(Model):
    success: bool
