//! Where the power-cut test's acknowledgements go: a log file on other storage, appended and
//! synced line by line, or a listener on another machine that does the same with them.
//!
//! The line protocol over TCP (one line each way per step, `\n`-terminated):
//! `HELLO <log header>` → `OK`; `ACK <number> <checksum>` → `OK <number>` once the listener's
//! log holds the line durably; `END` when the writer stops. A writer sends the next record only
//! after its `OK`, so whatever the writer counts as acknowledged is in the listener's log.

use super::power_cut::{ack_line, LogHeader};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;

/// Something that keeps acknowledgements durably.
pub trait AckSink {
    /// Keep record `number` (checksum `sum`) as acknowledged; returns once it is durable.
    fn ack(&mut self, number: u64, sum: u64) -> Result<(), String>;
    /// The writer stops.
    fn end(&mut self) {}
}

/// A new log file (never an existing one): its header written and synced, the directory entry
/// too, so that the file itself survives a cut.
pub fn create_log(path: &Path, header: &LogHeader) -> std::io::Result<File> {
    let mut f = OpenOptions::new()
        .append(true)
        .create_new(true)
        .open(path)?;
    writeln!(f, "{}", header.line())?;
    f.sync_all()?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()?;
    Ok(f)
}

/// Append one line and sync it (`fdatasync`).
fn append(f: &mut File, line: &str) -> std::io::Result<()> {
    f.write_all(format!("{line}\n").as_bytes())?;
    f.sync_data()
}

/// Whether a log at `log` would be on the storage under test (`target`'s metadata): the same
/// file system as a directory target; a device target itself, a partition of it, or a device
/// built on it (md, dm) under the log's file system.
pub fn on_target(log: &Path, target: &std::fs::Metadata) -> std::io::Result<bool> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let dir = match log.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir_dev = std::fs::metadata(dir)?.dev();
    if !target.file_type().is_block_device() {
        return Ok(dir_dev == target.dev());
    }
    let t = target.rdev();
    Ok(dir_dev == t
        || match (sysfs_of(dir_dev), sysfs_of(t)) {
            (Some(d), Some(t)) => rests_on(&d, &t, 0),
            _ => false,
        })
}

/// The kernel's sysfs directory of block device `dev` (its device number).
fn sysfs_of(dev: u64) -> Option<std::path::PathBuf> {
    std::fs::canonicalize(format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ))
    .ok()
}

/// Whether the block device at sysfs `dev` is `target`, a partition of it, or built on it.
fn rests_on(dev: &Path, target: &Path, depth: u32) -> bool {
    if dev.starts_with(target) {
        return true;
    }
    depth < 8
        && std::fs::read_dir(dev.join("slaves")).is_ok_and(|d| {
            d.flatten().any(|e| {
                std::fs::canonicalize(e.path()).is_ok_and(|s| rests_on(&s, target, depth + 1))
            })
        })
}

/// The log file on this machine.
pub struct FileLog {
    file: File,
    name: String,
}

impl FileLog {
    pub fn create(path: &Path, header: &LogHeader) -> std::io::Result<FileLog> {
        Ok(FileLog {
            file: create_log(path, header)?,
            name: path.display().to_string(),
        })
    }
}

impl AckSink for FileLog {
    fn ack(&mut self, number: u64, sum: u64) -> Result<(), String> {
        append(&mut self.file, &ack_line(number, sum)).map_err(|e| format!("{}: {e}", self.name))
    }
}

/// The log kept by a listener on another machine.
pub struct NetLog {
    stream: BufReader<TcpStream>,
    addr: String,
}

impl NetLog {
    /// Connect to the listener at `addr` (HOST:PORT) and open the run's log there.
    pub fn connect(addr: &str, header: &LogHeader) -> Result<NetLog, String> {
        let stream = TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
        let _ = stream.set_nodelay(true);
        let mut log = NetLog {
            stream: BufReader::new(stream),
            addr: addr.into(),
        };
        let reply = log.ask(&format!("HELLO {}", header.line()))?;
        if reply != "OK" {
            return Err(format!("{addr}: the listener refused the log: {reply}"));
        }
        Ok(log)
    }

    fn ask(&mut self, line: &str) -> Result<String, String> {
        let gone = |e: Option<std::io::Error>| {
            format!(
                "the log listener at {} went away{}",
                self.addr,
                e.map(|e| format!(" ({e})")).unwrap_or_default()
            )
        };
        self.stream
            .get_mut()
            .write_all(format!("{line}\n").as_bytes())
            .map_err(|e| gone(Some(e)))?;
        let mut reply = String::new();
        match self.stream.read_line(&mut reply) {
            Ok(0) => Err(gone(None)),
            Ok(_) if reply.ends_with('\n') => Ok(reply.trim_end().to_string()),
            Ok(_) => Err(gone(None)),
            Err(e) => Err(gone(Some(e))),
        }
    }
}

impl AckSink for NetLog {
    fn ack(&mut self, number: u64, sum: u64) -> Result<(), String> {
        let reply = self.ask(&format!("ACK {}", ack_line(number, sum)))?;
        if reply == format!("OK {number}") {
            Ok(())
        } else {
            Err(format!(
                "the log listener at {} answered {reply:?} to record {number}",
                self.addr
            ))
        }
    }

    fn end(&mut self) {
        let _ = self.stream.get_mut().write_all(b"END\n");
    }
}

/// How a listener's session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listened {
    /// Where the writer was.
    pub peer: String,
    /// Records the log holds.
    pub records: u64,
    /// The writer said it stopped (false: the connection was lost, as in a power cut).
    pub ended: bool,
}

/// Serve one writer on `listener`: its log goes to a new file at `log`. Every acknowledgement
/// is in the file, synced, before the writer hears `OK`.
pub fn serve_one(listener: &TcpListener, log: &Path) -> Result<Listened, String> {
    let (stream, peer) = listener.accept().map_err(|e| format!("accept: {e}"))?;
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
    let mut writer = stream;
    let mut out = Listened {
        peer: peer.to_string(),
        records: 0,
        ended: false,
    };
    let mut file: Option<File> = None;
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return Ok(out),
            Ok(_) if !line.ends_with('\n') => return Ok(out),
            Ok(_) => {}
        }
        let l = line.trim_end();
        let reply = if let Some(h) = l.strip_prefix("HELLO ") {
            if file.is_some() {
                "ERR the log is open already".to_string()
            } else {
                let Some(header) = LogHeader::parse(h) else {
                    let _ = writer.write_all(b"ERR not a power-cut log header\n");
                    return Err(format!("{peer} sent no power-cut log header"));
                };
                file =
                    Some(create_log(log, &header).map_err(|e| format!("{}: {e}", log.display()))?);
                "OK".into()
            }
        } else if let Some(ack) = l.strip_prefix("ACK ") {
            let Some(f) = file.as_mut() else {
                return Err(format!(
                    "{peer} acknowledged a record before its log header"
                ));
            };
            let number = ack.split(' ').next().and_then(|n| n.parse::<u64>().ok());
            if number != Some(out.records) {
                return Err(format!(
                    "{peer} acknowledged {ack:?} where record {} follows",
                    out.records
                ));
            }
            append(f, ack).map_err(|e| format!("{}: {e}", log.display()))?;
            out.records += 1;
            format!("OK {}", out.records - 1)
        } else if l == "END" {
            out.ended = true;
            return Ok(out);
        } else {
            return Err(format!("{peer} sent {l:?}"));
        };
        if writer.write_all(format!("{reply}\n").as_bytes()).is_err() {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("ds-pcl-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        p
    }

    #[test]
    fn a_listener_logs_every_acknowledgement_before_it_answers() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let path = temp("net.log");
        let p2 = path.clone();
        let server = std::thread::spawn(move || serve_one(&listener, &p2));
        let header = LogHeader::new("/dev/x", 0, 8);
        let mut log = NetLog::connect(&addr, &header).unwrap();
        for n in 0..5 {
            log.ack(n, n * 7).unwrap();
            // The line is in the file when the writer hears OK.
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                super::super::power_cut::parse_log(&text)
                    .unwrap()
                    .sums
                    .len() as u64,
                n + 1
            );
        }
        log.end();
        let done = server.join().unwrap().unwrap();
        assert_eq!((done.records, done.ended), (5, true));
        let back = super::super::power_cut::parse_log(&std::fs::read_to_string(&path).unwrap());
        assert_eq!(back.unwrap().header, header);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_listener_that_goes_away_stops_the_writer_with_its_address() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = std::thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut l = String::new();
            r.read_line(&mut l).unwrap();
            (&s).write_all(b"OK\n").unwrap();
            drop(s);
        });
        let mut log = NetLog::connect(&addr, &LogHeader::new("/dev/x", 0, 8)).unwrap();
        server.join().unwrap();
        let e = log.ack(0, 1).unwrap_err();
        assert!(e.contains("went away") && e.contains(&addr), "{e}");
    }

    #[test]
    fn a_log_file_is_never_an_existing_file() {
        let path = temp("file.log");
        std::fs::write(&path, "mine").unwrap();
        assert!(FileLog::create(&path, &LogHeader::new("/d", 0, 1)).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        std::fs::remove_file(&path).unwrap();
    }
}
