//! Load for the benchmark harness (`bench/run.sh`), never part of `cargo test`.
//!
//! - `games URL CLIENTS SECONDS [hard-bots | paced=MS]`: CLIENTS clients, each playing its own 4-seat
//!   `may_i` game through HTTP, one action per request (draw from the stock, discard), each
//!   with an `Idempotency-Key`; a finished game is replaced by a new one. Prints actions/s and
//!   p99. With `hard-bots`, seats 1 to 3 are `hard` bots and each client plays seat 0 alone,
//!   waiting (unmeasured) for its turn between its moves, on the game's event stream: the p99
//!   of a person's draw or discard at a table of hard bots, to set beside the same with four
//!   people. With `paced=MS`, each client waits MS ms (unmeasured) after each of its actions:
//!   people who play at the pace the hard bots allow, so that both are measured under the
//!   same rate of requests. With `BENCH_API_KEY` set (a server key's secret), the tables are made with
//!   that server key.
//! - `streams URL_A URL_B PID_A DATABASE STREAMS`: STREAMS streams open on replica A (games
//!   made on B); prints the database's transactions/s while they idle, A's memory, the delay
//!   from a move sent to B to its first event on A (p99), and how long A takes to exit on
//!   SIGTERM with the streams open.
//!
//! - `idle URL DATABASE STREAMS`: one replica alone on DATABASE, nothing to do: the database's
//!   transactions a second (`xact_commit + xact_rollback`) over 30 s, then again with STREAMS
//!   streams open on games nobody plays (made first, unmeasured).
//!
//! - `webhooks URL DATABASE GAMES SECONDS RATE BACKLOG`: the bench's own webhook receiver (on a
//!   thread of its own, answering 204 at once and noting when each delivery came), GAMES
//!   two-seat games posting to it; first RATE actions a second spread over the games for
//!   SECONDS, each event's time from its action sent to its delivery received (p99, while the
//!   receiver keeps up); then BACKLOG more deliveries per game queued at once in DATABASE (with
//!   the games' heads, where the build has them), and the rate at which they arrive (from the
//!   10th to the 90th percentile of their arrivals, at most 60 s). Every game's deliveries are
//!   checked to arrive in seq order.
//!
//! Single-threaded (awc): the server, not this client, should be what is measured.

use std::cell::RefCell;
use std::collections::HashMap;
use std::process::Command;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use awc::Client;
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// A request made with a JSON answer.
async fn call(
    client: &Client,
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<&Value>,
    key: Option<&str>,
) -> Result<Value, String> {
    let mut req = match method {
        "POST" => client.post(url),
        _ => client.get(url),
    };
    if let Some(t) = token {
        req = req.insert_header(("authorization", format!("Bearer {t}")));
    }
    if let Some(k) = key {
        req = req.insert_header(("idempotency-key", k));
    }
    let mut res = match body {
        Some(b) => req.send_json(b).await,
        None => req.send().await,
    }
    .map_err(|e| e.to_string())?;
    let bytes = res.body().limit(1 << 22).await.map_err(|e| e.to_string())?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if res.status().is_success() {
        Ok(value)
    } else {
        Err(format!("{}: {value}", res.status()))
    }
}

/// A 4-seat `may_i` game and its tokens.
struct Table {
    id: String,
    tokens: Vec<String>,
}

async fn new_table(client: &Client, url: &str, hard_bots: bool) -> Result<Table, String> {
    let seats: Vec<Value> = (0..4)
        .map(|i| match hard_bots && i > 0 {
            true => json!({"bot": "hard"}),
            false => json!({"name": format!("P{i}")}),
        })
        .collect();
    let created = call(
        client,
        "POST",
        &format!("{url}/v1/games"),
        None,
        Some(&json!({"variant": "may_i", "seats": seats})),
        None,
    )
    .await?;
    let id = created["id"].as_str().ok_or("no id")?.to_owned();
    let tokens = created["seats"]
        .as_array()
        .ok_or("no seats")?
        .iter()
        .filter(|s| s["kind"] == "player")
        .map(|s| s["token"].as_str().map(str::to_owned).ok_or("no token"))
        .collect::<Result<_, _>>()?;
    Ok(Table { id, tokens })
}

/// The game as `seat` sees it.
async fn look(client: &Client, url: &str, table: &Table, seat: usize) -> Result<Value, String> {
    let token = table.tokens.get(seat).ok_or("no such seat")?;
    call(
        client,
        "GET",
        &format!("{url}/v1/games/{}", table.id),
        Some(token),
        None,
        None,
    )
    .await
}

/// The next action of a game from a seat's view: who acts, where, with what body.
fn next_action(view: &Value) -> Option<(usize, &'static str, Value)> {
    let seat = usize::try_from(view["turn"]["seat"].as_u64()?).ok()?;
    let mine = view["you"]["seat"].as_u64() == Some(seat as u64);
    match view["turn"]["phase"].as_str()? {
        "draw" => Some((seat, "draw", json!({"source": "stock"}))),
        "play" if mine => {
            let discard = view["legal_actions"]
                .as_array()?
                .iter()
                .find(|a| a["type"] == "discard")?;
            let card = discard["cards"].as_array()?.first()?.clone();
            Some((seat, "discard", json!({"card": card})))
        }
        _ => None,
    }
}

/// Plays one table's next action; the new view of the acting seat, and the seat.
async fn act(client: &Client, url: &str, table: &Table, view: &Value, key: &str) -> Result<Value, String> {
    let (seat, path, body) = match next_action(view) {
        Some(a) => a,
        None => {
            // Not this seat's to say: look with the seat in turn.
            let seat = usize::try_from(view["turn"]["seat"].as_u64().ok_or("no turn")?)
                .map_err(|e| e.to_string())?;
            let fresh = look(client, url, table, seat).await?;
            next_action(&fresh).ok_or("no action to take")?
        }
    };
    call(
        client,
        "POST",
        &format!("{url}/v1/games/{}/{path}", table.id),
        Some(&table.tokens[seat]),
        Some(&body),
        Some(key),
    )
    .await
}

/// A task aborted when this is dropped: a table's stream reader, once the table is left.
struct Abort(actix_rt::task::JoinHandle<()>);

impl Drop for Abort {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn p99(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    samples
        .get((samples.len() * 99 / 100).min(samples.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Seat 0's event stream, read in a task of its own that wakes `news` whenever events come:
/// the bots play after the answers, and a client waits on this rather than polling, so that
/// its waiting does not load the server it measures. The task ends with the stream (abort it
/// once the table is left).
async fn follow(
    client: &Client,
    url: &str,
    table: &Table,
    news: Rc<Notify>,
) -> Result<actix_rt::task::JoinHandle<()>, String> {
    let mut res = client
        .get(format!("{url}/v1/games/{}/stream", table.id))
        .insert_header(("authorization", format!("Bearer {}", table.tokens[0])))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !res.status().is_success() {
        return Err(format!("stream: {}", res.status()));
    }
    Ok(actix_rt::spawn(async move {
        while let Some(Ok(_)) = res.next().await {
            // A stored permit if nobody waits yet: no event between a look and a wait is lost.
            news.notify_one();
        }
        news.notify_one();
    }))
}

/// Seat 0's view once it is in turn or the game is over, looked at after each event on its
/// stream (and each second, should the stream be slow): this wait is not what is measured.
async fn until_my_turn(client: &Client, url: &str, table: &Table, news: &Notify) -> Result<Value, String> {
    loop {
        let view = look(client, url, table, 0).await?;
        if view["status"] != "playing" || view["turn"]["seat"] == 0 {
            return Ok(view);
        }
        let _ = actix_rt::time::timeout(Duration::from_secs(1), news.notified()).await;
    }
}

async fn games(url: String, clients: usize, seconds: u64, hard_bots: bool, pace: Duration) {
    let mut client = Client::builder().timeout(Duration::from_secs(30));
    // On a server with server keys, the tables are made with one.
    if let Ok(key) = std::env::var("BENCH_API_KEY") {
        client = client.add_default_header(("x-api-key", key));
    }
    let client = client.finish();
    // The streams stay open for as long as their games: no timeout on them.
    let streamer = Client::builder()
        .connector(awc::Connector::new().limit(0))
        .timeout(Duration::from_secs(3600))
        .finish();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let prefix = format!("{:x}", std::process::id());
    let mut runs = Vec::new();
    for c in 0..clients {
        let (client, streamer, url, prefix) = (client.clone(), streamer.clone(), url.clone(), prefix.clone());
        runs.push(actix_rt::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            let mut n = 0u64;
            'tables: while Instant::now() < deadline {
                let Ok(table) = new_table(&client, &url, hard_bots).await else {
                    errors += 1;
                    continue;
                };
                let news = Rc::new(Notify::new());
                let following = match hard_bots {
                    true => match follow(&streamer, &url, &table, news.clone()).await {
                        Ok(task) => Some(Abort(task)),
                        Err(_) => {
                            errors += 1;
                            continue;
                        }
                    },
                    false => None,
                };
                let Ok(mut view) = look(&client, &url, &table, 0).await else {
                    errors += 1;
                    continue;
                };
                while Instant::now() < deadline {
                    if following.is_some() && view["turn"]["seat"] != 0 {
                        match until_my_turn(&client, &url, &table, &news).await {
                            Ok(v) => view = v,
                            Err(_) => {
                                errors += 1;
                                continue 'tables;
                            }
                        }
                    }
                    if view["status"] != "playing" {
                        continue 'tables;
                    }
                    n += 1;
                    let started = Instant::now();
                    match act(&client, &url, &table, &view, &format!("{prefix}-{c}-{n}")).await {
                        Ok(v) => {
                            latencies.push(started.elapsed());
                            view = v;
                            if !pace.is_zero() {
                                actix_rt::time::sleep(pace).await;
                            }
                        }
                        Err(e) => {
                            errors += 1;
                            if errors < 5 {
                                eprintln!("action refused: {e}");
                            }
                            continue 'tables;
                        }
                    }
                }
            }
            (latencies, errors)
        }));
    }
    let started = Instant::now();
    let mut all = Vec::new();
    let mut errors = 0;
    for r in runs {
        let (l, e) = r.await.expect("a client task");
        all.extend(l);
        errors += e;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let rate = all.len() as f64 / elapsed;
    println!(
        "RESULT actions_per_s={rate:.0} p99_ms={:.1} actions={} errors={errors}",
        ms(p99(&mut all)),
        all.len()
    );
}

/// Transactions of `database` so far, committed and rolled back (read from the `postgres`
/// database, so that reading does not count).
fn xact_commit(database: &str) -> i64 {
    let out = Command::new("psql")
        .args(["-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-Atc"])
        .arg(format!(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '{database}'"
        ))
        .output()
        .expect("psql runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.trim().parse().ok())
        .expect("a count from pg_stat_database")
}

/// Resident memory of a process, in MB.
fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Whether a process has exited (gone, or a zombie waiting for its parent).
fn exited(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

/// The transactions a second of `database` over `window`, once what came before is counted
/// (PostgreSQL counts a backend's transactions up to 10 s late once it idles).
async fn idle_rate(database: &str, window: Duration) -> f64 {
    actix_rt::time::sleep(Duration::from_secs(12)).await;
    let before = xact_commit(database);
    actix_rt::time::sleep(window).await;
    (xact_commit(database) - before) as f64 / window.as_secs_f64()
}

/// One replica with nothing to do: its database's transactions a second, then the same with
/// `count` streams open on games nobody plays.
async fn idle(url: String, database: String, count: usize) {
    let window = Duration::from_secs(30);
    let alone = idle_rate(&database, window).await;
    let client = Client::builder().timeout(Duration::from_secs(30)).finish();
    let streamer = Client::builder()
        .connector(awc::Connector::new().limit(0))
        .timeout(Duration::from_secs(3600))
        .finish();
    let mut open = Vec::new();
    while open.len() < count {
        let table = new_table(&client, &url, false).await.expect("a game");
        for token in table.tokens.iter().take(count - open.len()) {
            let res = streamer
                .get(format!("{url}/v1/games/{}/stream", table.id))
                .insert_header(("authorization", format!("Bearer {token}")))
                .send()
                .await
                .expect("a stream opens");
            assert!(res.status().is_success(), "stream: {}", res.status());
            open.push(res);
        }
    }
    let with_streams = idle_rate(&database, window).await;
    println!(
        "RESULT idle_tps={alone:.2} streams={} streams_idle_tps={with_streams:.2}",
        open.len()
    );
}

/// What the streams of each game saw: arrival time of each sequence number (seat 0's stream).
type Arrivals = Rc<RefCell<HashMap<String, Vec<(i64, Instant)>>>>;

async fn streams(url_a: String, url_b: String, pid_a: u32, database: String, count: usize) {
    let client = Client::builder().timeout(Duration::from_secs(30)).finish();
    // Every stream keeps its connection: no cap on them (awc's default is 100).
    let streamer = Client::builder()
        .connector(awc::Connector::new().limit(0))
        .timeout(Duration::from_secs(3600))
        .finish();
    let mut tables = Vec::new();
    for _ in 0..count.div_ceil(4) {
        tables.push(Rc::new(
            new_table(&client, &url_b, false)
                .await
                .expect("a game on replica B"),
        ));
    }
    let arrivals: Arrivals = Rc::default();
    let ended = Rc::new(RefCell::new(0usize));
    let opened = Rc::new(RefCell::new(0usize));
    for (i, table) in tables.iter().enumerate() {
        for seat in 0..4 {
            if i * 4 + seat >= count {
                break;
            }
            let url = format!("{url_a}/v1/games/{}/stream", table.id);
            let mut res = streamer
                .get(&url)
                .insert_header(("authorization", format!("Bearer {}", table.tokens[seat])))
                .send()
                .await
                .expect("a stream opens on replica A");
            assert!(res.status().is_success(), "stream: {}", res.status());
            *opened.borrow_mut() += 1;
            let (arrivals, ended, id) = (arrivals.clone(), ended.clone(), table.id.clone());
            actix_rt::spawn(async move {
                let mut buffer = String::new();
                while let Some(Ok(chunk)) = res.next().await {
                    let now = Instant::now();
                    buffer.push_str(&String::from_utf8_lossy(&chunk));
                    while let Some(end) = buffer.find("\n\n") {
                        let block: String = buffer.drain(..end + 2).collect();
                        let seq = block
                            .lines()
                            .find_map(|l| l.strip_prefix("id: ")?.parse::<i64>().ok());
                        if let (Some(seq), 0) = (seq, seat) {
                            arrivals
                                .borrow_mut()
                                .entry(id.clone())
                                .or_default()
                                .push((seq, now));
                        }
                    }
                }
                *ended.borrow_mut() += 1;
            });
        }
    }
    let open = *opened.borrow();
    // PostgreSQL counts a backend's transactions up to 10 s late once it idles: let what
    // opening the streams cost be counted before the window starts.
    actix_rt::time::sleep(Duration::from_secs(12)).await;

    // Idle: what the open streams cost the database.
    let window = 10.0;
    let before = xact_commit(&database);
    actix_rt::time::sleep(Duration::from_secs_f64(window)).await;
    let after = xact_commit(&database);
    let idle_tps = (after - before) as f64 / window;
    let rss = rss_mb(pid_a);

    // Delivery: moves sent to B, first event of each on A (one move at a time per game).
    let movers = tables.len().min(32);
    let mut runs = Vec::new();
    for table in tables.iter().take(movers).cloned() {
        let (client, url_b, arrivals) = (client.clone(), url_b.clone(), arrivals.clone());
        runs.push(actix_rt::spawn(async move {
            let mut delays = Vec::new();
            let Ok(mut view) = look(&client, &url_b, &table, 0).await else {
                return delays;
            };
            for n in 0..20 {
                let seen = arrivals
                    .borrow()
                    .get(&table.id)
                    .map_or(0, |a| a.iter().map(|x| x.0).max().unwrap_or(0));
                let sent = Instant::now();
                let key = format!("d-{}-{n}", table.id);
                match act(&client, &url_b, &table, &view, &key).await {
                    Ok(v) => view = v,
                    Err(_) => break,
                }
                let give_up = Instant::now() + Duration::from_secs(5);
                loop {
                    let first = arrivals
                        .borrow()
                        .get(&table.id)
                        .and_then(|a| a.iter().find(|x| x.0 > seen).map(|x| x.1));
                    if let Some(at) = first {
                        delays.push(at - sent);
                        break;
                    }
                    if Instant::now() > give_up {
                        delays.push(Duration::from_secs(5));
                        break;
                    }
                    actix_rt::time::sleep(Duration::from_millis(1)).await;
                }
            }
            delays
        }));
    }
    let mut delays = Vec::new();
    for r in runs {
        delays.extend(r.await.expect("a mover"));
    }
    let moved = delays.len();
    let delivery = p99(&mut delays);

    // SIGTERM with every stream open.
    let still_open = open - *ended.borrow();
    let sent = Instant::now();
    Command::new("kill")
        .args(["-TERM", &pid_a.to_string()])
        .status()
        .expect("kill runs");
    while !exited(pid_a) && sent.elapsed() < Duration::from_secs(60) {
        actix_rt::time::sleep(Duration::from_millis(5)).await;
    }
    let stop = sent.elapsed();
    println!(
        "RESULT streams={still_open} idle_db_tps={idle_tps:.1} rss_mb={rss:.1} delivery_p99_ms={:.1} moves={moved} sigterm_s={:.2}",
        ms(delivery),
        stop.as_secs_f64()
    );
}

/// A delivery as the bench's receiver got it.
struct Receipt {
    game: String,
    seq: i64,
    version: i64,
    bench: bool,
    at: Instant,
}

/// Starts the bench's webhook receiver on a thread of its own: answers every POST 204 at once
/// and notes it. Returns its port and what it got.
fn receiver() -> (u16, Arc<Mutex<Vec<Receipt>>>) {
    let got = Arc::new(Mutex::new(Vec::with_capacity(1 << 20)));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port for the receiver");
    let port = listener.local_addr().expect("its address").port();
    let shared = Arc::clone(&got);
    std::thread::spawn(move || {
        actix_rt::System::new().block_on(async move {
            actix_web::HttpServer::new(move || {
                let shared = Arc::clone(&shared);
                actix_web::App::new().default_service(actix_web::web::to(
                    move |body: actix_web::web::Bytes| {
                        let at = Instant::now();
                        let shared = Arc::clone(&shared);
                        async move {
                            if let Ok(v) = serde_json::from_slice::<Value>(&body) {
                                let receipt = Receipt {
                                    game: v["game_id"].as_str().unwrap_or_default().to_owned(),
                                    seq: v["seq"].as_i64().unwrap_or_default(),
                                    version: v["version"].as_i64().unwrap_or_default(),
                                    bench: v["type"] == "bench",
                                    at,
                                };
                                shared.lock().expect("the receipts").push(receipt);
                            }
                            actix_web::HttpResponse::NoContent().finish()
                        }
                    },
                ))
            })
            .workers(1)
            .max_connections(100_000)
            .listen(listener)
            .expect("the receiver listens")
            .run()
            .await
            .expect("the receiver runs");
        });
    });
    (port, got)
}

/// Runs `sql` on `database` with psql.
fn psql(database: &str, sql: &str) {
    let out = Command::new("psql")
        .args([
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            database,
            "-v",
            "ON_ERROR_STOP=1",
            "-qAtc",
        ])
        .arg(sql)
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "psql: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `BACKLOG` more deliveries for each game with a webhook, queued in one transaction as the
/// service queues them (and each game's head set, where the build keeps heads).
fn queue_backlog(database: &str, per_game: u64) {
    psql(
        database,
        &format!(
            "BEGIN; \
             INSERT INTO webhook_deliveries (id, game_id, seq, version, event, status, next_attempt_at, created_at) \
             SELECT 'msg_bench_' || g.id || '_' || n, g.id, g.last_seq + 1000 + n, g.version, '{{\"type\":\"bench\"}}', \
             'pending', (extract(epoch FROM clock_timestamp()) * 1000)::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint \
             FROM games g, generate_series(1, {per_game}) n WHERE g.webhook_url IS NOT NULL; \
             DO $$ BEGIN IF to_regclass('webhook_heads') IS NOT NULL THEN \
             INSERT INTO webhook_heads (game_id, due_at, last_seq) SELECT game_id, min(next_attempt_at), max(seq) \
             FROM webhook_deliveries WHERE status = 'pending' GROUP BY game_id \
             ON CONFLICT (game_id) DO UPDATE SET last_seq = EXCLUDED.last_seq, \
             due_at = COALESCE(webhook_heads.due_at, EXCLUDED.due_at); END IF; END $$; COMMIT;"
        ),
    );
}

/// A two-seat `may_i` game posting its events to `hook`, and its seat 0's view.
async fn hooked_table(client: &Client, url: &str, hook: &str) -> Result<(Table, Value), String> {
    let created = call(
        client,
        "POST",
        &format!("{url}/v1/games"),
        None,
        Some(&json!({"variant": "may_i", "seats": [{"name": "P0"}, {"name": "P1"}], "webhook_url": hook})),
        None,
    )
    .await?;
    let id = created["id"].as_str().ok_or("no id")?.to_owned();
    let tokens = created["seats"]
        .as_array()
        .ok_or("no seats")?
        .iter()
        .map(|s| s["token"].as_str().map(str::to_owned).ok_or("no token"))
        .collect::<Result<_, _>>()?;
    let table = Table { id, tokens };
    let view = look(client, url, &table, 0).await?;
    Ok((table, view))
}

async fn webhooks(url: String, database: String, games: usize, seconds: u64, rate: u64, backlog: u64) {
    let (port, got) = receiver();
    let hook = format!("http://127.0.0.1:{port}/hook");
    let client = Client::builder()
        .connector(awc::Connector::new().limit(256))
        .timeout(Duration::from_secs(30))
        .finish();
    // The games, made 16 at a time.
    let tables: Rc<RefCell<Vec<(Table, Value)>>> = Rc::default();
    let mut makers = Vec::new();
    for m in 0..16 {
        let (client, url, hook, tables) = (client.clone(), url.clone(), hook.clone(), Rc::clone(&tables));
        makers.push(actix_rt::spawn(async move {
            for _ in (m..games).step_by(16) {
                match hooked_table(&client, &url, &hook).await {
                    Ok(t) => tables.borrow_mut().push(t),
                    Err(e) => eprintln!("a game not made: {e}"),
                }
            }
        }));
    }
    for m in makers {
        m.await.expect("a maker");
    }
    let tables = std::mem::take(&mut *tables.borrow_mut());
    let made = tables.len();
    // Let the games' first events go out before anything is timed.
    actix_rt::time::sleep(Duration::from_secs(3)).await;
    // Part one: RATE actions a second, spread over the games by 32 clients, each its share of
    // the games in turn; each action's send time kept by game and the version it made.
    const CLIENTS: usize = 32;
    let mut shares: Vec<Vec<(Table, Value)>> = (0..CLIENTS).map(|_| Vec::new()).collect();
    for (i, t) in tables.into_iter().enumerate() {
        shares[i % CLIENTS].push(t);
    }
    let every = Duration::from_secs_f64(CLIENTS as f64 / rate.max(1) as f64);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let prefix = format!("{:x}", std::process::id());
    let mut runs = Vec::new();
    for (c, mut share) in shares.into_iter().enumerate() {
        let (client, url, prefix) = (client.clone(), url.clone(), prefix.clone());
        runs.push(actix_rt::spawn(async move {
            let mut sent: Vec<(String, i64, Instant)> = Vec::new();
            let mut errors = 0u64;
            let mut n = 0u64;
            let mut next = Instant::now();
            let mut i = 0;
            while Instant::now() < deadline && !share.is_empty() {
                actix_rt::time::sleep_until(next.into()).await;
                next += every;
                i = (i + 1) % share.len();
                let (table, view) = &mut share[i];
                if view["status"] != "playing" {
                    continue;
                }
                n += 1;
                let at = Instant::now();
                match act(&client, &url, table, view, &format!("{prefix}-w{c}-{n}")).await {
                    Ok(v) => {
                        if let Some(version) = v["version"].as_i64() {
                            sent.push((table.id.clone(), version, at));
                        }
                        *view = v;
                    }
                    Err(e) => {
                        errors += 1;
                        if errors < 3 {
                            eprintln!("action refused: {e}");
                        }
                    }
                }
            }
            (sent, errors)
        }));
    }
    let mut sent = HashMap::new();
    let mut errors = 0;
    for r in runs {
        let (s, e) = r.await.expect("a client");
        errors += e;
        for (game, version, at) in s {
            sent.insert((game, version), at);
        }
    }
    let actions = sent.len();
    let drove = started.elapsed().as_secs_f64();
    // The last of them delivered (a while at most).
    let settle = Instant::now();
    loop {
        let n = got.lock().expect("the receipts").len();
        actix_rt::time::sleep(Duration::from_secs(1)).await;
        if got.lock().expect("the receipts").len() == n || settle.elapsed() > Duration::from_secs(30) {
            break;
        }
    }
    let mut latencies: Vec<Duration> = got
        .lock()
        .expect("the receipts")
        .iter()
        .filter_map(|r| {
            sent.get(&(r.game.clone(), r.version))
                .map(|at| r.at.saturating_duration_since(*at))
        })
        .collect();
    let matched = latencies.len();
    let latency_p99 = ms(p99(&mut latencies));
    let latency_p50 = latencies.get(latencies.len() / 2).map_or(0.0, |d| ms(*d));
    // Part two: a backlog queued at once; the rate it arrives at.
    let queued = Instant::now();
    queue_backlog(&database, backlog);
    let expected = made * usize::try_from(backlog).unwrap_or(0);
    let cap = Duration::from_secs(60);
    loop {
        actix_rt::time::sleep(Duration::from_millis(500)).await;
        let n = got
            .lock()
            .expect("the receipts")
            .iter()
            .filter(|r| r.bench)
            .count();
        if n >= expected || queued.elapsed() > cap {
            break;
        }
    }
    let receipts = got.lock().expect("the receipts");
    let mut arrivals: Vec<Instant> = receipts.iter().filter(|r| r.bench).map(|r| r.at).collect();
    arrivals.sort_unstable();
    let (lo, hi) = (arrivals.len() / 10, (arrivals.len() * 9 / 10).saturating_sub(1));
    let per_s = match (arrivals.get(lo), arrivals.get(hi)) {
        (Some(a), Some(b)) if b > a => (hi - lo) as f64 / b.duration_since(*a).as_secs_f64(),
        _ => 0.0,
    };
    // Each game's deliveries in seq order (a repeat of the one before allowed: at least once).
    let mut last: HashMap<&str, i64> = HashMap::new();
    let mut out_of_order = 0;
    for r in receipts.iter() {
        let seen = last.entry(r.game.as_str()).or_insert(0);
        if r.seq < *seen {
            out_of_order += 1;
        }
        *seen = r.seq.max(*seen);
    }
    println!(
        "RESULT games={made} actions={actions} actions_per_s={:.0} errors={errors} events_matched={matched} \
         event_to_receipt_p50_ms={latency_p50:.1} event_to_receipt_p99_ms={latency_p99:.1} \
         backlog={expected} backlog_delivered={} deliveries_per_s={per_s:.0} out_of_order={out_of_order}",
        actions as f64 / drove,
        arrivals.len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let number = |i: usize| {
        arg(i)
            .parse::<u64>()
            .unwrap_or_else(|_| panic!("argument {i} is a number"))
    };
    let system = actix_rt::System::new();
    match arg(0).as_str() {
        "games" => system.block_on(games(
            arg(1),
            number(2) as usize,
            number(3),
            arg(4) == "hard-bots",
            Duration::from_millis(
                arg(4)
                    .strip_prefix("paced=")
                    .map_or(0, |ms| ms.parse().expect("paced=MS takes a number")),
            ),
        )),
        "webhooks" => system.block_on(webhooks(
            arg(1),
            arg(2),
            number(3) as usize,
            number(4),
            number(5),
            number(6),
        )),
        "idle" => system.block_on(idle(arg(1), arg(2), number(3) as usize)),
        "streams" => system.block_on(streams(
            arg(1),
            arg(2),
            number(3) as u32,
            arg(4),
            number(5) as usize,
        )),
        _ => {
            eprintln!(
                "usage: continental-bench games URL CLIENTS SECONDS [hard-bots | paced=MS] | streams URL_A URL_B PID_A DATABASE STREAMS | idle URL DATABASE STREAMS | webhooks URL DATABASE GAMES SECONDS RATE BACKLOG"
            );
            std::process::exit(2);
        }
    }
}
