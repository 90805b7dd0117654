//! Applications.
