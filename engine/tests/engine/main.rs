//! The engine's integration tests, one binary: play scenarios per rule, simulations, replay.

mod helpers;
mod play_basics;
mod play_may_i;
mod play_sim;
