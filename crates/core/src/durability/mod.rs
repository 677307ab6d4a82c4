//! Durability: what the storage keeps once it acknowledged it, and what making a write durable costs.

pub mod commit;
