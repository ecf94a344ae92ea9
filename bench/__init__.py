"""`make bench`: the production stack on this machine, measured side by side.

Starts gunicorn (gunicorn.conf.py) and a Celery worker on PostgreSQL + Redis, loads
them from this separate process with an asyncio HTTP client, and writes
docs/benchmarks.md (bench/notes.md is appended to it: the gaps and what each change
bought), each figure a ratio to a baseline measured in the same run, and the figures
block of docs/scale.md (costs per request and what 10 and 100 times today's rate need).

Settings: BENCH_SECONDS (per point, default 6), BENCH_MEMORY_REQUESTS (20000),
BENCH_PORT (18080; the webhook receiver takes the next port), BENCH_DB, BENCH_PG,
BENCH_REDIS. `python -m bench --report` writes the report again from the last
run's figures (var/bench/results.pickle), e.g. after editing bench/notes.md.

Modules: config (settings and the server's environment), processes (the server's
processes), load (the load generator and the requests it sends), data (the bench
database), django_side (what runs inside Django, as `python -m bench.django_side`:
also the SQL one creation sends, and the profiles), webhooks (delivery rates),
ceilings (the bare WSGI app of bare_wsgi and the creation's SQL replayed by sqlreplay;
metrics on and off), history (the events log and the operators' dashboard at scale),
runner (the run), report and report_points (docs/benchmarks.md), report_scale
(docs/scale.md's figures). bench/profiles/before.json is a profile recorded at an
earlier commit, printed beside this run's.
"""
