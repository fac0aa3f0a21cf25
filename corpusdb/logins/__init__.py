"""Logins: who is at the keyboard of a served (browser) or shared-account TUI session.

Why a package of its own, headless: ``corpusdb serve`` and ``corpusdb tui --login`` put a login
screen before everything else, and the rules behind it (passwords as salted scrypt hashes on
SQLite, the person's own PostgreSQL role in team mode, failures counted in the database with a
delay and a lockout, every login, failure, lockout and logout in the audit trail, a session that
ends when its login is revoked or it sits idle) must hold whoever calls them: the TUI's screen is
a thin form over ``gate.LoginGate``, and scripts or tests call the same functions.

* ``passwords``: hashing and checking (hashlib.scrypt, parameters stored with each hash);
* ``policy``: how many failures lock a name, for how long, how long a failure waits;
* ``store``: the counters, the audit events and the resume point, on SQLite or through the
  PostgreSQL login functions (``pgsql``), one interface;
* ``gate``: a login attempt from name and password to an open ``Corpus`` bound to that person;
* ``session``: the bound session's guard (revocation, idle time, logout, resume);
* ``accounts``: what a lead does: passwords on SQLite, the gatekeeper role on PostgreSQL.
"""
