#!/usr/bin/env python3
"""Part a of bench/run.sh: an open server's CPU with abandoned tables, and another table's clock.

Against a service open to anyone (no server keys) at URL, whose process is PID, on the empty
PostgreSQL database DB, it makes TABLES (default 400) abandoned tables, CLIENTS (8) at once:
`contract_7`, one person and three `normal` bots, `turn_seconds` 5 and
`autopilot_after_timeouts` 1, whose person never plays. Then for MEASURE_S (70) seconds it
measures:

- the server's CPU: user and system time of PID (/proc/PID/stat), from the end of the
  tables' creation to the end of the window;
- meanwhile, the lateness of another table's turn clock: a person's table (`may_i`, Bob and
  a `normal` bot, `turn_seconds` 5, no autopilot) whose person never plays either, so that each
  of Bob's turns times out, one after another; each sample runs from the turn's deadline (the
  game row's `deadline`, unix ms, read once Bob is in turn) to the moment its `timed_out`
  event is seen in the log (polled every POLL_MS, 20).

Then it counts the games by status (the abandoned tables end `void`, called off, or
`finished`, played out by the bots, or are still `playing`).

Prints one line: RESULT cpu_s=... clock_late_p50_ms=... clock_late_max_ms=... clock_samples=N
made_s=... void=... finished=... playing=... unavailable=... (the games counted include the
clock's own, `playing`; `unavailable`: requests answered 503 and asked again)
Usage: abandoned.py URL PID DB   (env: TABLES, CLIENTS, MEASURE_S, POLL_MS)
"""

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

URL, PID, DB = sys.argv[1], int(sys.argv[2]), sys.argv[3]
TABLES = int(os.environ.get("TABLES", "400"))
CLIENTS = int(os.environ.get("CLIENTS", "8"))
MEASURE_S = float(os.environ.get("MEASURE_S", "70"))
POLL_S = float(os.environ.get("POLL_MS", "20")) / 1000
HZ = os.sysconf("SC_CLK_TCK")


def call(method, path, body=None, token=None):
    """The JSON answer to one request, asked again (for a minute at most) while the server is
    unavailable (`503`) or unreachable; raises on any other status than 2xx."""
    data = None if body is None else json.dumps(body).encode()
    give_up = time.time() + 60
    while True:
        request = urllib.request.Request(URL + path, data=data, method=method)
        request.add_header("content-type", "application/json")
        if token:
            request.add_header("authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as e:
            if e.code != 503 or time.time() > give_up:
                raise
            UNAVAILABLE.append(path)
        except (urllib.error.URLError, TimeoutError):
            if time.time() > give_up:
                raise
        time.sleep(0.1)


# Requests answered 503 and asked again.
UNAVAILABLE = []


def psql(sql):
    """One value read from DB."""
    return subprocess.run(["psql", DB, "-qAtc", sql], check=True, capture_output=True, text=True).stdout.strip()


def cpu_s():
    """The server's CPU time so far (user and system, every thread), in seconds."""
    with open(f"/proc/{PID}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    # utime and stime: the 14th and 15th fields, counted from the pid.
    return (int(fields[11]) + int(fields[12])) / HZ


def abandoned(_):
    """One table whose person walks away at once."""
    body = {
        "variant": "contract_7",
        "seats": [{"name": "Ann"}, {"bot": True}, {"bot": True}, {"bot": True}],
        "options": {"turn_seconds": 5, "autopilot_after_timeouts": 1},
    }
    return call("POST", "/v1/games", body)["id"]


def events_after(game, token, after):
    """The events of `game` after `after`, as the seat of `token` sees them."""
    return call("GET", f"/v1/games/{game}/events?after={after}", token=token)["events"]


def clock_samples(until):
    """Bob's turns timed out until `until` (time.time()): each one's lateness in ms."""
    made = call(
        "POST",
        "/v1/games",
        {"variant": "may_i", "seats": [{"name": "Bob"}, {"bot": True}], "options": {"turn_seconds": 5}},
    )
    game, token = made["id"], made["seats"][0]["token"]
    seen, late = 0, []
    while time.time() < until:
        # Bob in turn: his deadline, as the row stores it.
        view = call("GET", f"/v1/games/{game}", token=token)
        turn = view.get("turn") or {}
        if turn.get("seat") != 0 or not turn.get("deadline"):
            time.sleep(POLL_S)
            continue
        deadline_ms = int(psql(f"SELECT deadline FROM games WHERE id = '{game}'") or 0)
        timed_out = None
        while timed_out is None and time.time() < until + 15:
            for entry in events_after(game, token, seen):
                seen = entry["seq"]
                if entry["event"]["type"] == "timed_out" and entry["event"].get("seat") == 0:
                    timed_out = time.time()
            if timed_out is None:
                time.sleep(POLL_S)
        if timed_out is None:
            late.append(15_000.0)
            break
        late.append(timed_out * 1000 - deadline_ms)
        # Bob's turn is played for him; the bot plays at its pace before his next one.
        while (call("GET", f"/v1/games/{game}", token=token).get("turn") or {}).get("seat") == 0:
            time.sleep(POLL_S)
    return late


started = time.time()
with ThreadPoolExecutor(CLIENTS) as pool:
    ids = list(pool.map(abandoned, range(TABLES)))
made_s = time.time() - started
before = cpu_s()
window = time.time() + MEASURE_S
late = clock_samples(window)
while time.time() < window:
    time.sleep(0.1)
spent = cpu_s() - before
counts = dict(line.split("|") for line in psql("SELECT status, count(*) FROM games GROUP BY status").splitlines())
late.sort()
p50 = late[(len(late) - 1) // 2] if late else float("nan")
worst = late[-1] if late else float("nan")
print(
    f"RESULT cpu_s={spent:.1f} clock_late_p50_ms={p50:.0f} clock_late_max_ms={worst:.0f} "
    f"clock_samples={len(late)} made_s={made_s:.1f} void={counts.get('void', 0)} "
    f"finished={counts.get('finished', 0)} playing={counts.get('playing', 0)} unavailable={len(UNAVAILABLE)}"
)
