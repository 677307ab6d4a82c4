//! A run to report on: its number in the store and its typed record.

use drivescope_record::{DeviceSummary, Direction, Document, Event, Header};

/// One run: its number in the store (if stored) and its record.
#[derive(Debug, Clone)]
pub struct Run {
    pub id: Option<i64>,
    pub doc: Document,
}

impl Run {
    pub fn new(id: Option<i64>, doc: impl Into<Document>) -> Run {
        Run {
            id,
            doc: doc.into(),
        }
    }

    /// `scan`, `quick_scan`, `bench`, … as documents name the kind.
    pub fn kind(&self) -> String {
        self.doc.kind().as_str().to_string()
    }

    pub fn header(&self) -> Option<&Header> {
        self.doc.header()
    }

    /// What the run did: a write scan writes, a bench names each test's direction (its first test's is taken
    /// for the run), every other run reads.
    pub fn direction(&self) -> Direction {
        match &self.doc {
            Document::Scan(r) => r.direction(),
            Document::Sweep(r) => r.rw,
            Document::Soak(r) => r.rw,
            Document::Diagnose(_) => Direction::Read,
            Document::Screen(r) if r.write => Direction::Write,
            Document::Screen(_) => Direction::Read,
            Document::Bench(r) => r.tests.first().map_or(Direction::Read, |t| t.rw),
            Document::Multi(r) => r.tests.first().map_or(Direction::Read, |t| t.rw),
            Document::Capacity(_) | Document::Steady(_) | Document::Durability(_) => {
                Direction::Write
            }
            Document::Time(_) | Document::Replay(_) => Direction::Read,
            Document::Info(_) | Document::Unknown { .. } => Direction::Read,
        }
    }

    /// `run 12` or, for an unsaved document, its start time.
    pub fn label(&self) -> String {
        match (self.id, self.header()) {
            (Some(id), _) => format!("run {id}"),
            (None, Some(h)) if !h.started_at.is_empty() => h.started_at.clone(),
            _ => "unsaved run".into(),
        }
    }

    /// The device's model, serial, firmware, capacity and transport, as far as the record knows them.
    pub fn device_summary(&self) -> DeviceSummary {
        self.doc.device().map(DeviceSummary::of).unwrap_or_default()
    }

    /// The device in a few words: model and serial, else the device's kernel name, else the target path.
    pub fn device(&self) -> String {
        self.device_summary()
            .label()
            .or_else(|| self.header().map(|h| h.target.path.clone()))
            .unwrap_or_else(|| "?".into())
    }

    /// The date the run started (`2026-11-02`), or "".
    pub fn date(&self) -> &str {
        self.header()
            .map(|h| h.started_at.get(..10).unwrap_or(&h.started_at))
            .unwrap_or("")
    }

    /// A legend entry: `run 12 read · ACME HD4000 (S1) · 2026-11-02`.
    pub fn legend(&self) -> String {
        format!(
            "{} {} · {} · {}",
            self.label(),
            self.direction(),
            self.device(),
            self.date()
        )
    }
}

/// How many slow or failed commands a summary lists before it says how many more there are.
pub const LIST_MAX: usize = 20;

/// A run's slow or failed list: its key in the document, the commands kept, and how many there were.
pub struct EventList<'a> {
    pub key: &'static str,
    pub events: &'a [Event],
    pub total: u64,
}

impl Run {
    /// The identity of the run as (name, value) lines: device, serial, firmware, capacity (bytes), transport,
    /// target, host, start and end, version. Unknown values are left out.
    pub fn identity_fields(&self) -> Vec<(&'static str, String)> {
        let d = self.device_summary();
        let mut out = Vec::new();
        let mut put = |name, v: Option<String>| {
            if let Some(v) = v {
                out.push((name, v));
            }
        };
        put("Device", d.model.clone().or(d.name.clone()));
        put("Serial", d.serial);
        put("Firmware", d.firmware);
        put("Capacity (bytes)", d.capacity.map(|c| c.to_string()));
        put("Transport", d.transport);
        if let Some(h) = self.header() {
            put("Target", Some(h.target.path.clone()));
            put("Host", Some(h.host.clone()).filter(|s| !s.is_empty()));
            put("Started", Some(h.started_at.clone()));
            put("Ended", Some(h.ended_at.clone()));
            put("drivescope", Some(h.tool.version.clone()));
        }
        out
    }

    /// The slow and failed lists of a scan (none for other kinds).
    pub fn event_lists(&self) -> Vec<EventList<'_>> {
        match &self.doc {
            Document::Scan(s) => vec![
                EventList {
                    key: "slow",
                    events: &s.slow,
                    total: s.slow_total,
                },
                EventList {
                    key: "failed",
                    events: &s.failed,
                    total: s.failed_total,
                },
            ],
            _ => Vec::new(),
        }
    }
}
