//! Why the server could not start.

use std::net::SocketAddr;

/// Each message is whole: the store's or the system's words are the message, not a source
/// chained under it, so it reads the same however it is printed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("--token must be at least 16 characters")]
    ShortToken,
    #[error(
        "listening on {0} (not loopback) needs --token TOKEN or --token auto: anyone who \
         can reach the port could read every stored run"
    )]
    NoToken(SocketAddr),
    /// No token could be generated (the system's random source).
    #[error("{0}")]
    Token(std::io::Error),
    #[error("{0}")]
    Store(drivescope_store::Error),
    /// The socket could not be bound or set up.
    #[error("{0}")]
    Socket(std::io::Error),
}
