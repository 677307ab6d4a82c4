//! The token: shown as `Authorization: Bearer TOKEN`, as `?token=TOKEN` (which also sets a cookie,
//! so the page's links work), or as that cookie. Compared in constant time.

use crate::app::Shared;
use crate::fail::Fail;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::io::Read;

const COOKIE: &str = "drivescope_token";

/// 32 hex digits from the kernel's random source.
pub(crate) fn generate() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// The token the request shows, and whether it came in the query.
fn shown(req: &Request) -> Option<(String, bool)> {
    let h = req.headers();
    if let Some(t) = h
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        return Some((t.trim().to_string(), false));
    }
    if let Some(t) = req.uri().query().and_then(|q| {
        serde_urlencoded::from_str::<Vec<(String, String)>>(q)
            .ok()?
            .into_iter()
            .find(|(k, _)| k == "token")
            .map(|(_, v)| v)
    }) {
        return Some((t, true));
    }
    h.get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            c.trim()
                .strip_prefix(&format!("{COOKIE}="))
                .map(str::to_string)
        })
        .map(|t| (t, false))
}

pub(crate) async fn check(State(state): State<Shared>, req: Request, next: Next) -> Response {
    let Some(want) = state.token.as_deref() else {
        return next.run(req).await;
    };
    match shown(&req) {
        Some((t, from_query)) if same(&t, want) => {
            let mut res = next.run(req).await;
            if from_query {
                let cookie = format!("{COOKIE}={t}; HttpOnly; SameSite=Strict; Path=/");
                if let Ok(v) = HeaderValue::from_str(&cookie) {
                    res.headers_mut().insert(header::SET_COOKIE, v);
                }
            }
            res
        }
        _ => Fail(
            StatusCode::UNAUTHORIZED,
            "This drivescope serve asks for its token: open the address it printed at start \
             (with ?token=…), or send Authorization: Bearer TOKEN."
                .into(),
        )
        .into_response(),
    }
}
