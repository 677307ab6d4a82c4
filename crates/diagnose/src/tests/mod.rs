//! The experiments on modelled devices (see [`model`]): each behaviour the diagnosis explains, and a twin
//! without it that must stay silent; the budget, a stop, device errors and a resumed run. Virtual time: a
//! minute-long diagnosis runs in milliseconds, with no device and no root.

mod array;
mod bad_spots;
mod budget;
mod errors;
mod flush_counted;
mod flush_honesty;
mod flush_model;
mod link;
mod model;
mod model_tests;
mod queueing;
mod read_cache;
mod resume;
mod screen_space;
mod smr;
mod space;
mod space_tests;
mod stop;
mod stream_tests;
mod support;
mod throttle;
mod warm_up;
mod write_burst;
mod zones;
