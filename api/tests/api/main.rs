//! Black-box tests of the running service: each test starts it on port 0 with a fresh
//! database, on SQLite always and on PostgreSQL when `DATABASE_URL` points at one.

mod games;
mod health;
mod helpers;
mod meld_problems;
mod openapi;
mod problems;
mod retries;
mod seats;
mod tokens;
mod validation;
