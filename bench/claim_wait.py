#!/usr/bin/env python3
"""How long a person waits for the bots, per deal: a whole `may_i` game of Ann against two
`normal` bots on a test-mode server (the same seed and first dealer each run), Ann playing her
turns from the server's hints (draw from the stock, lay the suggested contract and lay-offs,
discard her highest card). With `--pass`, Ann passes on every discard she could claim ("No, go
on", `POST /v1/games/{id}/pass`); without it she lets every claim window run out, as a person
had to before the pass existed. Waiting is the wall time, while the game is played, that it is
not Ann's turn. Prints one line per deal and the total (docs/performance.md#claim-wait).

Usage: bench/claim_wait.py BINARY [--pass] [--seed N] [--port P] [--window S] [--pace MS]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid


def parsed(raw):
    try:
        return json.loads(raw or b"null")
    except ValueError:
        return raw.decode(errors="replace")


def request(base, method, path, token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if method == "POST":
        req.add_header("Idempotency-Key", str(uuid.uuid4()))
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, parsed(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, parsed(e.read())


def legal(view, kind):
    return next((a for a in view.get("legal_actions") or [] if a["type"] == kind), None)


def play_turn(base, gid, ann, view):
    """Ann's whole turn from `view` (her turn, draw phase): answers the view after it."""
    status, view = request(base, "POST", f"/v1/games/{gid}/draw", ann, {"source": "stock"})
    if status != 200 or view["status"] != "playing" or (view.get("turn") or {}).get("seat") != 0:
        return view
    _, hints = request(base, "GET", f"/v1/games/{gid}/hints", ann)
    if hints.get("contract") and legal(view, "meld"):
        status, answer = request(base, "POST", f"/v1/games/{gid}/melds", ann, {"melds": hints["contract"]})
        if status == 200:
            view = answer
    for _ in range(20):
        if not legal(view, "layoff") or (view.get("turn") or {}).get("seat") != 0:
            break
        _, hints = request(base, "GET", f"/v1/games/{gid}/hints", ann)
        if not hints.get("layoffs"):
            break
        first = hints["layoffs"][0]
        body = {"meld_id": first["meld_id"], "cards": [first["card"]]}
        if first.get("wilds"):
            body["wilds"] = first["wilds"]
        status, answer = request(base, "POST", f"/v1/games/{gid}/layoffs", ann, body)
        if status != 200:
            break
        view = answer
    discard = legal(view, "discard")
    if discard and (view.get("turn") or {}).get("seat") == 0:
        _, view = request(base, "POST", f"/v1/games/{gid}/discard", ann, {"card": discard["cards"][-1]})
    return view


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--pass", dest="passes", action="store_true")
    parser.add_argument("--seed", type=int, default=52)
    parser.add_argument("--port", type=int, default=18452)
    parser.add_argument("--window", type=int, default=None, help="claim_window_seconds (default: the server's)")
    parser.add_argument("--pace", type=int, default=None, help="bot_pace_ms (default: the server's)")
    args = parser.parse_args()

    work = tempfile.mkdtemp()
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": f"sqlite:{work}/claim_wait.db",
        "CONTINENTAL_BIND": f"127.0.0.1:{args.port}",
        "CONTINENTAL_TEST_MODE": "1",
        "RUST_LOG": "warn",
    })
    server = subprocess.Popen([args.binary], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    try:
        for _ in range(200):
            try:
                if request(base, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.05)
        options = {}
        if args.window is not None:
            options["claim_window_seconds"] = args.window
        if args.pace is not None:
            options["bot_pace_ms"] = args.pace
        body = {"variant": "may_i", "seed": args.seed, "first_dealer": 0,
                "seats": [{"name": "Ann"}, {"bot": "normal"}, {"bot": "normal"}]}
        if options:
            body["options"] = options
        status, created = request(base, "POST", "/v1/games", None, body)
        assert status == 201, created
        gid, ann = created["id"], created["seats"][0]["token"]
        waits, passes, started, deal_of = {}, 0, time.monotonic(), None
        last = time.monotonic()
        _, view = request(base, "GET", f"/v1/games/{gid}", ann)
        while view["status"] == "playing":
            now = time.monotonic()
            turn = view.get("turn") or {}
            if deal_of is not None and turn.get("seat") != 0:
                waits[deal_of] = waits.get(deal_of, 0.0) + (now - last)
            last, deal_of = now, view["deal"]
            if turn.get("seat") == 0 and turn.get("phase") == "draw":
                view = play_turn(base, gid, ann, view)
                last = time.monotonic()
                continue
            if args.passes and legal(view, "pass"):
                status, answer = request(base, "POST", f"/v1/games/{gid}/pass", ann, {})
                if status == 200:
                    passes += 1
                    view = answer
                    continue
            time.sleep(0.02)
            _, view = request(base, "GET", f"/v1/games/{gid}", ann)
        total = sum(waits.values())
        for deal in sorted(waits):
            print(f"deal {deal}: waited {waits[deal]:.1f} s")
        print(f"{'pass' if args.passes else 'no pass'}, seed {args.seed}: waited {total:.1f} s in "
              f"{len(waits)} deals ({total / max(len(waits), 1):.1f} s a deal), {passes} passes, "
              f"game {time.monotonic() - started:.0f} s, status {view['status']}, "
              f"standings {[(s['seat'], s['total']) for s in view.get('standings') or []]}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
