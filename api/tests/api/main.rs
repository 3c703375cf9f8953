//! Black-box tests of the running service: each test starts it on port 0 with a fresh
//! database, on SQLite always and on PostgreSQL when `DATABASE_URL` points at one.
//! A "§N" in a test's message is section N of docs/rules.md. What the tests share is in
//! `helpers` (and its modules); no test module uses another.

mod bots;
mod citus;
mod contract;
mod corrupt;
mod crash;
mod deadlines;
mod docs;
mod faults;
mod games;
mod hands;
mod health;
mod helpers;
mod hints;
mod http;
mod idle;
mod layers;
mod logs;
mod matchmaking;
mod meld_problems;
mod openapi;
mod options;
mod pace;
mod packs;
mod page;
mod passes;
mod problems;
mod ratings;
mod rematch;
mod replay;
mod retries;
mod rules;
mod seats;
mod streams;
mod studio;
mod studio_hands;
mod tokens;
mod tournaments;
mod traces;
mod validation;
mod webhooks;
mod writes;
