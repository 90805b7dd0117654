//! Discrete-event core.
