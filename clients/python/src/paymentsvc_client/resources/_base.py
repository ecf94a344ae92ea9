"""What every resource shares: the base class and the list-call builder."""

from __future__ import annotations

from decimal import Decimal
from typing import Any
from urllib.parse import quote

from .._core import Call, query
from ..models import Model

Amount = Decimal | str | int


def _id(value: Any) -> str:
    return quote(str(value), safe="")


def _paged(path: str, model: type[Model], unwrap: str | None = None):
    """The call for one page of a list endpoint, given its page and filters."""

    def make(page: int | None = None, **filters: Any) -> Call:
        params = query(page=page, **filters)
        return Call("GET", path, params=params, unwrap=unwrap, model=model, page=True)

    return make


def _filters(arguments: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in arguments.items() if name != "self"}


class Resource:
    def __init__(self, client):
        self._client = client

    def _send(self, call: Call):
        return self._client._call(call)

    def _all(self, make_call, filters: dict[str, Any]):
        return self._client._paginate(lambda page: make_call(page=page, **filters))
