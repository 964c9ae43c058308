#![forbid(unsafe_code)]
//! omniroute: the resilience core of an LLM API gateway.

pub mod classify;
pub mod resilience;
pub mod rules;
