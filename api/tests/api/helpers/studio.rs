//! A studio's side: games created with a server key, on apps that have the studio keys.

use serde_json::Value;

use super::{Backend, TestApp, backends};

/// Creates a game with a server key and answers its body.
pub async fn create_with(app: &TestApp, key: &str, body: &Value) -> Value {
    let reply = app.post_with_key("/v1/games", key, body, &[]).await;
    assert_eq!(
        reply.status.as_u16(),
        201,
        "create with a server key: {}",
        reply.text()
    );
    reply.json()
}

/// Runs `check` on each backend against a fresh app with the studio keys.
pub async fn on_studio_backends<F>(check: F)
where
    F: AsyncFn(&TestApp, &Backend),
{
    for backend in backends() {
        let app = TestApp::spawn_studio(&backend, None).await;
        check(&app, &backend).await;
        app.clean_up().await;
    }
}
