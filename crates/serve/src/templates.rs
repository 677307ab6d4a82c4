//! The pages' templates, compiled into the binary (`.html` names: text is HTML-escaped).

use minijinja::Environment;
use std::sync::OnceLock;

fn env() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, text) in [
            ("base.html", include_str!("../templates/base.html")),
            ("runs.html", include_str!("../templates/runs.html")),
            ("drive.html", include_str!("../templates/drive.html")),
            ("error.html", include_str!("../templates/error.html")),
            ("style.css", drivescope_report::html::STYLE),
        ] {
            env.add_template(name, text).expect("template parses");
        }
        env
    })
}

pub(crate) fn render(name: &str, ctx: minijinja::Value) -> Result<String, minijinja::Error> {
    env().get_template(name)?.render(ctx)
}
