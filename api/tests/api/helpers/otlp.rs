//! An OpenTelemetry collector for tests: an HTTP server on port 0 that takes OTLP/HTTP
//! protobuf exports (`POST /v1/traces`), decodes them with the official definitions and keeps
//! every span.

use std::sync::{Arc, Mutex};

use actix_web::{App, HttpResponse, HttpServer, web};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;

/// One span as exported, with the attributes of its resource.
#[derive(Clone, Debug)]
pub struct Exported {
    /// Its trace id, in hex.
    pub trace_id: String,
    /// Its span id, in hex.
    pub span_id: String,
    /// Its parent's span id, in hex (empty for a root).
    pub parent: String,
    /// Its name.
    pub name: String,
    /// Its kind (`opentelemetry_proto`'s `SpanKind` as a number: 2 server, 3 client).
    pub kind: i32,
    /// Its status code (0 unset, 1 ok, 2 error).
    pub status: i32,
    /// Its attributes, each value as text.
    pub attributes: Vec<(String, String)>,
    /// Its resource's attributes and its events', each value as text.
    pub around: Vec<(String, String)>,
}

impl Exported {
    /// The attribute `key`, as text.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A value as text (arrays and maps flattened, bytes in hex), so that a scan sees all of it.
fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        None => String::new(),
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(any_value::Value::BytesValue(b)) => hex::encode(b),
        Some(any_value::Value::ArrayValue(a)) => a
            .values
            .iter()
            .map(|v| text(Some(v)))
            .collect::<Vec<_>>()
            .join(" "),
        Some(any_value::Value::KvlistValue(kv)) => pairs(&kv.values)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

fn pairs(attributes: &[KeyValue]) -> Vec<(String, String)> {
    attributes
        .iter()
        .map(|kv| (kv.key.clone(), text(kv.value.as_ref())))
        .collect()
}

/// A running collector.
pub struct Collector {
    /// Its base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it.
    pub endpoint: String,
    spans: Arc<Mutex<Vec<Exported>>>,
}

async fn export(body: web::Bytes, spans: web::Data<Arc<Mutex<Vec<Exported>>>>) -> HttpResponse {
    let Ok(request) = ExportTraceServiceRequest::decode(body.as_ref()) else {
        return HttpResponse::BadRequest().finish();
    };
    let mut kept = spans.lock().expect("the spans");
    for resource_spans in request.resource_spans {
        let resource = resource_spans
            .resource
            .map(|r| pairs(&r.attributes))
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                let mut around = resource.clone();
                for event in &span.events {
                    around.push(("event".to_owned(), event.name.clone()));
                    around.extend(pairs(&event.attributes));
                }
                kept.push(Exported {
                    trace_id: hex::encode(&span.trace_id),
                    span_id: hex::encode(&span.span_id),
                    parent: hex::encode(&span.parent_span_id),
                    name: span.name.clone(),
                    kind: span.kind,
                    status: span.status.as_ref().map_or(0, |s| s.code),
                    attributes: pairs(&span.attributes),
                    around,
                });
            }
        }
    }
    HttpResponse::Ok()
        .content_type("application/x-protobuf")
        .body(ExportTraceServiceResponse::default().encode_to_vec())
}

impl Collector {
    /// Starts a collector.
    pub fn start() -> Collector {
        let spans = Arc::new(Mutex::new(Vec::new()));
        let data = web::Data::new(spans.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(web::PayloadConfig::new(64 * 1024 * 1024))
                .route("/v1/traces", web::post().to(export))
        })
        .workers(1)
        .disable_signals()
        .bind("127.0.0.1:0")
        .expect("a port");
        let port = server.addrs()[0].port();
        actix_web::rt::spawn(server.run());
        Collector {
            endpoint: format!("http://127.0.0.1:{port}"),
            spans,
        }
    }

    /// Every span exported so far.
    pub fn spans(&self) -> Vec<Exported> {
        self.spans.lock().expect("the spans").clone()
    }
}
