//! A request body read as strict JSON: an object, no unknown field, and a refusal that names
//! the field and says why with its `code`. The edge (`http/extract.rs`) reads the bytes; this
//! is what they mean.

use serde::de::DeserializeOwned;

use super::{Code, Invalid, UNKNOWN_LEVEL};

/// Parses `bytes` as strict JSON, naming the offending field in the problem's detail.
///
/// # Errors
/// `malformed_json` for bad syntax, `not_an_object` for JSON that is not an object (every
/// request body is one), `unknown_field`, `unknown_card`, `unknown_variant` or
/// `invalid_body` for well-formed JSON of the wrong shape.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Invalid> {
    let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        bytes
    };
    // serde would read a struct from an array too: refuse anything but an object up front.
    if text.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
            Ok(_) => Invalid::new(Code::NotAnObject, "the request body must be a JSON object"),
            Err(e) => Invalid::new(Code::MalformedJson, format!("invalid request body: {e}")),
        });
    }
    // Most bodies are right: read them without tracking the path, and read a refused one
    // again with it, to name the field.
    if let Ok(value) = serde_json::from_slice::<T>(text) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    let mut parsed: Result<T, _> = serde_path_to_error::deserialize(&mut de);
    if parsed.is_ok() {
        de.end()
            .map_err(|e| Invalid::new(Code::MalformedJson, format!("invalid request body: {e}")))?;
    }
    // JSON Schema counts `2.0` as an integer, so the document allows it where serde wants one:
    // read such a body again with its whole-number floats as integers.
    if parsed
        .as_ref()
        .is_err_and(|e| e.inner().to_string().starts_with("invalid type: floating point"))
    {
        let mut value: serde_json::Value = serde_json::from_slice(text)
            .map_err(|e| Invalid::new(Code::MalformedJson, format!("invalid request body: {e}")))?;
        whole_numbers_as_integers(&mut value);
        parsed = serde_path_to_error::deserialize(value);
    }
    parsed.map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.to_string();
        let code = match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => Code::MalformedJson,
            serde_json::error::Category::Io => Code::UnreadableBody,
            serde_json::error::Category::Data if message.starts_with("unknown field") => Code::UnknownField,
            serde_json::error::Category::Data if message.contains("unknown card") => Code::UnknownCard,
            serde_json::error::Category::Data if message.contains("unknown rank") => Code::UnknownCard,
            serde_json::error::Category::Data if message.starts_with(UNKNOWN_LEVEL) => Code::UnknownLevel,
            serde_json::error::Category::Data
                if path == "variant" && message.starts_with("unknown variant") =>
            {
                Code::UnknownVariant
            }
            serde_json::error::Category::Data => Code::InvalidBody,
        };
        let detail = if path == "." || path.is_empty() {
            format!("invalid request body: {message}")
        } else {
            format!("invalid request body at `{path}`: {message}")
        };
        Invalid::new(code, detail)
    })
}

/// Turns every float of `value` with no fractional part, within the 64-bit integers, into an
/// integer.
fn whole_numbers_as_integers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0) {
                // `as` saturates: a float beyond the range would come back different.
                if f >= 0.0 && f < u64::MAX as f64 {
                    *n = (f as u64).into();
                } else if f < 0.0 && f >= i64::MIN as f64 {
                    *n = (f as i64).into();
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(fields) => fields.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}
