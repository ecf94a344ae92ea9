"""Extension points that let apps above `orders` take part in its transactions
without `orders` importing them (the dependency keeps pointing one way)."""

from collections.abc import Callable

_form_session_factory: Callable | None = None


def register_form_session_factory(factory: Callable) -> None:
    """forms_ui plugs in here: factory(order=..., options=...) -> form_url."""
    global _form_session_factory
    _form_session_factory = factory


def form_session_for(*, order, options: dict) -> str:
    if _form_session_factory is None:
        raise RuntimeError("forms_ui is not installed")
    return _form_session_factory(order=order, options=options)
