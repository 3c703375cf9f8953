//! The Continental Rummy HTTP service: the `engine` crate's rules on the network, as
//! `/work/shared/API.md` promises. `main.rs` only wires [`config::Settings`] into
//! [`startup::Application`].

pub mod auth;
pub mod config;
pub mod dto;
pub mod error;
pub mod extract;
pub mod metrics;
pub mod openapi;
pub mod play;
pub mod routes;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod view;
