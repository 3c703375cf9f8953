//! The engine's integration tests, one binary: each module covers one part of RULES.md.

mod contracts;
mod extending;
mod helpers;
mod melds;
mod search;
