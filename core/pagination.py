"""Pages of a long list that cost the same however long it grows: `total` counted only
up to a cap (beyond it a lower bound, with `total_is_estimate`), `has_more` from one row
read past the page, and cursor pages (keyset) read off an index at any depth.

The order list, the events list and the webhook deliveries list answer with these
(docs/orders.md, docs/webhooks.md); each list reads its numbered and its cursor pages
the same way (the ORM, or one written-out statement: `beyond_sql`). The short lists
with an exact total use `paginate`. Every list's page is built here."""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from .error_codes import ErrorCode
from .errors import NotFound

# The furthest a page may start: a page past the end is 200 with no items however far
# past (decisions.md), and an OFFSET beyond this still fits the databases' 64-bit integer
# with the page's rows added, yet lies past any list's end.
OFFSET_CEILING = 2**62


def page_offset(page: int, size: int) -> int:
    """Where page `page` of `size` rows starts."""
    return min((page - 1) * size, OFFSET_CEILING)


def page_body(rows: list, *, page: int, size: int, total: int, has_more: bool, estimate: bool):
    """The page envelope: the spec's `total, page, size, pages, items` and the two
    additions of a capped list, `has_more` and `total_is_estimate`."""
    return {
        "total": total,
        "page": page,
        "size": size,
        "pages": math.ceil(total / size),
        "items": rows,
        "has_more": has_more,
        "total_is_estimate": estimate,
    }


def _capped(counted: int, cap: int) -> tuple[int, bool]:
    return (cap, True) if counted > cap else (counted, False)


def capped_count(qs: QuerySet, *, cap: int) -> tuple[int, bool]:
    """How many rows `qs` has, counted up to `cap`: (cap, True) when there are more,
    so that a busy terminal's list costs the same as a quiet one's. `qs` should be the
    bare filter (no joined columns), so the count is read off the index alone."""
    return _capped(qs.order_by()[: cap + 1].count(), cap)


def numbered_page_body(
    rows: list, *, page: int, size: int, count_cap: int, count: Callable[[int], int]
) -> dict:
    """Page `page` from `rows`, the list's rows read from the page's offset, up to
    `size` + 1 of them (one more than the page tells whether more follow). `count(limit)`
    answers how many rows the whole list has, counted up to `limit`; it is not called
    when a first page is not full (the page is then its own total). Past `count_cap`
    rows `total` is a lower bound: the cap, or what this page proves, if more."""
    has_more = len(rows) > size
    rows = rows[:size]
    if page == 1 and not has_more:
        total, estimate = len(rows), False
    else:
        total, estimate = _capped(count(count_cap + 1), count_cap)
        if estimate and rows:  # a page past the end proves nothing beyond the cap
            total = max(total, (page - 1) * size + len(rows) + int(has_more))
    return page_body(rows, page=page, size=size, total=total, has_more=has_more, estimate=estimate)


def _as_is(qs: QuerySet) -> QuerySet:
    return qs


def numbered_page(
    qs: QuerySet,
    *,
    page: int,
    size: int,
    count_cap: int,
    read: Callable[[QuerySet], QuerySet] = _as_is,
) -> dict:
    """Page `page` of the ordered `qs` by offset (numbered_page_body). `read` shapes
    the page's rows (columns, joins); the count takes the bare `qs`."""
    offset = page_offset(page, size)
    rows = list(read(qs)[offset : offset + size + 1])

    def count(limit: int) -> int:
        return qs.order_by()[:limit].count()

    return numbered_page_body(rows, page=page, size=size, count_cap=count_cap, count=count)


def paginate(queryset: QuerySet, *, page: int, size: int, render) -> dict:
    """A short list's page with its exact total (the spec's `total, page, size, pages,
    items`), `render` making the items of the page's rows."""
    offset = page_offset(page, size)
    rows = list(queryset[offset : offset + size])
    # A first page that is not full already says how many there are: no COUNT then.
    total = len(rows) if page == 1 and len(rows) < size else queryset.count()
    return {
        "total": total,
        "page": page,
        "size": size,
        "pages": math.ceil(total / size),
        "items": render(rows),
    }


def beyond_sql(columns: Sequence[str], values: Sequence, *, smaller: bool) -> tuple[str, list]:
    """_beyond for a written-out statement: the condition (and its parameters) for the
    rows past the cursor whose `columns` (quoted SQL) hold `values` (prepared)."""
    op = "<" if smaller else ">"
    alternatives, params = [], []
    for i, column in enumerate(columns):
        equal = [f"{c} = %s" for c in columns[:i]]
        alternatives.append("(" + " AND ".join([*equal, f"{column} {op} %s"]) + ")")
        params += [*values[:i], values[i]]
    condition = "(" + " OR ".join(alternatives) + ")"
    if len(columns) > 1:
        condition = f"{columns[0]} {op}= %s AND {condition}"
        params.insert(0, values[0])
    return condition, params


def keyset_page_body(
    rows: list, *, size: int, backwards: bool, count_cap: int, count: Callable[[int], int]
) -> dict:
    """A cursor page from `rows`, read beyond the cursor (towards it when `backwards`)
    up to `size` + 1; `count(limit)` counts the rows on the cursor's side up to
    `limit`, and is called only when more rows follow this page."""
    has_more = len(rows) > size
    rows = rows[:size]
    if backwards:
        rows.reverse()
    total, estimate = (len(rows), False)
    if has_more:
        total, estimate = _capped(count(count_cap + 1), count_cap)
    return page_body(rows, page=1, size=size, total=total, has_more=has_more, estimate=estimate)


def _beyond(qs: QuerySet, keys: Sequence[str], cursor: dict, *, smaller: bool) -> QuerySet:
    """The rows of `qs` past `cursor` in `keys` order, towards smaller keys or larger
    ones: (k1 < v1) or (k1 = v1 and k2 < v2) ... The first key's bound is given alone
    too (k1 <= v1), so that the database starts reading an index on `keys` at the
    cursor rather than filtering every row from the list's start up to it."""
    op = "lt" if smaller else "gt"
    past = Q()
    for i, key in enumerate(keys):
        past |= Q(**{k: cursor[k] for k in keys[:i]}, **{f"{key}__{op}": cursor[key]})
    if len(keys) == 1:
        return qs.filter(past)
    return qs.filter(Q(**{f"{keys[0]}__{op}e": cursor[keys[0]]}), past)


def keyset_page(
    qs: QuerySet,
    *,
    keys: Sequence[str],
    descending: bool,
    size: int,
    after: dict | None,
    before: dict | None,
    count_cap: int,
    read: Callable[[QuerySet], QuerySet] = _as_is,
) -> dict:
    """One page of `qs` in `keys` order (all ascending or all descending; the last key
    unique) by keyset: the `size` rows right after the `after` row or right before the
    `before` row (each a dict of its `keys`), shown in the list's order either way; with
    both, the first `size` rows between them. Read off an index on `keys` whatever the
    page's depth.

    The answer is page 1 of the list beyond the cursor: `total` counts the rows on the
    cursor's side up to `count_cap` (no count at all when nothing follows this page);
    `has_more` tells whether more follow this page in the direction of travel."""
    side = qs
    if after is not None:
        # Moving forward in a descending list is moving towards smaller keys.
        side = _beyond(side, keys, after, smaller=descending)
    if before is not None:
        side = _beyond(side, keys, before, smaller=not descending)
    # Only `ending_before`: the rows nearest the cursor, read towards it.
    backwards = after is None and before is not None
    prefix = "-" if descending != backwards else ""
    side = side.order_by(*(f"{prefix}{key}" for key in keys))
    rows = list(read(side)[: size + 1])

    def count(limit: int) -> int:
        return side.order_by()[:limit].count()

    return keyset_page_body(rows, size=size, backwards=backwards, count_cap=count_cap, count=count)


@dataclass(frozen=True)
class PageAsked:
    """What a list request asks for: page `page` of `size` rows by offset or, with a
    cursor (an id of one of the caller's own rows), the `size` rows right after
    `starting_after` / right before `ending_before`; `total` counted up to `count_cap`."""

    size: int
    count_cap: int
    page: int = 1
    starting_after: Any = None
    ending_before: Any = None

    @property
    def by_cursor(self) -> bool:
        return self.starting_after is not None or self.ending_before is not None

    @classmethod
    def of(cls, query: dict, *, count_cap: int) -> "PageAsked":
        """From a parsed list query: page_query's `page` and `size`, and the cursors."""
        return cls(
            size=query["size"],
            count_cap=count_cap,
            page=query["page"],
            starting_after=query.get("starting_after"),
            ending_before=query.get("ending_before"),
        )


def list_page(
    qs: QuerySet,
    asked: PageAsked,
    *,
    own: QuerySet,
    keys: Sequence[str],
    code: ErrorCode,
    what: str,
    descending: bool = True,
    read: Callable[[QuerySet], QuerySet] = _as_is,
) -> dict:
    """The page `asked` of `qs` in `keys` order: numbered_page without a cursor,
    keyset_page with one. A cursor must be the id of a row of `own`, the caller's own
    rows; any other is a 404 with `code`, naming the parameter (another terminal's row
    is answered exactly like an unknown one)."""
    if not asked.by_cursor:
        ordered = qs.order_by(*(f"{'-' if descending else ''}{key}" for key in keys))
        return numbered_page(
            ordered, page=asked.page, size=asked.size, count_cap=asked.count_cap, read=read
        )

    def cursor(field: str, pk) -> dict | None:
        if pk is None:
            return None
        row = next(iter(own.filter(pk=pk).order_by().values(*keys)[:1]), None)
        if row is None:
            raise NotFound(f"{field} is not {what}", code=code, errors={field: [f"Not {what}"]})
        return row

    return keyset_page(
        qs,
        keys=keys,
        descending=descending,
        size=asked.size,
        after=cursor("starting_after", asked.starting_after),
        before=cursor("ending_before", asked.ending_before),
        count_cap=asked.count_cap,
        read=read,
    )
