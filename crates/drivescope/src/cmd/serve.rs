//! `drivescope serve`: the results store in a web browser (see drivescope-serve).

use crate::opts::store::StorePath;
use drivescope_serve::{Options, Token};

use crate::finish::Outcome;
use std::net::SocketAddr;

#[derive(clap::Args)]
pub struct ServeArgs {
    /// Address and port to listen on. Anything but loopback needs --token.
    #[arg(long, default_value = "127.0.0.1:8686", value_name = "ADDR:PORT")]
    pub listen: SocketAddr,
    /// The token every request must show (at least 16 characters), or `auto` for one made now
    /// and printed. Needed to listen beyond loopback.
    #[arg(long, value_name = "TOKEN|auto")]
    pub token: Option<String>,
    #[command(flatten)]
    pub store: StorePath,
}

/// `--token`: none, `auto` (one made up at start), or the one given.
fn token(arg: Option<&str>) -> Token {
    match arg {
        None => Token::None,
        Some("auto") => Token::Generated,
        Some(t) => Token::Given(t.to_string()),
    }
}

/// Why the server did not start; serving every stored run to whoever reaches the port without
/// a token is refused for safety.
fn start_error(e: drivescope_serve::ServeError) -> anyhow::Error {
    match e {
        drivescope_serve::ServeError::NoToken(_) => {
            anyhow::Error::new(crate::finish::Refused(format!("serve: {e}")))
        }
        e => anyhow::anyhow!("serve: {e:#}"),
    }
}

pub fn run(a: ServeArgs) -> anyhow::Result<Outcome> {
    let token = token(a.token.as_deref());
    // Read-only: a store of an older schema is refused with how to upgrade it, not upgraded.
    let store = a.store.present()?;
    let running = Options {
        listen: a.listen,
        token,
        store: store.clone(),
    }
    .start()
    .map_err(start_error)?;
    let addr = running.addr()?;
    let url = match running.token() {
        Some(t) => format!("http://{addr}/?token={t}"),
        None => format!("http://{addr}/"),
    };
    eprintln!("drivescope: serving the results store {store} (read-only) at {url}");
    running.serve()?;
    Ok(Outcome::Success)
}
