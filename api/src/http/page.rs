//! The table in the browser: `/play`, a page of plain ES modules and CSS (`api/web/`) embedded
//! in the binary, that plays, watches and replays games through the public API alone. It is
//! no API operation, so it stays out of the OpenAPI document and is registered on its own.

use std::sync::LazyLock;

use actix_web::http::header;
use actix_web::web::{self, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};

/// The page may load and ask nothing but its own origin; nothing inline runs or styles it.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; connect-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// One embedded file: where it is served, its type and its bytes.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

/// Embeds `api/web/$file` served at `$path`.
macro_rules! asset {
    ($path:literal, $file:literal, $type:expr) => {
        Asset {
            path: $path,
            content_type: $type,
            body: include_bytes!(concat!("../../web/", $file)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

/// Every file of the page.
const ASSETS: [Asset; 14] = [
    asset!("/play", "index.html", "text/html; charset=utf-8"),
    asset!("/play/style.css", "style.css", "text/css; charset=utf-8"),
    asset!("/play/icon.svg", "icon.svg", "image/svg+xml"),
    asset!("/play/app.js", "app.js", JS),
    asset!("/play/api.js", "api.js", JS),
    asset!("/play/cards.js", "cards.js", JS),
    asset!("/play/dom.js", "dom.js", JS),
    asset!("/play/table.js", "table.js", JS),
    asset!("/play/watch.js", "watch.js", JS),
    asset!("/play/replay.js", "replay.js", JS),
    asset!("/play/quick.js", "quick.js", JS),
    asset!("/play/board.js", "board.js", JS),
    asset!("/play/results.js", "results.js", JS),
    asset!("/play/tournaments.js", "tournaments.js", JS),
];

/// Each asset's strong `ETag`: a digest of its bytes, so a new binary with a changed file is
/// never answered from a browser's stale copy, and an unchanged one costs a `304`.
static ETAGS: LazyLock<Vec<String>> = LazyLock::new(|| {
    ASSETS
        .iter()
        .map(|a| format!("\"{}\"", hex::encode(&Sha256::digest(a.body)[..12])))
        .collect()
});

/// Registers the page, its files, and `/` leading to it.
pub fn configure(cfg: &mut ServiceConfig) {
    for (i, asset) in ASSETS.iter().enumerate() {
        cfg.service(
            web::resource(asset.path)
                .route(web::get().to(move |req: HttpRequest| serve(req, i)))
                .route(web::head().to(move |req: HttpRequest| serve(req, i))),
        );
    }
    cfg.service(
        web::resource("/")
            .route(web::get().to(to_play))
            .route(web::head().to(to_play)),
    );
}

/// `/` is the page's address for a person who types the host alone.
async fn to_play() -> HttpResponse {
    // Temporary: `/` may one day be something else, and a browser must not remember it.
    HttpResponse::TemporaryRedirect()
        .insert_header((header::LOCATION, "/play"))
        .finish()
}

/// Answers asset `i`, or `304` when the browser holds this very version.
async fn serve(req: HttpRequest, i: usize) -> HttpResponse {
    let asset = &ASSETS[i];
    let etag = ETAGS[i].as_str();
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut answer = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    answer
        .insert_header((header::ETAG, etag))
        // Always revalidated: the files change with the binary, and the ETag keeps that cheap.
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        // The one link out (the rules) need not tell GitHub which game was open.
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    if fresh {
        answer.finish()
    } else {
        answer
            .insert_header((header::CONTENT_TYPE, asset.content_type))
            .body(asset.body)
    }
}
