#!/usr/bin/env python3
"""Part 8 of bench/run.sh: quick play with a studio's waiting room full.

Against a service at URL on an empty PostgreSQL database DB (with server keys `studio` and
`other`), it queues one asynchronous ticket of `studio` through the API, then copies it by SQL
into WAITING tickets (default 10,000) in POOLS pools (default 2,000: each its own
`turn_seconds`), each accepting only tables of eight, so that nobody there ever meets (and no
bots: the server runs without them). Once the replica has settled (the pools of this build's
`ticket_pools` matched once, then 5 s more), it measures:

- the idle replica's database transactions a second (`pg_stat_database.xact_commit` of DB
  over IDLE_S seconds, read from another database);
- a new pair's time to a game: PAIRS (default 50) pairs of `other`, each in a pool of its
  own, one after another; from the moment the second ticket is sent to the moment it reads
  `matched` (polled every 5 ms).

Prints one line: RESULT idle_tps=... pair_p50_ms=... pair_p99_ms=... pair_max_ms=... (a pair
not met within 60 s counts at 60 s; three such end the part early).
Usage: quickplay.py URL DB   (env: WAITING, POOLS, PAIRS, IDLE_S; PGADMIN: a URL of another
database of the same server, for the counters)
"""

import json
import os
import subprocess
import sys
import time
import urllib.request

URL, DB = sys.argv[1], sys.argv[2]
WAITING = int(os.environ.get("WAITING", "10000"))
POOLS = int(os.environ.get("POOLS", "2000"))
PAIRS = int(os.environ.get("PAIRS", "50"))
IDLE_S = float(os.environ.get("IDLE_S", "10"))
ADMIN = os.environ.get("PGADMIN", DB.rsplit("/", 1)[0] + "/postgres")
NAME = DB.rsplit("/", 1)[1]
STUDIO, OTHER = "studio-secret-00000001", "other-secret-000000001"


def psql(url, sql):
    out = subprocess.run(["psql", url, "-qAtc", sql], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def call(method, path, key=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(URL + path, data=data, method=method)
    req.add_header("content-type", "application/json")
    if key:
        req.add_header("x-api-key", key)
    with urllib.request.urlopen(req, timeout=30) as reply:
        return json.loads(reply.read() or b"null")


def queue(key, player, turn_seconds, sizes, asynchronous=False):
    body = {"player": player, "name": player, "variant": "may_i", "sizes": sizes,
            "options": {"turn_seconds": turn_seconds}, "async": asynchronous}
    return call("POST", "/v1/matchmaking/tickets", key, body)["ticket"]["id"]


def commits():
    return int(psql(ADMIN, f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{NAME}'"))


# The waiting room: one ticket through the API, copied by SQL, a day to wait, queued an hour
# ago (their windows as wide as they get), ratings spread around 25.
queue(STUDIO, "seed", 100, [8], asynchronous=True)
psql(DB, f"""
INSERT INTO tickets (tenant, id, player, name, variant, rules, sizes, async, rating_mean,
    rating_deviation, status, created_at, expires_at)
SELECT s.tenant, gen_random_uuid(), 'p-' || g, 'Player ' || g, s.variant,
    replace(s.rules, '"turn_seconds":100', '"turn_seconds":' || (1000 + g % {POOLS})),
    '[8]', s.async, 20 + random() * 10, s.rating_deviation, 'waiting',
    s.created_at - 3600000, s.expires_at
FROM tickets s, generate_series(1, {WAITING}) g WHERE s.player = 'seed';
DELETE FROM tickets WHERE player = 'seed';
""")
if psql(DB, "SELECT to_regclass('ticket_pools') IS NOT NULL") == "t":
    # This build keeps a row per pool, which a ticket's arrival through the API writes: the
    # tickets made by SQL get theirs here, due at once.
    psql(DB, """
    DELETE FROM ticket_pools;
    INSERT INTO ticket_pools (tenant, rules, async, due_at)
    SELECT DISTINCT tenant, rules, async, 0 FROM tickets WHERE status = 'waiting';
    """)
    deadline = time.time() + 300
    while psql(DB, "SELECT count(*) FROM ticket_pools WHERE due_at <= 0") != "0":
        if time.time() > deadline:
            sys.exit("the pools were never matched")
        time.sleep(0.2)
pools = psql(DB, "SELECT count(DISTINCT rules) FROM tickets WHERE status = 'waiting'")
waiting = psql(DB, "SELECT count(*) FROM tickets WHERE status = 'waiting'")
time.sleep(5)

before = commits()
start = time.time()
time.sleep(IDLE_S)
after = commits()
idle_tps = (after - before - 1) / (time.time() - start)
print(f"idle: {idle_tps:.1f} transactions/s with {waiting} tickets waiting in {pools} pools", file=sys.stderr)

took = []
unmet = 0
for i in range(PAIRS):
    if unmet >= 3:
        break
    turn = 50_000 + i
    queue(OTHER, f"a-{i}", turn, [2])
    sent = time.perf_counter()
    second = queue(OTHER, f"b-{i}", turn, [2])
    while True:
        status = call("GET", f"/v1/matchmaking/tickets/{second}", OTHER)["status"]
        if status == "matched":
            break
        if time.perf_counter() - sent > 60:
            # Counted at the cap; three such end the part.
            unmet += 1
            break
        time.sleep(0.005)
    took.append((time.perf_counter() - sent) * 1000)
took.sort()


def pct(p):
    return took[min(len(took) - 1, max(0, int(round(p / 100 * len(took) + 0.5)) - 1))]


print(f"RESULT waiting={waiting} pools={pools} idle_tps={idle_tps:.1f} "
      f"pair_p50_ms={pct(50):.0f} pair_p99_ms={pct(99):.0f} pair_max_ms={took[-1]:.0f} "
      f"pairs={len(took)} unmet_in_60s={unmet}")
