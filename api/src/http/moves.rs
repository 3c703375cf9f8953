//! The moves: one endpoint per action, each parsing its body into the engine's `Action`
//! and handing it to [`service::act`] under the idempotency protocol.

use actix_web::web::{Bytes, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse, post, web};
use engine::{Action, ActionKind};
#[cfg(test)]
use serde_json::json;
use uuid::Uuid;

use super::extract::JsonBody;
use super::idempotency::{self, answer};
use super::if_match;
use crate::error::ApiError;
use crate::service;
use crate::state::AppState;
use crate::store::KeyScope;
use crate::wire::{
    ClaimRequest, DiscardRequest, DrawRequest, EmptyRequest, GameView, Invalid, LayoffRequest, LeaveRequest,
    MeldRequest, PassRequest, Problem, SuspendRequest, SwapRequest, TakeBackRequest,
};

/// One move: the seat token, the body parsed into an action, the idempotency key, then the
/// service; answers with the seat's new view.
async fn perform(
    state: &AppState,
    req: &HttpRequest,
    id: Uuid,
    raw: &Bytes,
    action: Result<Action, Invalid>,
) -> Result<HttpResponse, ApiError> {
    let claims = state.keys.seat_for(req, id)?;
    let action = action?;
    let if_match = if_match(req)?;
    let key = idempotency::key(req, KeyScope::Game, id, i64::from(claims.seat), raw)?;
    let response = idempotency::once(state, key, async |key| {
        service::act(state, id, &claims, if_match, key, action).await
    })
    .await?;
    Ok(answer(response))
}

/// Documents one move endpoint: its path, summary, body and every answer.
macro_rules! move_endpoint {
    ($(#[$doc:meta])* $fn:ident, $path:literal, $body:ty, $example:expr, |$v:ident| $make:expr) => {
        $(#[$doc])*
        #[utoipa::path(
            post, path = $path, tag = "games",
            params(("id" = Uuid, Path, description = "Game id."),
                ("If-Match" = Option<String>, Header, description = "Act only if the game is at this version (its ETag); else 412."),
                ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, pattern = "^[!-~]{1,200}$", description = "1 to 200 visible ASCII characters. A retry with the same key and body returns the first response.")),
            security(("seat_token" = [])),
            request_body(content = $body, description = "A JSON object of at most 8 KiB (or no body where every field is optional).", example = $example),
            responses(
                (status = 200, description = "Accepted: the seat's new view of the game.", body = GameView,
                    headers(("ETag" = String, description = "The game's new version."))),
                (status = 400, description = "Malformed body, unknown card (`unknown_card`), unknown field.", body = Problem, content_type = "application/problem+json"),
                (status = 401, description = "Missing, expired, tampered or replaced seat token (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
                (status = 403, description = "A token of another game, of a seat that is not a player's, or a spectator's (`forbidden`).", body = Problem, content_type = "application/problem+json"),
                (status = 404, description = "No such game (`game_not_found`).", body = Problem, content_type = "application/problem+json"),
                (status = 409, description = "Not now: `not_your_turn`, `wrong_phase`, `game_over`, `seat_left`, `game_not_started`, \
                    `game_suspended` (only `resume` while suspended), `not_between_deals`, `already_asked`, `not_suspended`, `suspension_expired`, \
                    on a server without server keys the last person leaving a table of bots while `CONTINENTAL_OPEN_BOT_TABLES` tables of bots alone \
                    are in play (`bot_tables_full`), or, rarely, a request with this Idempotency-Key acting at the same moment (`request_in_progress`).", body = Problem, content_type = "application/problem+json",
                    example = json!({"type": "urn:continental:problem:not_your_turn", "title": "Conflict", "status": 409, "detail": "it is not your turn", "code": "not_your_turn"})),
                (status = 412, description = "`If-Match` names an old version (`stale_version`); nothing changed.", body = Problem, content_type = "application/problem+json"),
                (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
                (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
                (status = 422, description = "The rules refuse the move (`card_not_in_hand`, `illegal_meld`, `contract_not_met`, `ambiguous_meld`, \
                    `invalid_swap` for a swap that mixes a wild's replacement and a joker's move, ...); \
                    an `ambiguous_meld` lists the `readings` to choose from, an `illegal_meld` or `contract_not_met` its `reasons`; \
                    or the Idempotency-Key was used with another body (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json",
                    example = json!({"type": "urn:continental:problem:card_not_in_hand", "title": "Unprocessable Entity", "status": 422, "detail": "not in your hand: 7H", "code": "card_not_in_hand"}))
            )
        )]
        #[post($path)]
        pub async fn $fn(
            state: web::Data<AppState>,
            req: HttpRequest,
            id: web::Path<Uuid>,
            body: JsonBody<$body>,
        ) -> Result<HttpResponse, ApiError> {
            let JsonBody { value: $v, raw } = body;
            let action: Result<Action, Invalid> = $make;
            perform(&state, &req, id.into_inner(), &raw, action).await
        }
    };
}

/// Every move: its handler, `#[utoipa::path]` document and registration come from this one list.
macro_rules! moves {
    ($($(#[$doc:meta])* $fn:ident, $path:literal, [$($kind:ident),+], $body:ty, $example:expr, |$v:ident| $make:expr;)*) => {
        $(move_endpoint!($(#[$doc])* $fn, $path, $body, $example, |$v| $make);)*

        /// Each move endpoint's path and the kinds of [`Action`] its bodies make: together, every
        /// kind there is (a test holds them to [`ActionKind`]'s).
        pub const MOVES: &[(&str, &[ActionKind])] = &[$(($path, &[$(ActionKind::$kind),+])),*];

        /// Each endpoint's documented example, parsed as its body and made an action: the kind
        /// it makes, beside the kinds its row lists.
        #[cfg(test)]
        fn examples() -> Vec<(&'static str, &'static [ActionKind], Result<ActionKind, Invalid>)> {
            vec![$({
                let example: serde_json::Value = $example;
                let $v: $body = serde_json::from_value(example).expect("the example is a body");
                let action: Result<Action, Invalid> = $make;
                ($path, &[$(ActionKind::$kind),+][..], action.map(|a| a.kind()))
            }),*]
        }

        /// Registers every move endpoint.
        pub fn configure(cfg: &mut ServiceConfig) {
            $(cfg.service($fn);)*
        }

        /// The `#[utoipa::path]` document of every move endpoint.
        #[derive(utoipa::OpenApi)]
        #[openapi(paths($($fn),*))]
        pub struct Endpoints;
    };
}

moves! {
    /// Draws a card from the stock or the discard pile.
    ///
    /// The first move of a turn (`turn.phase` `draw`); the answer is in phase `play`.
    draw_card, "/v1/games/{id}/draw", [Draw], DrawRequest, json!({"source": "stock"}),
    |b| Ok(b.0);
    /// Asks "May I?" for the top discard, out of turn.
    ///
    /// Where the variant has claims: the claim is settled when the seat in turn draws.
    claim_discard, "/v1/games/{id}/claims", [Claim], ClaimRequest, json!({}),
    |b| Ok(b.0);
    /// Passes on the top discard ("No, go on"), out of turn.
    ///
    /// Where the variant has claims, a seat that could claim the discard on offer says it will
    /// not: it may not claim it afterwards. Once every person who could claim has passed, the
    /// bot in turn plays on without waiting out the claim window
    /// ([pace](https://github.com/continental-rummy/continental/blob/main/docs/api.md#the-claim-window-and-the-bots-pace)).
    pass_discard, "/v1/games/{id}/pass", [Pass], PassRequest, json!({}),
    |b| Ok(b.0);
    /// Lays new melds.
    ///
    /// Going down with the deal's contract, later melds where the variant allows them, or
    /// going out all at once in `continental`. A meld that reads several ways must say its
    /// `kind` and what its wilds represent.
    lay_melds, "/v1/games/{id}/melds", [Meld], MeldRequest, json!({"melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]}),
    |b| Ok(b.0);
    /// Lays cards off onto a meld on the table.
    ///
    /// Once down: the cards extend the meld `meld_id`; `wilds` says what added wilds represent
    /// where more than one place fits.
    lay_off, "/v1/games/{id}/layoffs", [LayOff], LayoffRequest, json!({"meld_id": 2, "cards": ["8H"]}),
    |b| Ok(b.0);
    /// Replaces a wild in a meld, or moves a joker.
    ///
    /// A natural card from hand takes the place of the wild it represents; in `contract_7` a
    /// joker at the end of a run may move to another run instead.
    swap_wild, "/v1/games/{id}/swaps", [Swap, MoveJoker], SwapRequest, json!({"meld_id": 1, "card": "7H"}),
    |b| Action::try_from(b);
    /// Takes back this turn's table plays (`may_i`).
    ///
    /// All of them, or one with `{"play": n}` (its `play` in `you.plays`).
    take_back_plays, "/v1/games/{id}/take_back", [TakeBack], TakeBackRequest, json!({"play": 1}),
    |b| Ok(b.0);
    /// Discards a card, ending the turn.
    ///
    /// The card goes on the discard pile and the turn passes (bots then play theirs).
    discard_card, "/v1/games/{id}/discard", [Discard], DiscardRequest, json!({"card": "7H"}),
    |b| Ok(b.0);
    /// Leaves the game for good.
    ///
    /// Scored as the rules say
    /// ([leaving](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#leaving)).
    ///
    /// Before the deal it gives the seat up instead: the seat is open again for someone to
    /// join, and this seat token stops working.
    leave_game, "/v1/games/{id}/leave", [Leave], LeaveRequest, json!({}),
    |b| Ok(b.0);
    /// `may_i`, between deals: asks to suspend the game.
    ///
    /// As the rules say
    /// ([suspending](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#suspension)).
    ///
    /// When every seat still in the game has asked (`suspend_requests`), `status` is
    /// `suspended` and nothing but `resume` is accepted. Asked in the middle of a deal: 409
    /// `not_between_deals`; in another variant: 422 `not_in_variant`.
    suspend_game, "/v1/games/{id}/suspend", [Suspend], SuspendRequest, json!({}),
    |b| Ok(b.0);
    /// Asks to resume a suspended game.
    ///
    /// As the rules say
    /// ([suspending](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#suspension)).
    ///
    /// When every seat still in the game has asked (`resume_requests`), play goes on. Only
    /// within the calendar year (UTC) in which the game started: later, 409
    /// `suspension_expired`; a game that is not suspended: 409 `not_suspended`.
    resume_game, "/v1/games/{id}/resume", [Resume], EmptyRequest, json!({}),
    |_b| Ok(Action::Resume { year: service::utc_year() });
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use engine::ActionKind;
    use strum::IntoEnumIterator;

    use super::{MOVES, examples};

    #[test]
    fn every_kind_of_action_has_one_endpoint() {
        let mut listed = BTreeSet::new();
        for (path, kinds) in MOVES {
            for kind in *kinds {
                assert!(listed.insert(*kind), "{kind} has one endpoint, not also {path}");
            }
        }
        assert_eq!(
            listed,
            ActionKind::iter().collect(),
            "the moves are the engine's actions"
        );
    }

    #[test]
    fn each_endpoints_example_makes_an_action_of_its_kinds() {
        for (path, kinds, made) in examples() {
            let kind = made.unwrap_or_else(|e| panic!("{path}'s example is refused: {e}"));
            assert!(kinds.contains(&kind), "{path} makes {kind}, not one of {kinds:?}");
        }
    }
}
