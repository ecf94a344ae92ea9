"""The session store: Django's database sessions, a changed session saved in one
UPDATE without a transaction of its own."""

import pytest
from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.sessions import SessionStore

pytestmark = pytest.mark.django_db


def test_a_changed_session_is_saved_in_one_update_and_read_back():
    store = SessionStore()
    store["operator"] = "first"
    store.save()  # a new session: made as Django makes it
    key = store.session_key
    assert Session.objects.filter(session_key=key).exists()

    again = SessionStore(session_key=key)
    assert again["operator"] == "first"
    again["operator"] = "second"
    with CaptureQueriesContext(connection) as queries:
        again.save()
    statements = [q["sql"] for q in queries.captured_queries]
    assert len(statements) == 1, statements
    assert statements[0].startswith("UPDATE")
    assert SessionStore(session_key=key)["operator"] == "second"


def test_a_session_gone_meanwhile_is_not_made_again_by_its_save():
    store = SessionStore()
    store["operator"] = "first"
    store.save()
    key = store.session_key
    Session.objects.filter(session_key=key).delete()
    store["operator"] = "second"
    with pytest.raises(UpdateError):
        store.save()
    assert not Session.objects.filter(session_key=key).exists()
