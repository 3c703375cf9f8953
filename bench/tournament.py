#!/usr/bin/env python3
"""Part t of bench/run.sh: a tournament of ENTRANTS players whose first round starts at once.

Against a service at URL with the server keys `studio` and `other`, on the empty PostgreSQL
database DB, with BENCH the bench's own binary (`continental-bench`):

1. `other`'s players play their own games (BENCH's `games` mode, MOVERS clients, each its own
   4-seat `may_i` table, one action per request) for BASELINE_S (20) seconds alone: their
   action p99 with nothing else going on.
2. `studio` makes a `duplicate` `may_i` tournament (tables of four, two rounds, a 600 s turn
   clock, so that no table's clock runs out in the window and what is measured is the start)
   starting LEAD_S (90) seconds later, and enters ENTRANTS (10,000) players in it,
   CLIENTS (16) at a time: how long the entries took.
3. From 5 s before the start to WINDOW_S (40) seconds after it, `other`'s players play again:
   their action p99 while the round starts.
4. From the start: the time until every table of round 1 is made (the tables' `made` flag,
   read in DB every 100 ms), and the time until every entrant's seat token has been read
   through HTTP (`GET /v1/tournaments/{id}/entries/{entry}`, READERS at a time, each entry
   read again until it shows its token): what a studio's back end polling its players'
   entries sees.

Prints the tournament's id on a line `TOURNAMENT <id>`, then one line: RESULT entrants=...
tables=... entered_s=... tables_made_s=... tokens_s=... entry_reads=... baseline_p99_ms=...
herd_p99_ms=... herd_actions=... unavailable=... (`unavailable`: requests answered 503 and asked
again; the times from the start are from `starts_at`, the service's own start time).
Usage: tournament.py URL DB BENCH   (env: ENTRANTS, CLIENTS, READERS, MOVERS, LEAD_S,
                                     BASELINE_S, WINDOW_S)
"""

import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

URL, DB, BENCH = sys.argv[1], sys.argv[2], sys.argv[3]
ENTRANTS = int(os.environ.get("ENTRANTS", "10000"))
CLIENTS = int(os.environ.get("CLIENTS", "16"))
READERS = int(os.environ.get("READERS", "8"))
MOVERS = int(os.environ.get("MOVERS", "8"))
LEAD_S = float(os.environ.get("LEAD_S", "90"))
BASELINE_S = int(os.environ.get("BASELINE_S", "20"))
WINDOW_S = int(os.environ.get("WINDOW_S", "40"))
STUDIO = "studio-secret-00000001"
OTHER = "other-secret-000000001"
TABLE_SIZE = 4

HOST = urllib.parse.urlparse(URL)
LOCAL = threading.local()
UNAVAILABLE = []


def call(method, path, body=None, key=None):
    """The status and JSON answer to one request on this thread's kept-alive connection, asked
    again (for a minute at most) while the server answers 503."""
    give_up = time.time() + 60
    while True:
        if getattr(LOCAL, "conn", None) is None:
            LOCAL.conn = http.client.HTTPConnection(HOST.hostname, HOST.port, timeout=60)
        headers = {"content-type": "application/json"}
        if key:
            headers["x-api-key"] = key
        try:
            LOCAL.conn.request(method, path, None if body is None else json.dumps(body), headers)
            reply = LOCAL.conn.getresponse()
            data = reply.read()
        except (OSError, http.client.HTTPException):
            LOCAL.conn.close()
            LOCAL.conn = None
            if time.time() > give_up:
                raise
            time.sleep(0.1)
            continue
        if reply.status == 503 and time.time() < give_up:
            UNAVAILABLE.append(path)
            time.sleep(0.1)
            continue
        if reply.status >= 300:
            raise RuntimeError(f"{method} {path}: {reply.status} {data[:300]!r}")
        return json.loads(data or b"null")


def psql(sql):
    """One value read from DB."""
    return subprocess.run(["psql", DB, "-qAtc", sql], check=True, capture_output=True, text=True).stdout.strip()


def movers(seconds):
    """`other`'s players for `seconds`: BENCH's games mode, started now; its process."""
    env = dict(os.environ, BENCH_API_KEY=OTHER)
    return subprocess.Popen([BENCH, "games", URL, str(MOVERS), str(seconds)], env=env, stdout=subprocess.PIPE, text=True)


def result_of(process):
    """The `RESULT` line's fields of a finished BENCH process."""
    out, _ = process.communicate()
    line = next((l for l in out.splitlines() if l.startswith("RESULT")), "")
    return dict(f.split("=", 1) for f in line.split()[1:])


def main():
    baseline = result_of(movers(BASELINE_S))

    starts_at = time.time() + LEAD_S
    created = call("POST", "/v1/tournaments", {
        "name": "Bench cup", "variant": "may_i", "table_size": TABLE_SIZE, "format": "duplicate",
        "rounds": 2, "deals_per_round": 7,
        "starts_at": datetime.fromtimestamp(starts_at, timezone.utc).isoformat(timespec="milliseconds"),
        "max_entrants": ENTRANTS, "turn_seconds": 600, "round_seconds": 3600, "bot_level": "normal",
    }, STUDIO)
    tid = created["tournament"]["id"]
    print(f"TOURNAMENT {tid}", flush=True)

    began = time.time()

    def enter(i):
        return call("POST", f"/v1/tournaments/{tid}/entries", {"player": f"p{i}", "name": f"Player {i}"}, STUDIO)["id"]

    with ThreadPoolExecutor(CLIENTS) as pool:
        entries = list(pool.map(enter, range(ENTRANTS)))
    entered_s = time.time() - began
    if time.time() > starts_at - 6:
        sys.exit(f"the entries took {entered_s:.1f} s: past the start; raise LEAD_S")

    time.sleep(starts_at - 5 - time.time())
    herd = movers(WINDOW_S + 5)
    time.sleep(max(0.0, starts_at - time.time()))

    tables = -(-ENTRANTS // TABLE_SIZE)
    made_at = [None]

    def watch_tables():
        while time.time() < starts_at + 300:
            made = int(psql(f"SELECT count(*) FROM tournament_tables WHERE tournament_id = '{tid}' AND round = 1 AND made"))
            if made >= tables:
                made_at[0] = time.time()
                return
            time.sleep(0.1)

    watcher = threading.Thread(target=watch_tables)
    watcher.start()

    reads = [0]
    lock = threading.Lock()

    def token_of(entry):
        """Reads the entry until it shows its seat's token."""
        while time.time() < starts_at + 300:
            view = call("GET", f"/v1/tournaments/{tid}/entries/{entry}", key=STUDIO)
            with lock:
                reads[0] += 1
            if (view.get("table") or {}).get("token"):
                return time.time()
            time.sleep(0.2)
        raise RuntimeError(f"entry {entry} never showed its token")

    with ThreadPoolExecutor(READERS) as pool:
        last_token = max(pool.map(token_of, entries))
    watcher.join()
    herd_result = result_of(herd)

    made_s = "-" if made_at[0] is None else f"{made_at[0] - starts_at:.1f}"
    print(
        f"RESULT entrants={ENTRANTS} tables={tables} entered_s={entered_s:.1f} tables_made_s={made_s} "
        f"tokens_s={last_token - starts_at:.1f} entry_reads={reads[0]} "
        f"baseline_p99_ms={baseline.get('p99_ms', '-')} herd_p99_ms={herd_result.get('p99_ms', '-')} "
        f"herd_actions={herd_result.get('actions', '-')} unavailable={len(UNAVAILABLE)}",
        flush=True,
    )


main()
