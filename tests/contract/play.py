"""A client generated from openapi/openapi.json by openapi-python-client plays a whole two-seat
game of may_i against the service, using only the generated code: its models, its typed enums,
its typed house options (sent at creation, read back from the view) and typed events (one model per event `type`), its events and stream endpoints, and a rematch. The stream
is read through the generated endpoint's request and client; each message's `data` is an event
of the document, read with the generated models.

Usage: PYTHONPATH=<dir holding continental_client> python play.py http://127.0.0.1:PORT
"""

import json
import sys
from collections import Counter

from continental_client import AuthenticatedClient, Client
from continental_client.api.games import (
    claim_discard,
    create_game,
    discard_card,
    draw_card,
    get_game,
    get_hints,
    lay_melds,
    lay_off,
    list_events,
    rematch,
    stream_events,
)
from continental_client.api.validation import rulesets
from continental_client.models import (
    CreateGameRequest,
    CreateGameResponse,
    DealStartedEvent,
    DiscardRequest,
    DiscardedEvent,
    DrawRequest,
    DrawSource,
    GameStatus,
    GameView,
    HintsResponse,
    HouseOptions,
    LayoffRequest,
    LoggedEvent,
    MeldRequest,
    Phase,
    Problem,
    ProblemCode,
    RematchResponse,
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
    # A draw from an exhausted stock ends the deal: the next one starts with a draw, maybe by
    # another seat, and the main loop plays it.
    if view.turn is None or view.turn.seat != view.you.seat or view.turn.phase != Phase.PLAY:
        return view
    hints = ok(get_hints.sync(game_id, client=client), "hints")
    assert isinstance(hints, HintsResponse)
    if hints.contract not in (None, UNSET):
        # A hint is a body for POST /melds as it is.
        view = ok(lay_melds.sync(game_id, client=client, body=MeldRequest(melds=hints.contract)), "meld")
    for _ in range(20):
        if view.turn is None or view.turn.seat != view.you.seat or len(view.you.hand) <= 1:
            break
        hints = ok(get_hints.sync(game_id, client=client), "hints")
        if not hints.layoffs:
            break
        hint = hints.layoffs[0]
        # A lay-off hint is a body for POST /layoffs as it is, with what its wild represents.
        body = LayoffRequest(meld_id=hint.meld_id, cards=[hint.card], wilds=hint.wilds)
        view = ok(lay_off.sync(game_id, client=client, body=body), "lay off")
    if view.turn is not None and view.turn.seat == view.you.seat and view.status == GameStatus.PLAYING:
        discards = [a for a in view.legal_actions if a.type_.value == "discard"]
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
            body=CreateGameRequest(
                variant=Variant.MAY_I,
                options=HouseOptions(deuces_wild=True, turn_seconds=3600),
                seats=[SeatSpec(name="Ann"), SeatSpec(name="Bob")],
            ),
        ),
        "create",
    )
    assert isinstance(created, CreateGameResponse)
    game_id = created.id
    seats = [AuthenticatedClient(base_url=url, token=s.token, raise_on_unexpected_status=True) for s in created.seats]

    # A refusal is a typed problem: asking "May I?" in turn is not a claim.
    view = ok(get_game.sync(game_id, client=seats[0]), "view")
    # The options come back as the typed model they were sent as.
    assert isinstance(view.options, HouseOptions), f"typed options: {view.options!r}"
    assert view.options.deuces_wild is True, f"deuces_wild as sent: {view.options}"
    assert view.options.turn_seconds == 3600, f"turn_seconds as sent: {view.options}"
    assert view.options.first_upcard_claims is True, f"first_upcard_claims at its default: {view.options}"
    refused = claim_discard.sync(game_id, client=seats[view.turn.seat])
    assert isinstance(refused, Problem) and refused.code in ProblemCode, f"a refusal is a Problem: {refused}"

    moves = 0
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

    # Both players ask for a rematch: one new game, each in their own seat of it with a token of
    # their own, dealt once the last has asked.
    asked = [ok(rematch.sync(game_id, client=s), f"seat {i}'s rematch") for i, s in enumerate(seats)]
    assert all(isinstance(a, RematchResponse) for a in asked), f"typed answers: {asked}"
    assert asked[0].id == asked[1].id != game_id, f"one new game: {asked}"
    assert [a.seat for a in asked] == [0, 1], f"each in their own seat: {asked}"
    again = [AuthenticatedClient(base_url=url, token=a.token, raise_on_unexpected_status=True) for a in asked]
    rematch_view = ok(get_game.sync(asked[0].id, client=again[1]), "the rematch's view")
    assert rematch_view.you.seat == 1, f"the second token opens the second seat: {rematch_view.you}"
    assert rematch_view.status != GameStatus.WAITING, f"dealt once both asked: {rematch_view.status}"
    assert ok(get_game.sync(game_id, client=seats[0]), "view").rematch == asked[0].id, "the view says where"

    # The events, as the typed models of the document, and the same through the stream.
    events = []
    after = 0
    while True:
        page = ok(list_events.sync(game_id, client=seats[1], after=after), "events")
        if not page.events:
            break
        events.extend(page.events)
        after = page.last_seq
    kinds = Counter(e.event.type_.value for e in events)
    assert any(isinstance(e.event, DealStartedEvent) for e in events), f"the game's events: {kinds}"
    assert any(isinstance(e.event, DiscardedEvent) for e in events), f"the game's events: {kinds}"
    assert events[-1].event.type_.value == "rematch", f"a finished game's last event is its rematch: {kinds}"
    streamed = read_stream(seats[1], game_id)
    assert len(streamed) == len(events), f"the stream holds every event: {len(streamed)} of {len(events)}"
    assert [s.seq for s in streamed] == [e.seq for e in events], "the same sequence numbers"
    assert [s.event for s in streamed] == [e.event for e in events], "the same events, typed alike"
    print(f"a generated client played game {game_id} to the end: {moves} turns, {len(events)} events ({dict(kinds)})")


def read_stream(client, game_id):
    """The finished game's stream (it ends after its rematch event), each message typed as an event."""
    request = stream_events._get_kwargs(game_id)
    reply = client.get_httpx_client().request(**request)
    assert reply.status_code == 200, f"stream: {reply.status_code} {reply.text}"
    assert reply.headers["content-type"].startswith("text/event-stream"), reply.headers["content-type"]
    out = []
    for message in reply.text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in message.splitlines() if not line.startswith(":"))
        if not fields:
            continue
        assert fields["event"] != "error", f"the stream failed: {fields}"
        event = LoggedEvent.from_dict({"seq": int(fields["id"]), "event": json.loads(fields["data"])})
        assert event.event.type_.value == fields["event"], f"`event` names the type: {fields}"
        out.append(event)
    return out


if __name__ == "__main__":
    main(sys.argv[1])
