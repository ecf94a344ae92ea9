"""Sessions kept in the database as Django's db backend keeps them, except that saving
an existing session is its one UPDATE.

Django's backend wraps every save in a transaction of its own: BEGIN, the UPDATE,
COMMIT, three round trips for each request that changes its session (an operator's
every POST, whose message waits in the session for the next page, among them). One
UPDATE in autocommit is as atomic on its own; a session that is gone meanwhile is the
same UpdateError. A new session is made as Django makes it (its INSERT must fail on a
taken key, inside its savepoint)."""

from django.contrib.sessions.backends import db
from django.contrib.sessions.backends.base import UpdateError


class SessionStore(db.SessionStore):
    def save(self, must_create=False):
        if must_create or self.session_key is None:
            return super().save(must_create=must_create)
        row = self.create_model_instance(self._get_session())
        changed = self.model._default_manager.filter(session_key=row.session_key).update(
            session_data=row.session_data, expire_date=row.expire_date
        )
        if not changed:
            raise UpdateError
