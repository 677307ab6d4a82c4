//! The pieces every live view draws, written once so that a fix lands in all of them: the
//! curve canvas (`curve`), the row of slow and failed marks under it (`marks`), the value
//! labels left of a plot and the range's ends under it (`gutter`), the response-time bands
//! (`bands`) and the help overlay (`help`). Each is a pure function of what it is given.

pub mod bands;
pub mod curve;
pub mod gutter;
pub mod help;
pub mod marks;
#[cfg(test)]
mod tests;
