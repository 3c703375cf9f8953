//! The Continental Rummy HTTP service: the `engine` crate's rules on the network, as
//! docs/api.md promises. `main.rs` only wires [`config::Settings`] into
//! [`startup::Application`].
//!
//! The layers, each a folder, each depending only on those below it (see ARCHITECTURE.md):
//! [`http`] (handlers) → [`service`] (one function per use case) → [`domain`] (the hosted
//! game, pure), [`store`] (the database) and [`wire`] (request and response types); [`error`] maps
//! every module's error to a status.

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
