//! `drivescope serve`: a read-only web dashboard over the results store. Runs, one run's report
//! page (the report's own rendering), comparisons and one drive's trend, served with their assets
//! by the binary (no scripts, no network), and `/metrics` for Prometheus. Listening beyond loopback needs a token. The store is
//! opened read-only: no request changes it.

mod app;
mod auth;
mod error;
mod exposition;
mod fail;
mod metrics;
mod pages;
mod query;
mod templates;

pub use app::{Options, Running, Token};
pub use error::ServeError;
