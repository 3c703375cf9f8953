"""A client generated from openapi/openapi.json by openapi-python-client plays a whole two-seat
game of may_i against the service, using only the generated code: its models, its typed enums
and its events and stream endpoints.

Usage: PYTHONPATH=<dir holding continental_client> python play.py http://127.0.0.1:PORT
"""

import json
import sys
from collections import Counter

from continental_client import AuthenticatedClient, Client
from continental_client.api.games import (
    create_game,
    discard_card,
    draw_card,
    get_game,
    get_hints,
    lay_melds,
    lay_off,
    list_events,
    stream_events,
)
from continental_client.api.validation import rulesets
from continental_client.models import (
    CreateGameRequest,
    CreateGameResponse,
    DiscardRequest,
    DrawRequest,
    DrawSource,
    GameStatus,
    GameView,
    HintsResponse,
    LayoffRequest,
    MeldsRequest,
    Phase,
    Problem,
    SeatSpec,
    Variant,
)
from continental_client.types import UNSET

# A game that never ends is a failure, not a hang.
MAX_MOVES = 5000


def ok(reply, what):
    """The parsed body of a success, or a failure that says what the service answered."""
    if reply is None or isinstance(reply, Problem):
        detail = reply.to_dict() if isinstance(reply, Problem) else "no parsed answer"
        sys.exit(f"{what}: {detail}")
    return reply


def keep_score(hand):
    """The card to discard: the highest card with the fewest of its rank in hand, never a joker."""
    ranks = Counter(card[:-1] for card in hand)
    order = "23456789TJQKA"
    candidates = [c for c in hand if c != "JK" and not c.startswith("2")] or hand
    return max(candidates, key=lambda c: (-ranks[c[:-1]], order.find(c[:-1])))


def play_turn(client, game_id, view):
    """One turn of the seat in turn: draw, go down or lay off as the hints say, discard."""
    if view.turn.phase == Phase.DRAW:
        view = ok(draw_card.sync(game_id, client=client, body=DrawRequest(source=DrawSource.STOCK)), "draw")
    hints = ok(get_hints.sync(game_id, client=client), "hints")
    assert isinstance(hints, HintsResponse)
    if hints.contract not in (None, UNSET):
        # A hint is a body for POST /melds as it is.
        view = ok(lay_melds.sync(game_id, client=client, body=MeldsRequest(melds=hints.contract)), "meld")
    for _ in range(20):
        if view.turn is None or view.turn.seat != view.you.seat or len(view.you.hand) <= 1:
            break
        hints = ok(get_hints.sync(game_id, client=client), "hints")
        if not hints.layoffs:
            break
        hint = hints.layoffs[0]
        view = ok(
            lay_off.sync(game_id, client=client, body=LayoffRequest(meld_id=hint.meld_id, cards=[hint.card])),
            "lay off",
        )
    if view.turn is not None and view.turn.seat == view.you.seat and view.status == GameStatus.PLAYING:
        discards = [a for a in view.legal_actions if a.type_ == "discard"]
        if discards:
            card = keep_score(list(discards[0].cards))
            view = ok(discard_card.sync(game_id, client=client, body=DiscardRequest(card=card)), "discard")
    return view


def main(url):
    anonymous = Client(base_url=url, raise_on_unexpected_status=True)
    variants = ok(rulesets.sync(client=anonymous), "rulesets").variants
    assert any(v.variant == Variant.MAY_I for v in variants), "may_i is a variant"

    created = ok(
        create_game.sync(
            client=anonymous,
            body=CreateGameRequest(variant=Variant.MAY_I, seats=[SeatSpec(name="Ann"), SeatSpec(name="Bob")]),
        ),
        "create",
    )
    assert isinstance(created, CreateGameResponse)
    game_id = created.id
    seats = [AuthenticatedClient(base_url=url, token=s.token, raise_on_unexpected_status=True) for s in created.seats]

    moves = 0
    view = ok(get_game.sync(game_id, client=seats[0]), "view")
    while view.status == GameStatus.PLAYING:
        moves += 1
        if moves > MAX_MOVES:
            sys.exit(f"no end after {MAX_MOVES} turns")
        in_turn = seats[view.turn.seat]
        view = play_turn(in_turn, game_id, ok(get_game.sync(game_id, client=in_turn), "view"))
        view = ok(get_game.sync(game_id, client=seats[0]), "view")
    assert isinstance(view, GameView)
    assert view.status == GameStatus.FINISHED, f"the game ends finished, not {view.status}"
    assert view.standings, "a finished game has standings"

    # The events, as the typed models of the document, and the same through the stream.
    events = []
    after = 0
    while True:
        page = ok(list_events.sync(game_id, client=seats[1], after=after), "events")
        if not page.events:
            break
        events.extend(page.events)
        after = page.last_seq
    kinds = Counter(e.event["type"] for e in events)
    assert kinds["deal_started"] >= 1 and kinds["discarded"] >= 1, f"the game's events: {kinds}"
    streamed = ok(stream_events.sync(game_id, client=seats[1]), "stream")
    ids = [line[4:] for line in streamed.splitlines() if line.startswith("id: ")]
    data = [json.loads(line[6:]) for line in streamed.splitlines() if line.startswith("data: ")]
    assert len(ids) == len(events) == len(data), f"the stream holds every event: {len(ids)} of {len(events)}"
    assert [d["type"] for d in data] == [e.event["type"] for e in events], "the same events in the same order"
    print(f"a generated client played game {game_id} to the end: {moves} turns, {len(events)} events ({dict(kinds)})")


if __name__ == "__main__":
    main(sys.argv[1])
