//! Resilience state machines. They take the time as an argument; only `clock` reads it.

pub mod clock;
