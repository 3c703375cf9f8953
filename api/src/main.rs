//! The `continental` binary: settings, build, run.

use continental::config::Settings;
use continental::startup::Application;

// Measured in docs/performance.md.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// actix's runtime: the background work (webhooks, deadlines) runs on its local tasks.
#[actix_web::main]
async fn main() -> std::process::ExitCode {
    let settings = match Settings::from_sources(std::env::args().skip(1), |k| std::env::var(k).ok()) {
        Ok(s) => s,
        Err(message) if message == continental::config::usage() => {
            println!("{message}");
            return std::process::ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("{message}");
            return std::process::ExitCode::from(2);
        }
    };
    // Held to the end: its drop writes the last lines.
    let _log = match continental::telemetry::init(settings.log_format, |k| std::env::var(k).ok()) {
        Ok(guard) => guard,
        Err(message) => {
            eprintln!("{message}");
            return std::process::ExitCode::from(2);
        }
    };
    tracing::info!(database = ?settings.database, bind = %settings.bind, test_mode = settings.test_mode, tenants = ?settings.api_keys, "starting");
    let app = match Application::build(settings).await {
        Ok(app) => app,
        Err(e) => {
            tracing::error!(error = %e, "could not start");
            return std::process::ExitCode::FAILURE;
        }
    };
    tracing::info!(port = app.port(), "listening");
    match app.run_until_stopped().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "server failed");
            std::process::ExitCode::FAILURE
        }
    }
}
