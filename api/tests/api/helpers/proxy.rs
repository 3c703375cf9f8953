//! A TCP proxy to put between the service and PostgreSQL, to play a database that hangs (bytes
//! stop flowing, sockets stay open) or goes away (every connection closed, new ones refused),
//! and then comes back.

use std::net::SocketAddr;

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
}

impl Proxy {
    /// Starts a proxy on a free local port that forwards to `upstream`.
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the proxy");
        let address = listener.local_addr().expect("the proxy's address");
        let (mode, watching) = watch::channel(Mode::Pass);
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if *watching.borrow() == Mode::Cut {
                    continue;
                }
                tokio::spawn(forward(client, upstream, watching.clone()));
            }
        });
        Proxy { address, mode }
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

async fn forward(client: TcpStream, upstream: SocketAddr, mode: watch::Receiver<Mode>) {
    let Ok(server) = TcpStream::connect(upstream).await else {
        return;
    };
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::join!(
        pump(client_read, server_write, mode.clone()),
        pump(server_read, client_write, mode)
    );
}

/// Copies one direction until either side closes or the proxy cuts; holds bytes while it hangs.
async fn pump(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, mut mode: watch::Receiver<Mode>) {
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
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
