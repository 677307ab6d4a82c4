//! Several lab disks served at once (`drivescope lab serve MODEL…`): one model at the mount
//! directory itself, several at `DIR/0`, `DIR/1`, …, all behind one shared bus when a rate is
//! given. Started together (a failure tears down what was started), stopped together.

use crate::{Bus, LabDevice, LabError, Model};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The disks served, in the order of their models.
pub struct LabGroup {
    devices: Vec<LabDevice>,
    bus: Option<Arc<Bus>>,
    /// The mount directory this group made (several disks), removed when it stops.
    made_root: Option<PathBuf>,
}

/// Why a group could not start: its bus, or the model and place that failed.
#[derive(Debug, thiserror::Error)]
pub enum GroupError {
    #[error(transparent)]
    Bus(LabError),
    #[error("serving '{model}' at {}: {source}", dir.display())]
    Start {
        model: String,
        dir: PathBuf,
        #[source]
        source: LabError,
    },
}

impl LabGroup {
    /// Serve `models` under `mount` (with a loop device each when `with_loop`), behind a bus of
    /// `bus_rate` MB/s when given.
    pub fn start(
        models: &[Model],
        mount: &Path,
        with_loop: bool,
        bus_rate: Option<f64>,
    ) -> Result<LabGroup, GroupError> {
        let fail = |model: &Model, dir: &Path| {
            let (model, dir) = (model.name.clone(), dir.to_path_buf());
            move |source| GroupError::Start { model, dir, source }
        };
        let bus = bus_rate
            .map(Bus::new)
            .transpose()
            .map_err(GroupError::Bus)?;
        let several = models.len() > 1;
        let made_root = (several && !mount.exists()).then(|| mount.to_path_buf());
        let mut group = LabGroup {
            devices: Vec::new(),
            bus: bus.clone(),
            made_root,
        };
        for (i, model) in models.iter().enumerate() {
            let dir = match several {
                false => mount.to_path_buf(),
                true => mount.join(i.to_string()),
            };
            // On failure the group is dropped: the disks started so far are torn down.
            let dev = LabDevice::start_on(model, &dir, with_loop, bus.clone())
                .map_err(fail(model, &dir))?;
            group.devices.push(dev);
        }
        Ok(group)
    }

    pub fn devices(&self) -> &[LabDevice] {
        &self.devices
    }

    pub fn bus(&self) -> Option<&Arc<Bus>> {
        self.bus.as_ref()
    }

    /// Tear every disk down, even when one fails to, and give the first failure.
    pub fn stop(mut self) -> Result<(), LabError> {
        let mut first = Ok(());
        for dev in std::mem::take(&mut self.devices) {
            let r = dev.stop();
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}

impl Drop for LabGroup {
    fn drop(&mut self) {
        // Devices not stopped by `stop` are torn down by their own drop first.
        self.devices.clear();
        if let Some(root) = &self.made_root {
            let _ = std::fs::remove_dir(root);
        }
    }
}
