"""Reading a JSON object into a typed result, and one page of a list."""

import types
import typing
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any, Generic, TypeVar


def parse_datetime(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    # The API speaks UTC; a time without an offset is read as UTC, never as local.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        tp = next(arg for arg in typing.get_args(tp) if arg is not type(None))
        origin = typing.get_origin(tp)
    if origin is list:
        (item,) = typing.get_args(tp)
        return [_convert(item, v) for v in value] if isinstance(value, list) else value
    try:
        if tp is Decimal:
            return value if isinstance(value, Decimal) else Decimal(str(value))
        if tp is datetime:
            return parse_datetime(value)
        if isinstance(tp, type) and issubclass(tp, StrEnum):
            return tp(value)
        if isinstance(tp, type) and issubclass(tp, Model) and isinstance(value, dict):
            return tp.from_api(value)
    except (ValueError, TypeError, InvalidOperation):
        # A value this client does not know (a new status, say) stays as sent.
        return value
    return value


class Model:
    """A result: the API's field names as attributes."""

    @classmethod
    def fields(cls) -> dict[str, Any]:
        return {
            name: tp
            for name, tp in typing.get_type_hints(cls).items()
            if not name.startswith("_") and typing.get_origin(tp) is not typing.ClassVar
        }

    @classmethod
    def from_api(cls, data: dict[str, Any]):
        obj = cls.__new__(cls)
        hints = cls.fields()
        for name in hints:
            setattr(obj, name, None)
        for key, value in data.items():
            setattr(obj, key, _convert(hints[key], value) if key in hints else value)
        obj._raw = data
        return obj

    def to_dict(self) -> dict[str, Any]:
        """The JSON object as the service sent it."""
        return dict(self._raw)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._raw == self._raw

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k, None)!r}" for k in list(self.fields())[:4])
        return f"{type(self).__name__}({shown}, ...)"


M = TypeVar("M", bound=Model)


class Page(Generic[M]):
    """One page of a list: `items` plus `total`, `page`, `size` and `pages`; the order,
    events and deliveries lists add `has_more` and `total_is_estimate` (None where a
    list does not say). With `total_is_estimate`, `total` is a lower bound."""

    def __init__(
        self,
        items: list[M],
        total: int,
        page: int,
        size: int,
        pages: int,
        has_more: bool | None = None,
        total_is_estimate: bool | None = None,
    ):
        self.items = items
        self.total = total
        self.page = page
        self.size = size
        self.pages = pages
        self.has_more = has_more
        self.total_is_estimate = total_is_estimate

    @classmethod
    def from_api(cls, data: dict[str, Any], model: type[M]) -> "Page[M]":
        return cls(
            items=[model.from_api(item) for item in data.get("items", [])],
            total=int(data.get("total", 0)),
            page=int(data.get("page", 1)),
            size=int(data.get("size", 0)),
            pages=int(data.get("pages", 0)),
            has_more=data.get("has_more"),
            total_is_estimate=data.get("total_is_estimate"),
        )

    @property
    def has_next(self) -> bool:
        return bool(self.items) and self.page < self.pages

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"Page(page={self.page}/{self.pages}, total={self.total}, items={len(self.items)})"
