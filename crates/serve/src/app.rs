//! The server: options checked, the store opened read-only, the socket bound, then the routes
//! served on one thread (the store answers one request at a time).

use crate::error::ServeError;
use crate::{auth, metrics, pages};
use axum::routing::get;
use axum::Router;
use drivescope_store::{Location, Store};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};

/// The token a client must show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// None asked for (loopback only).
    None,
    /// This one.
    Given(String),
    /// One made at start and printed.
    Generated,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub listen: SocketAddr,
    pub token: Token,
    pub store: Location,
}

/// What the handlers share.
pub(crate) struct State {
    pub store: Mutex<Store>,
    pub token: Option<String>,
    pub metrics: metrics::Cache,
}

pub(crate) type Shared = Arc<State>;

/// A bound server, not yet answering.
pub struct Running {
    listener: TcpListener,
    state: Shared,
}

impl Options {
    /// Checks the options, opens the store read-only and binds the socket.
    pub fn start(self) -> Result<Running, ServeError> {
        let token = match self.token {
            Token::Given(t) if t.len() < 16 => return Err(ServeError::ShortToken),
            Token::Given(t) => Some(t),
            Token::Generated => Some(auth::generate().map_err(ServeError::Token)?),
            Token::None if !self.listen.ip().is_loopback() => {
                return Err(ServeError::NoToken(self.listen))
            }
            Token::None => None,
        };
        let store = Store::open_read_only(self.store).map_err(ServeError::Store)?;
        let listener = TcpListener::bind(self.listen).map_err(ServeError::Socket)?;
        listener.set_nonblocking(true).map_err(ServeError::Socket)?;
        Ok(Running {
            listener,
            state: Arc::new(State {
                store: Mutex::new(store),
                token,
                metrics: metrics::Cache::default(),
            }),
        })
    }
}

impl Running {
    /// The address it listens on (the port chosen when 0 was asked for).
    pub fn addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The token clients must show, when one is needed.
    pub fn token(&self) -> Option<&str> {
        self.state.token.as_deref()
    }

    /// Answers requests until the process ends.
    pub fn serve(self) -> std::io::Result<()> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()?;
        rt.block_on(async move {
            // /metrics reads each drive's latest documents once; read them now, so the first
            // scrape finds them read (a request that comes meanwhile waits for the store).
            let warm = self.state.clone();
            tokio::task::spawn_blocking(move || metrics::warm(&warm));
            let listener = tokio::net::TcpListener::from_std(self.listener)?;
            axum::serve(listener, router(self.state)).await
        })
    }
}

/// Every route; each request passes the token check first.
pub(crate) fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(pages::runs::page))
        .route("/runs/{id}", get(pages::run::page))
        .route("/runs/{id}/{format}", get(pages::run::download))
        .route("/runs/{id}/png/{chart}", get(pages::run::png))
        .route("/compare", get(pages::compare::page))
        .route("/drives/{serial}", get(pages::drive::page))
        .route("/metrics", get(metrics::page))
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::check,
        ))
        .with_state(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(listen: &str, token: Token, store: &str) -> Result<Running, ServeError> {
        Options {
            listen: listen.parse().unwrap(),
            token,
            store: Location::Sqlite(store.into()),
        }
        .start()
    }

    #[test]
    fn refusals_keep_their_words() {
        let e = start(
            "127.0.0.1:0",
            Token::Given("short".into()),
            "/nonexistent/x.db",
        );
        let e = e.err().expect("a short token is refused");
        assert!(matches!(e, ServeError::ShortToken));
        assert_eq!(e.to_string(), "--token must be at least 16 characters");
        let e = start("0.0.0.0:0", Token::None, "/nonexistent/x.db").err();
        assert_eq!(
            e.expect("no token beyond loopback is refused").to_string(),
            "listening on 0.0.0.0:0 (not loopback) needs --token TOKEN or --token auto: anyone \
             who can reach the port could read every stored run"
        );
        let e = start("127.0.0.1:0", Token::None, "/nonexistent-drivescope/x.db").err();
        let e = e.expect("a missing store is refused");
        assert!(matches!(e, ServeError::Store(_)), "{e:?}");
        assert!(e.to_string().starts_with("store: "), "{e}");
    }
}
