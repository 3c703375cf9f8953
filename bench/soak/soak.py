#!/usr/bin/env python3
"""The soak (bench/soak/run.sh): two replicas on one fresh PostgreSQL database, reached
through a TCP proxy this script can cut; people played by this script through the API beside
bots of every level in every variant; turn clocks with reserves; webhooks to a local receiver;
rematches; autopilot. One replica is killed (SIGKILL) and restarted twice, and the database
connections are cut once. At the end it checks every game and prints a report.

Standard library only. Not part of CI.
"""
import argparse
import http.server
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

KEY = "soak-secret-000000000001"
VARIANTS = ["may_i", "contract_7", "continental", "push"]
LEVELS = ["easy", "normal", "hard"]


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Proxy:
    """A TCP proxy to PostgreSQL: `cut()` closes every connection and refuses new ones until
    `restore()`."""

    def __init__(self, target_port):
        self.target = ("127.0.0.1", target_port)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.open = True
        self.conns = []
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.sock.accept()
            if not self.open:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    def pipe(self, a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.open = False
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def restore(self):
        self.open = True


class Receiver(http.server.ThreadingHTTPServer):
    """The webhook receiver: every delivery, in arrival order, answered 200."""

    def __init__(self):
        self.got = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                d = json.loads(body)
                with outer.lock:
                    outer.got.append((self.headers.get("webhook-id"), d["game_id"], d["seq"]))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server_address[1]}/hooks"


class Replica:
    def __init__(self, name, binary, env, port, logdir):
        self.name, self.binary, self.env, self.port = name, binary, env, port
        self.url = f"http://127.0.0.1:{port}"
        self.logfile = open(os.path.join(logdir, f"{name}.log"), "ab")
        self.proc = None

    def start(self):
        env = dict(os.environ, **self.env, CONTINENTAL_BIND=f"127.0.0.1:{self.port}")
        self.proc = subprocess.Popen([self.binary], env=env, stdout=self.logfile, stderr=self.logfile)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                urllib.request.urlopen(self.url + "/readyz", timeout=1)
                return
            except Exception:
                time.sleep(0.2)
        raise SystemExit(f"{self.name} did not start")

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.by_status = {}
        self.five_xx = []  # (time, method, path, status, body)
        self.unreachable = 0

    def note(self, method, path, status, body):
        with self.lock:
            self.requests += 1
            self.by_status[status] = self.by_status.get(status, 0) + 1
            if status >= 500:
                self.five_xx.append((time.time(), method, path, status, body[:200]))


class Api:
    def __init__(self, replicas, stats):
        self.replicas, self.stats = replicas, stats

    def call(self, method, path, token=None, body=None, key=False, idem=None):
        """The answer (status, JSON) from one replica or the other; a replica that does not
        answer (killed) is skipped for the other."""
        order = random.sample(self.replicas, len(self.replicas))
        for r in order:
            req = urllib.request.Request(r.url + path, method=method)
            if token:
                req.add_header("authorization", f"Bearer {token}")
            if key:
                req.add_header("x-api-key", KEY)
            if idem:
                req.add_header("idempotency-key", idem)
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                req.add_header("content-type", "application/json")
            try:
                with urllib.request.urlopen(req, data=data, timeout=15) as res:
                    text = res.read()
                    self.stats.note(method, path, res.status, "")
                    return res.status, (json.loads(text) if text else None)
            except urllib.error.HTTPError as e:
                text = e.read().decode(errors="replace")
                self.stats.note(method, path, e.code, text)
                try:
                    return e.code, json.loads(text)
                except ValueError:
                    return e.code, None
            except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError):
                with self.stats.lock:
                    self.stats.unreachable += 1
                continue
        return 0, None


def seats_for(i, variant):
    """Every level in every variant: people, and bots of the three levels in turn."""
    players = 4
    seats = []
    for s in range(players):
        if s < 1 + (i % 2):
            seats.append({"name": f"P{i}-{s}"})
        else:
            seats.append({"bot": LEVELS[(i + s) % 3]})
    return seats


class Soak:
    def __init__(self, api, receiver, seconds, tables):
        self.api, self.receiver, self.seconds, self.tables = api, receiver, seconds, tables
        self.games = {}  # id -> {"tokens": {seat: token}, "variant":..}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.totals = {}  # id -> set of card totals seen in play
        self.counts = {"moves": 0, "autopilot": 0, "rematches": 0, "idle_turns": 0}

    def create(self, i):
        variant = VARIANTS[i % len(VARIANTS)]
        options = {}
        if i % 3 != 2:
            options = {"turn_seconds": 5, "bank_seconds": 5}
        body = {"variant": variant, "seats": seats_for(i, variant), "options": options}
        # One table in five (one of each variant among the first twenty) has a webhook: each
        # game's deliveries go out one at a time, in order, and with every table hooked the
        # bots' events outran one debug build's outbox on two shared cores.
        if i % 5 == 0:
            body["webhook_url"] = self.receiver.url
        for _ in range(20):
            status, created = self.api.call("POST", "/v1/games", body=body, key=True,
                                            idem=f"create-{i}-{self.run}")
            if status == 201:
                tokens = {s["seat"]: s["token"] for s in created["seats"] if s.get("token")}
                with self.lock:
                    self.games[created["id"]] = {"tokens": tokens, "variant": variant}
                return created["id"]
            time.sleep(1)
        return None

    def person(self, game_id, seat, token):
        """A person at one seat: draws from the stock and discards, sometimes lets the clock
        run out, sometimes hands the seat to autopilot for a while; asks for the rematch."""
        rng = random.Random(f"{game_id}{seat}")
        autopilot_until = 0
        while not self.stop.is_set():
            status, view = self.api.call("GET", f"/v1/games/{game_id}", token=token)
            if status != 200 or view is None:
                time.sleep(0.5)
                continue
            self.note_total(game_id, view)
            if view.get("status") in ("finished", "void"):
                self.rematch(game_id, seat, token)
                return
            turn = view.get("turn") or {}
            legal = [a.get("type") for a in view.get("legal_actions") or []]
            if autopilot_until and time.time() > autopilot_until:
                self.api.call("DELETE", f"/v1/games/{game_id}/autopilot", token=token)
                autopilot_until = 0
            if turn.get("seat") != seat or not legal:
                time.sleep(0.3)
                continue
            roll = rng.random()
            if roll < 0.05 and not autopilot_until:
                level = rng.choice(["normal", "hard"])
                self.api.call("POST", f"/v1/games/{game_id}/autopilot", token=token, body={"level": level})
                autopilot_until = time.time() + 5
                with self.lock:
                    self.counts["autopilot"] += 1
                continue
            if roll < 0.09:
                # Let the turn clock (5 s) and its reserve (5 s) run out.
                with self.lock:
                    self.counts["idle_turns"] += 1
                time.sleep(11)
                continue
            version = view.get("version")
            if "draw" in legal:
                path, body = "draw", {"source": "stock"}
            elif "discard" in legal:
                act = next(a for a in view["legal_actions"] if a.get("type") == "discard")
                path, body = "discard", {"card": act["cards"][0]}
            else:
                time.sleep(0.3)
                continue
            status, _ = self.api.call("POST", f"/v1/games/{game_id}/{path}", token=token, body=body,
                                      idem=f"{game_id}-{seat}-{version}-{path}")
            if status == 200:
                with self.lock:
                    self.counts["moves"] += 1
            time.sleep(0.1)

    def rematch(self, game_id, seat, token):
        for _ in range(10):
            status, body = self.api.call("POST", f"/v1/games/{game_id}/rematch", token=token)
            if status in (200, 201) and body:
                new_id = body.get("id") or body.get("game_id")
                new_token = body.get("token")
                if new_id and new_token and not self.stop.is_set():
                    with self.lock:
                        g = self.games.setdefault(new_id, {"tokens": {}, "variant": self.games[game_id]["variant"]})
                        g["tokens"][seat] = new_token
                        self.counts["rematches"] += 1
                    threading.Thread(target=self.person, args=(new_id, seat, new_token), daemon=True).start()
                return
            if status in (409, 422, 404):
                return
            time.sleep(1)

    def note_total(self, game_id, view):
        if view.get("status") != "playing" or not view.get("turn"):
            return
        hands = sum(p.get("hand_count", 0) for p in view.get("players", []))
        melds = sum(len(m.get("cards", [])) for m in view.get("table", []))
        total = hands + melds + (view.get("discard") or {}).get("count", 0) + view.get("stock_count", 0)
        with self.lock:
            self.totals.setdefault(game_id, set()).add(total)

    def run_load(self):
        self.run = int(time.time())
        for i in range(self.tables):
            gid = self.create(i)
            if gid is None:
                continue
            for seat, token in self.games[gid]["tokens"].items():
                threading.Thread(target=self.person, args=(gid, seat, token), daemon=True).start()


def psql(url, sql):
    out = subprocess.run(["psql", url, "-At", "-F", "\t", "-c", sql], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"psql: {out.stderr}")
    return [l.split("\t") for l in out.stdout.splitlines() if l]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--database", required=True, help="postgres://... of a fresh database")
    ap.add_argument("--pg-port", type=int, default=5432)
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--logdir", default="/tmp/soak")
    a = ap.parse_args()
    os.makedirs(a.logdir, exist_ok=True)
    started = time.time()
    proxy = Proxy(a.pg_port)
    via_proxy = a.database.replace(f":{a.pg_port}/", f":{proxy.port}/")
    receiver = Receiver()
    env = {
        "DATABASE_URL": via_proxy,
        "CONTINENTAL_API_KEYS": f"soak:{KEY}",
        "CONTINENTAL_WEBHOOK_ALLOW_PRIVATE": "1",
        "CONTINENTAL_WEBHOOK_RETRY_S": "0.5",
        "CONTINENTAL_BOT_THREADS": "1",
        "CONTINENTAL_LOG_FORMAT": "json",
        "RUST_LOG": "info,continental::access=warn",
    }
    ports = []
    for _ in range(2):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
        s.close()
    replicas = [Replica(n, a.binary, env, p, a.logdir) for n, p in zip("AB", ports)]
    for r in replicas:
        r.start()
    stats = Stats()
    api = Api(replicas, stats)
    soak = Soak(api, receiver, a.seconds, a.tables)
    log(f"replicas {[r.url for r in replicas]}, proxy :{proxy.port}, receiver {receiver.url}")
    soak.run_load()
    faults = []  # (start, end, what)
    plan = [(0.2, "kill B"), (0.45, "cut"), (0.7, "kill A")]
    t0 = time.time()
    for frac, what in plan:
        while time.time() - t0 < frac * a.seconds:
            time.sleep(0.5)
        start = time.time()
        if what == "cut":
            log("cutting the database connections for 5 s")
            proxy.cut()
            time.sleep(5)
            proxy.restore()
        else:
            r = replicas[0] if what.endswith("A") else replicas[1]
            log(f"SIGKILL {r.name}; restart in 3 s")
            r.kill()
            time.sleep(3)
            r.start()
        faults.append((start, time.time(), what))
        log(f"{what} done")
    while time.time() - t0 < a.seconds:
        time.sleep(1)
    soak.stop.set()
    log("load stopped; letting the background work settle (the outbox drained, 240 s at most)")
    settle = time.time()
    while time.time() - settle < 240:
        time.sleep(5)
        left = psql(a.database, "SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'")
        if int(left[0][0]) == 0 and time.time() - settle >= 20:
            break
    report = check(a, api, soak, receiver, stats, faults)
    for r in replicas:
        r.stop()
    report["wall_s"] = round(time.time() - started)
    print(json.dumps(report, indent=2))
    ok = all(v == 0 for k, v in report["problems"].items())
    print("SOAK", "PASSED" if ok else "FAILED")
    sys.exit(0 if ok else 1)


def check(a, api, soak, receiver, stats, faults):
    problems = {"games_not_loading": 0, "card_totals_changed": 0, "moves_doubled": 0,
                "timeouts_doubled": 0, "webhooks_missing": 0, "webhooks_out_of_order": 0,
                "5xx_outside_the_cut": 0, "games_set_aside": 0}
    status_count = {}
    timed_out = 0
    events_total = 0
    for gid in list(soak.games):
        status, spectator = api.call("POST", f"/v1/games/{gid}/spectators", key=True, body={})
        if status not in (200, 201):
            problems["games_not_loading"] += 1
            continue
        token = spectator["token"]
        status, view = api.call("GET", f"/v1/games/{gid}", token=token)
        if status != 200:
            problems["games_not_loading"] += 1
            continue
        status_count[view["status"]] = status_count.get(view["status"], 0) + 1
        events, after = [], 0
        while True:
            status, page = api.call("GET", f"/v1/games/{gid}/events?after={after}&limit=1000", token=token)
            batch = page["events"] if status == 200 else []
            events += [e["event"] for e in batch]
            if len(batch) < 1000:
                break
            after = batch[-1]["seq"]
        events_total += len(events)
        # Per turn: the seat in turn draws at most once, discards at most once; at most one
        # timeout.
        turn = []
        for e in events + [{"type": "turn"}]:
            if e.get("type") == "turn" and turn:
                for kind in ("drew", "discarded"):
                    if sum(1 for x in turn if x.get("type") == kind and x.get("seat") == turn[0].get("seat")) > 1:
                        problems["moves_doubled"] += 1
                if sum(1 for x in turn if x.get("type") == "timed_out") > 1:
                    problems["timeouts_doubled"] += 1
                turn = []
            turn.append(e)
            if e.get("type") == "timed_out":
                timed_out += 1
        if len(soak.totals.get(gid, set())) > 1:
            problems["card_totals_changed"] += 1
    # Webhooks: each game's public events, as the outbox holds them, reached the receiver,
    # each delivery id first seen in the order of its seq.
    rows = psql(a.database, "SELECT game_id, seq, id, status FROM webhook_deliveries ORDER BY game_id, seq")
    outbox = {}
    for game, seq, did, st in rows:
        outbox.setdefault(game, []).append((int(seq), did, st))
    got = receiver.got
    first_seen = {}
    for did, game, seq in got:
        first_seen.setdefault(did, (game, seq))
    arrivals = {}
    for did, (game, seq) in first_seen.items():
        arrivals.setdefault(game, []).append(seq)
    delivered_rows = 0
    pending_rows = 0
    for game, items in outbox.items():
        for seq, did, st in items:
            if st == "delivered":
                delivered_rows += 1
            else:
                pending_rows += 1
            if did not in first_seen:
                problems["webhooks_missing"] += 1
    order = {}
    for did, game, seq in got:
        order.setdefault(game, [])
        if did not in [x for x, _ in order[game]]:
            order[game].append((did, seq))
    for game, seen in order.items():
        seqs = [s for _, s in seen]
        if seqs != sorted(seqs):
            problems["webhooks_out_of_order"] += 1
    duplicates = len(got) - len(first_seen)
    cut = [(s, e) for s, e, w in faults if w == "cut"]
    for t, method, path, status, body in stats.five_xx:
        if not any(s - 1 <= t <= e + 15 for s, e in cut):
            problems["5xx_outside_the_cut"] += 1
    set_aside = psql(a.database, "SELECT COUNT(*) FROM games WHERE set_aside_at IS NOT NULL")
    problems["games_set_aside"] = int(set_aside[0][0])
    return {
        "seconds": a.seconds,
        "tables_created": a.tables,
        "games": len(soak.games),
        "games_by_status": status_count,
        "rematches": soak.counts["rematches"],
        "moves_by_people": soak.counts["moves"],
        "autopilot_handovers": soak.counts["autopilot"],
        "turns_left_to_the_clock": soak.counts["idle_turns"],
        "events": events_total,
        "timeouts": timed_out,
        "requests": stats.requests,
        "requests_by_status": {str(k): v for k, v in sorted(stats.by_status.items())},
        "requests_to_a_replica_down": stats.unreachable,
        "5xx_in_the_cut": len(stats.five_xx) - problems["5xx_outside_the_cut"],
        "5xx_outside_the_cut_samples": [x[1:] for x in stats.five_xx if not any(s - 1 <= x[0] <= e + 15 for s, e in cut)][:5],
        "webhook_deliveries": {"outbox_rows": delivered_rows + pending_rows, "delivered": delivered_rows,
                               "pending": pending_rows, "received": len(got), "received_twice": duplicates},
        "faults": [{"what": w, "at_s": round(s - faults[0][0] + 0.2 * a.seconds), "took_s": round(e - s, 1)}
                   for s, e, w in faults],
        "problems": problems,
    }


if __name__ == "__main__":
    main()
