//! A real `redis-server` on 127.0.0.1 and a random free port, in a
//! temporary directory, killed when dropped.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use bloomlab_redis::{Options, connect};
use redis::Connection;

/// How long a server may take to answer its first PING.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// A running `redis-server`, killed on drop.
pub(crate) struct RedisServer {
    child: Child,
    port: u16,
    // Kept for the server's lifetime; removed on drop.
    dir: tempfile::TempDir,
}

impl RedisServer {
    /// A server without persistence.
    pub(crate) fn start() -> RedisServer {
        RedisServer::start_with(&["--save", "", "--appendonly", "no"])
    }

    /// A server with extra arguments (persistence settings).
    pub(crate) fn start_with(args: &[&str]) -> RedisServer {
        let dir = tempfile::tempdir().unwrap();
        // A port freed just before the server binds it may be taken by
        // another test in between: retry with another port.
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port();
            match spawn(dir.path(), port, args) {
                Ok(child) => return RedisServer { child, port, dir },
                Err(e) => last = e,
            }
        }
        panic!("could not start redis-server: {last}");
    }

    /// `redis://127.0.0.1:PORT/`.
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// A new connection with short timeouts.
    pub(crate) fn conn(&self) -> Connection {
        connect(&self.url(), &options()).unwrap()
    }

    /// The server's directory.
    #[allow(dead_code)]
    pub(crate) fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Timeouts for tests: nothing waits more than a few seconds.
pub(crate) fn options() -> Options {
    Options {
        connect_timeout: Duration::from_secs(2),
        response_timeout: Some(Duration::from_secs(10)),
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Starts the server and waits for its PING; an error if it exits or
/// does not answer in time.
fn spawn(dir: &Path, port: u16, args: &[&str]) -> Result<Child, String> {
    let bin = which_redis();
    let mut child = Command::new(&bin)
        .arg("--port")
        .arg(port.to_string())
        .args(["--bind", "127.0.0.1", "--protected-mode", "yes"])
        .args(["--daemonize", "no", "--loglevel", "warning"])
        .arg("--dir")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{bin}: {e}"))?;
    let url = format!("redis://127.0.0.1:{port}/");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return Err(format!("redis-server on {port} exited: {status}"));
        }
        let ping = connect(&url, &options())
            .and_then(|mut c| Ok(redis::cmd("PING").query::<String>(&mut c)?));
        if matches!(ping.as_deref(), Ok("PONG")) {
            return Ok(child);
        }
        if started.elapsed() > START_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("redis-server on {port}: no PONG: {ping:?}"));
        }
        sleep(Duration::from_millis(20));
    }
}

/// `redis-server`, or a clear message saying how to install it.
fn which_redis() -> String {
    let found = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "redis-server is not installed (apt-get install -y redis-server; \
         scripts/test.sh installs it)"
    );
    "redis-server".to_owned()
}
