//! `drivescope serve` for tests: a store of real runs, the server started on a free port, and a
//! plain HTTP/1.1 GET.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

pub fn ds(args: &[&str]) -> std::process::Output {
    let out = Command::new(super::bin()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "drivescope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A directory of its own under /dev/shm with a store of five real runs: two scans of one file
/// (runs 1 and 2), a bench (3), a sweep (4) and a scan of the null target (5).
pub struct Filled {
    pub dir: PathBuf,
    pub store: String,
    pub file: String,
}

impl Drop for Filled {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn filled(name: &str) -> Filled {
    let dir = PathBuf::from(format!("/dev/shm/ds-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("runs.sqlite").to_str().unwrap().to_string();
    let file = dir.join("disk.img").to_str().unwrap().to_string();
    std::fs::File::create(&file)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    let s = store.as_str();
    for _ in 0..2 {
        ds(&["scan", &file, "--quiet", "--store", s]);
    }
    ds(&[
        "bench",
        "null:1G",
        "--test",
        "RND4K Q1T1",
        "--rw",
        "read",
        "--runs",
        "1",
        "--duration",
        "100ms",
        "--quiet",
        "--store",
        s,
    ]);
    ds(&[
        "sweep",
        "null:1G",
        "--qd",
        "1,2",
        "--threads",
        "1",
        "--duration",
        "100ms",
        "--quiet",
        "--store",
        s,
    ]);
    ds(&["scan", "null:64M", "--quiet", "--store", s]);
    Filled { dir, store, file }
}

/// A running `drivescope serve`, killed when dropped.
pub struct Serve {
    child: Child,
    pub addr: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `serve ARGS` started; its address read from the line it prints.
pub fn serve(args: &[&str]) -> Serve {
    let mut child = Command::new(super::bin())
        .arg("serve")
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Serve { child, addr }
}

pub struct Reply {
    pub status: u16,
    pub headers: String,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// One GET with `extra` header lines.
pub fn get(addr: &str, path: &str, extra: &str) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header");
    let headers = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = unchunk(&body);
    }
    let status = headers
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap();
    Reply {
        status,
        headers,
        body,
    }
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 2 + n + 2..];
    }
}

/// The lines (series) of the chart `chart` of a page: its `data-points` attributes.
pub fn chart_lines(html: &str, chart: &str) -> usize {
    html.split(&format!(r#"id="chart-{chart}""#))
        .nth(1)
        .unwrap_or_else(|| panic!("no chart {chart} in the page"))
        .split("</svg>")
        .next()
        .unwrap()
        .matches("data-points=")
        .count()
}
