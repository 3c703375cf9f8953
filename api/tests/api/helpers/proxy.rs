//! A TCP proxy to put between the service and PostgreSQL, to play a database that hangs (bytes
//! stop flowing, sockets stay open) or goes away (every connection closed, new ones refused),
//! and then comes back; and to count the statements the service sends
//! ([`Proxy::statements`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// What the proxy does with traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Forwards both ways.
    Pass,
    /// Forwards nothing, closes nothing: a hung server.
    Hang,
    /// Closes every connection and each new one at once: a server that is down.
    Cut,
}

/// A running proxy; it stops with the test's runtime.
pub struct Proxy {
    /// The address to connect to instead of the upstream.
    pub address: SocketAddr,
    mode: watch::Sender<Mode>,
    statements: Arc<AtomicU64>,
}

impl Proxy {
    /// Starts a proxy on a free local port that forwards to `upstream`.
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the proxy");
        let address = listener.local_addr().expect("the proxy's address");
        let (mode, watching) = watch::channel(Mode::Pass);
        let statements = Arc::new(AtomicU64::new(0));
        let counted = statements.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if *watching.borrow() == Mode::Cut {
                    continue;
                }
                tokio::spawn(forward(client, upstream, watching.clone(), counted.clone()));
            }
        });
        Proxy {
            address,
            mode,
            statements,
        }
    }

    /// The statements sent through the proxy so far (PostgreSQL's `Query` and `Execute`
    /// messages, each at most one transaction's worth: a ping is none), read from connections
    /// without TLS only (`sslmode=disable`; TLS would hide them).
    pub fn statements(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    /// Stops forwarding, keeping every connection open.
    pub fn hang(&self) {
        self.mode.send_replace(Mode::Hang);
    }

    /// Closes every connection and refuses new ones.
    pub fn cut(&self) {
        self.mode.send_replace(Mode::Cut);
    }

    /// Forwards again (what was held while hanging is delivered).
    pub fn restore(&self) {
        self.mode.send_replace(Mode::Pass);
    }

    /// `url` (a `postgres://` URL) pointed at this proxy instead of its own host and port.
    pub fn url_through(&self, url: &str) -> String {
        let scheme_end = url.find("://").map_or(0, |i| i + 3);
        let rest = &url[scheme_end..];
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        let user = authority.rfind('@').map_or("", |i| &authority[..=i]);
        format!(
            "{}{user}{}{}",
            &url[..scheme_end],
            self.address,
            &rest[authority_end..]
        )
    }
}

/// The host and port of a `postgres://` URL (default port 5432).
pub fn upstream_of(url: &str) -> SocketAddr {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) => (h, p.parse().expect("a port number")),
        None => (host_port, 5432),
    };
    let host = if host == "localhost" || host.is_empty() {
        "127.0.0.1"
    } else {
        host
    };
    format!("{host}:{port}")
        .parse()
        .expect("PostgreSQL at an IP address in DATABASE_URL")
}

async fn forward(
    client: TcpStream,
    upstream: SocketAddr,
    mode: watch::Receiver<Mode>,
    statements: Arc<AtomicU64>,
) {
    let Ok(server) = TcpStream::connect(upstream).await else {
        return;
    };
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let counting = Some((Messages::default(), statements));
    tokio::join!(
        pump(client_read, server_write, mode.clone(), counting),
        pump(server_read, client_write, mode, None)
    );
}

/// A client's side of PostgreSQL's protocol read as it passes: the untyped start (an
/// `SSLRequest` or `GSSENCRequest`, then the startup message), then typed messages.
#[derive(Default)]
struct Messages {
    /// Past the startup message.
    started: bool,
    /// The length and type of the message being read, as far as they have come.
    head: Vec<u8>,
    /// Bytes of the current message's body still to pass.
    rest: usize,
}

impl Messages {
    /// The statements (`Query`, `Execute`) that begin in `bytes`.
    fn statements(&mut self, mut bytes: &[u8]) -> u64 {
        let mut statements = 0;
        while !bytes.is_empty() {
            if self.rest > 0 {
                let passed = self.rest.min(bytes.len());
                self.rest -= passed;
                bytes = &bytes[passed..];
                continue;
            }
            // Untyped: length and request code; typed: type and length.
            let want = if self.started { 5 } else { 8 };
            let taken = (want - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..taken]);
            bytes = &bytes[taken..];
            if self.head.len() < want {
                break;
            }
            let int = |at: usize| i32::from_be_bytes(self.head[at..at + 4].try_into().expect("four bytes"));
            if self.started {
                statements += u64::from(matches!(self.head[0], b'Q' | b'E'));
                self.rest = usize::try_from(int(1) - 4).unwrap_or(0);
            } else {
                // 80877103 and 80877104 ask for encryption first; anything else starts.
                self.started = !matches!(int(4), 80_877_103 | 80_877_104);
                self.rest = usize::try_from(int(0) - 8).unwrap_or(0);
            }
            self.head.clear();
        }
        statements
    }
}

/// Copies one direction until either side closes or the proxy cuts; holds bytes while it hangs.
/// Counts the statements it carries into `counting`'s total, if given.
async fn pump(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    mut mode: watch::Receiver<Mode>,
    mut counting: Option<(Messages, Arc<AtomicU64>)>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            read = from.read(&mut buf) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            },
            _ = mode.wait_for(|m| *m == Mode::Cut) => return,
        };
        match mode.wait_for(|m| *m != Mode::Hang).await {
            Ok(m) if *m == Mode::Pass => {}
            _ => return,
        }
        if let Some((messages, total)) = &mut counting {
            total.fetch_add(messages.statements(&buf[..n]), Ordering::Relaxed);
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
