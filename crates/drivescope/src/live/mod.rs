//! The full-screen live view of a scan on a terminal (ratatui over crossterm): what a frame
//! shows (`view`), how it is drawn (`render`), and the terminal it runs in (`term`).

pub mod render;
#[cfg(test)]
mod render_tests;
pub mod term;
pub mod view;
pub mod workload;
pub mod workload_render;
#[cfg(test)]
mod workload_tests;
