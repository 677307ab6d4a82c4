//! The full-screen live view of a scan on a terminal (ratatui over crossterm): what a frame
//! shows (`view`), how it is drawn (`render`), and the terminal it runs in (`term`); the view of
//! `screen`'s drives at once (`screen`, drawn by `screen_render`); the view of a workload run
//! (`workload`, drawn by `workload_render`, a steady-state test's convergence panel by
//! `steady_render`); the pieces every view draws (`widgets`).

pub mod render;
#[cfg(test)]
mod render_tests;
pub mod screen;
pub mod screen_render;
#[cfg(test)]
mod screen_render_tests;
pub mod steady_render;
#[cfg(test)]
mod steady_render_tests;
pub mod term;
pub mod view;
pub mod widgets;
pub mod workload;
pub mod workload_render;
#[cfg(test)]
mod workload_tests;
