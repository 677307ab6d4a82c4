//! A request that cannot be answered: its status and a sentence, as a page.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

#[derive(Debug)]
pub(crate) struct Fail(pub StatusCode, pub String);

impl Fail {
    pub fn bad(why: impl Into<String>) -> Fail {
        Fail(StatusCode::BAD_REQUEST, why.into())
    }

    pub fn not_found(why: impl Into<String>) -> Fail {
        Fail(StatusCode::NOT_FOUND, why.into())
    }

    /// A store or rendering error: the server's fault, said as it is.
    pub fn internal(e: impl std::fmt::Display) -> Fail {
        Fail(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        let page = crate::templates::render(
            "error.html",
            minijinja::context! {
                title => format!("{} {}", self.0.as_u16(), self.0.canonical_reason().unwrap_or("")),
                message => self.1,
            },
        )
        .unwrap_or_else(|e| format!("{}: {e}", self.0));
        (self.0, Html(page)).into_response()
    }
}
