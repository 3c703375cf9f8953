//! The Continental Rummy HTTP service: the `engine` crate's rules on the network, as
//! docs/api.md promises. `main.rs` only wires [`config::Settings`] into
//! [`startup::Application`].
//!
//! The layers, each depending only on those below it (ARCHITECTURE.md draws them all, and
//! `api/tests/api/layers.rs` fails on an import against them): [`http`] (handlers) →
//! [`service`] (one function per use case) → [`error`] (every lower module's error mapped to a
//! status) → [`wire`] (request and response types) → [`store`] (the database) → [`domain`] (the
//! hosted game, pure), with the settings, the log, traces and metrics below the store.

pub mod auth;
pub mod background;
pub mod config;
pub mod domain;
pub mod error;
pub mod http;
pub mod limits;
pub mod live;
pub mod metrics;
pub mod openapi;
pub mod queue;
pub mod server_keys;
pub mod service;
pub mod startup;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod wire;
pub mod workers;
