//! The engine's integration tests, one binary: each module covers one part of docs/rules.md. A
//! "§N" in a row's message is section N of that page.

mod between_games;
mod contracts;
mod extending;
mod hands;
mod helpers;
mod hints;
mod load;
mod melds;
mod play_basics;
mod play_bot;
mod play_bot_levels;
mod play_continental;
mod play_contract_7;
mod play_helpers;
mod play_may_i;
mod play_push;
mod play_sim;
mod props;
mod rng;
mod rulesets;
#[cfg(feature = "utoipa")]
mod schema;
mod search;
mod supply;
