"""Choice members (`models.TextChoices`, `models.IntegerChoices`) sent to PostgreSQL
by the dumper of the type they are (str, int), found at once.

psycopg finds a value's dumper by its exact class; for a class it does not know it
walks the class's bases, building each one's dotted name on the way, and keeps
nothing. Each statement has its own transformer, so a close's statements walked
`OrderStatus`, `ActorKind`, `TransactionType` and the rest again on every run (2% of a
device notification's Python in py-spy). Registered here for each choices class, the
lookup is the first dictionary probe. Run from `CoreConfig.ready`, once every model
(and the choices beside it) is imported and before the first connection is made:
Django copies psycopg's adapters into its own template then.
"""

from django.db import models


def _subclasses(cls) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def register() -> list[type]:
    """Each choices class defined so far registered with its base type's dumpers (for
    each format, and for `%s` the one its base uses): the classes registered."""
    try:
        import psycopg
    except ImportError:  # the SQLite-only install never sends through psycopg
        return []
    from psycopg.adapt import PyFormat

    adapters = psycopg.adapters
    registered = []
    for base, root in ((str, models.TextChoices), (int, models.IntegerChoices)):
        dumpers = [adapters.get_dumper(base, f) for f in (PyFormat.TEXT, PyFormat.BINARY)]
        automatic = adapters.get_dumper(base, PyFormat.AUTO)
        for cls in _subclasses(root):
            # the last registered is the one `%s` takes: the base's own choice for it
            for dumper in [*dumpers, automatic]:
                adapters.register_dumper(cls, dumper)
            registered.append(cls)
    return registered
