//! HTTP handlers: thin, each one parse → engine or store → answer.

pub mod games;
pub mod health;
pub mod rules;

use actix_web::web::ServiceConfig;

/// Registers every endpoint of the API.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(health::metrics)
        .service(rules::validate_meld)
        .service(rules::validate_contract)
        .service(rules::rulesets)
        .service(games::create_game)
        .service(games::join_game)
        .service(games::get_game)
        .service(games::draw_card)
        .service(games::claim_discard)
        .service(games::lay_melds)
        .service(games::lay_off)
        .service(games::swap_wild)
        .service(games::take_back_plays)
        .service(games::discard_card)
        .service(games::leave_game)
        .service(games::list_events)
        .service(games::stream_events)
        .service(games::get_hints);
}
