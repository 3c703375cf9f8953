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
        .service(rules::rulesets);
}
