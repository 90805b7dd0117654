//! Network models.
