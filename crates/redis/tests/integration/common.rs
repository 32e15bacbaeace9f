//! A real `redis-server` on 127.0.0.1 and a random free port, in a
//! temporary directory, killed when dropped; for fault tests, killed
//! (SIGKILL), stopped (SIGSTOP) and restarted on the same port and
//! directory.

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
    /// `None` between [`RedisServer::kill`] and [`RedisServer::restart`].
    child: Option<Child>,
    port: u16,
    // Kept for the server's lifetime; removed on drop.
    dir: tempfile::TempDir,
    /// The extra arguments, for restarts.
    args: Vec<String>,
}

impl RedisServer {
    /// A server without persistence.
    pub(crate) fn start() -> RedisServer {
        RedisServer::start_with(&["--save", "", "--appendonly", "no"])
    }

    /// A server that logs every write to its append-only file and
    /// fsyncs it before replying, so a reply means the write survives a
    /// kill.
    #[allow(dead_code)]
    pub(crate) fn start_durable() -> RedisServer {
        RedisServer::start_with(&[
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
        ])
    }

    /// A server with extra arguments (persistence settings).
    pub(crate) fn start_with(args: &[&str]) -> RedisServer {
        let dir = tempfile::tempdir().unwrap();
        let args: Vec<String> = args.iter().map(|&a| a.to_owned()).collect();
        // A port freed just before the server binds it may be taken by
        // another test in between: retry with another port.
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port();
            match spawn(dir.path(), port, &args) {
                Ok(child) => {
                    return RedisServer {
                        child: Some(child),
                        port,
                        dir,
                        args,
                    };
                }
                Err(e) => last = e,
            }
        }
        panic!("could not start redis-server: {last}");
    }

    /// Kills the server with SIGKILL (no chance to flush anything) and
    /// waits for it to be gone.
    #[allow(dead_code)]
    pub(crate) fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// Starts the server again on the same port and directory, with the
    /// same arguments: it reloads what it persisted there.
    #[allow(dead_code)]
    pub(crate) fn restart(&mut self) {
        self.kill();
        // The port was ours a moment ago; another test's server may grab
        // it in between (unlikely): retry for a while.
        let started = Instant::now();
        loop {
            match spawn(self.dir.path(), self.port, &self.args) {
                Ok(child) => {
                    self.child = Some(child);
                    return;
                }
                Err(e) if started.elapsed() > START_TIMEOUT => {
                    panic!("could not restart redis-server: {e}")
                }
                Err(_) => sleep(Duration::from_millis(50)),
            }
        }
    }

    /// Freezes the server (SIGSTOP): it keeps its connections open and
    /// its kernel queues keep accepting bytes, but it answers nothing.
    #[allow(dead_code)]
    pub(crate) fn stop(&self) {
        self.signal("-STOP");
    }

    /// Lets a stopped server run again (SIGCONT).
    #[allow(dead_code)]
    pub(crate) fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, sig: &str) {
        let child = self.child.as_ref().expect("the server is not running");
        let status = Command::new("kill")
            .arg(sig)
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill {sig} failed: {status}");
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
        // SIGKILL also ends a stopped server.
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
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
fn spawn(dir: &Path, port: u16, args: &[String]) -> Result<Child, String> {
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
