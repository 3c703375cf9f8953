//! The `options` object of a game, a meld or contract check and a view: one schema with every
//! variant's house options and the service's `turn_seconds`, made from the catalogue that
//! `GET /v1/rulesets` lists (the engine's `house_options!`), and the reading that holds a
//! request to it before the variant's rules read it.

use std::borrow::Cow;
use std::sync::LazyLock;

use engine::{HouseOption, OptionKind, Ruleset, Variant};
use serde_json::{Map, Value};
use utoipa::openapi::RefOr;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::{PartialSchema, ToSchema};

use super::{Code, Invalid};
use crate::domain::{
    BANK_SECONDS, BOT_PACE_MS, CLAIM_WINDOW_SECONDS, DEFAULT_BOT_PACE_MS, DEFAULT_CLAIM_WINDOW_SECONDS,
    TURN_SECONDS, TurnClock,
};

/// The name of the service's own option, the turn clock.
pub const TURN_SECONDS_OPTION: &str = "turn_seconds";

/// The name of the service's option that hands a seat to a bot after timeouts in a row.
pub const AUTOPILOT_AFTER_TIMEOUTS_OPTION: &str = "autopilot_after_timeouts";

/// Most timeouts in a row `autopilot_after_timeouts` may wait for.
const AUTOPILOT_AFTER_TIMEOUTS: std::ops::RangeInclusive<u32> = 1..=100;

/// The name of the service's option of a reserve on the turn clock.
pub const BANK_SECONDS_OPTION: &str = "bank_seconds";

/// The name of the service's option of the claim window, in the variants with claims.
pub const CLAIM_WINDOW_SECONDS_OPTION: &str = "claim_window_seconds";

/// The name of the service's option of the bots' pace at a person's table.
pub const BOT_PACE_MS_OPTION: &str = "bot_pace_ms";

/// The extension of each property that names the variants taking the option, each with its
/// default there.
pub const VARIANT_DEFAULTS: &str = "x-variant-defaults";

/// The service's own option, `turn_seconds`, as `GET /v1/rulesets` lists it beside the
/// variant's.
fn turn_seconds_option() -> HouseOption {
    HouseOption {
        name: TURN_SECONDS_OPTION.into(),
        kind: OptionKind::Integer,
        nullable: true,
        default: None,
        minimum: Some(i64::from(*TURN_SECONDS.start())),
        maximum: Some(i64::from(*TURN_SECONDS.end())),
        description: "Seconds each turn may take (the service's turn clock, in every variant): past it the \
                      server plays the turn as a bot would; null for no clock."
            .into(),
    }
}

/// The service's own option `autopilot_after_timeouts`, beside `turn_seconds`.
fn autopilot_after_timeouts_option() -> HouseOption {
    HouseOption {
        name: AUTOPILOT_AFTER_TIMEOUTS_OPTION.into(),
        kind: OptionKind::Integer,
        nullable: true,
        default: None,
        minimum: Some(i64::from(*AUTOPILOT_AFTER_TIMEOUTS.start())),
        maximum: Some(i64::from(*AUTOPILOT_AFTER_TIMEOUTS.end())),
        description:
            "With `turn_seconds`: after this many timeouts in a row a `normal` bot takes the seat over \
                      (autopilot) until the player acts again; null for never."
                .into(),
    }
}

/// The service's own option, `bank_seconds`, as `GET /v1/rulesets` lists it beside the
/// variant's.
fn bank_seconds_option() -> HouseOption {
    HouseOption {
        name: BANK_SECONDS_OPTION.into(),
        kind: OptionKind::Integer,
        nullable: true,
        default: None,
        minimum: Some(i64::from(*BANK_SECONDS.start())),
        maximum: Some(i64::from(*BANK_SECONDS.end())),
        description: "Seconds of reserve each seat has on the turn clock (with `turn_seconds` only): a turn \
                      that outlasts `turn_seconds` draws on its seat's reserve, and the server plays it \
                      once both are spent; null for no reserve."
            .into(),
    }
}

/// The service's own option `claim_window_seconds`, in the variants with claims: pacing, not
/// a rule.
fn claim_window_seconds_option() -> HouseOption {
    HouseOption {
        name: CLAIM_WINDOW_SECONDS_OPTION.into(),
        kind: OptionKind::Integer,
        nullable: false,
        default: Some(engine::OptionValue::Integer(i64::from(
            DEFAULT_CLAIM_WINDOW_SECONDS,
        ))),
        minimum: Some(i64::from(*CLAIM_WINDOW_SECONDS.start())),
        maximum: Some(i64::from(*CLAIM_WINDOW_SECONDS.end())),
        description: "Seconds a discard stays on offer before a bot in turn plays, while a person (a seat \
                      that is neither a bot nor on autopilot) may claim it: the view's `turn.claim_until`; \
                      0 for none. A table with no person plays at full speed."
            .into(),
    }
}

/// The service's own option `bot_pace_ms`, in every variant: pacing, not a rule.
fn bot_pace_ms_option() -> HouseOption {
    HouseOption {
        name: BOT_PACE_MS_OPTION.into(),
        kind: OptionKind::Integer,
        nullable: false,
        default: Some(engine::OptionValue::Integer(i64::from(DEFAULT_BOT_PACE_MS))),
        minimum: Some(i64::from(*BOT_PACE_MS.start())),
        maximum: Some(i64::from(*BOT_PACE_MS.end())),
        description:
            "Milliseconds each move of a bot (or a seat on autopilot) waits after the change before \
                      it, at a table where a person plays, so that the person sees each move: the bots' \
                      pace. 0 for none. A table with no person plays at full speed."
                .into(),
    }
}

/// Whether `variant` has claims, and so the claim window.
fn has_claims(variant: Variant) -> bool {
    Ruleset::default_for(variant).has_claims()
}

/// Every option `variant` takes, as `GET /v1/rulesets` lists them: its house options, then the
/// service's turn clock, its reserve, the autopilot after timeouts and, with claims, the claim
/// window.
pub fn options_of(variant: Variant) -> Vec<HouseOption> {
    let mut options = variant.house_options();
    options.push(turn_seconds_option());
    options.push(bank_seconds_option());
    options.push(autopilot_after_timeouts_option());
    options.push(bot_pace_ms_option());
    if has_claims(variant) {
        options.push(claim_window_seconds_option());
    }
    options
}

/// Every option of any variant, once, in the order the variants list them, with each variant
/// that takes it and its entry there.
type Documented = Vec<(String, Vec<(Variant, HouseOption)>)>;

/// Built once: a request with options looks its names up here.
static DOCUMENTED: LazyLock<Documented> = LazyLock::new(|| {
    let mut out: Documented = Vec::new();
    for variant in Variant::ALL {
        for option in options_of(variant) {
            match out.iter_mut().find(|(name, _)| *name == option.name) {
                Some((_, takers)) => takers.push((variant, option)),
                None => out.push((option.name.clone(), vec![(variant, option)])),
            }
        }
    }
    out
});

/// The type and bounds the document states for an option: its first variant's, which
/// `api/tests/api/options.rs` holds equal to every other variant's.
fn stated(takers: &[(Variant, HouseOption)]) -> &HouseOption {
    &takers[0].1
}

/// `options` of requests and views, as the document describes it (`HouseOptions`).
pub struct HouseOptions;

impl PartialSchema for HouseOptions {
    fn schema() -> RefOr<Schema> {
        let mut object = ObjectBuilder::new()
            .schema_type(Type::Object)
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .description(Some(
                "House-rule options: every option of any variant, and the service's `turn_seconds`, \
                 `bank_seconds`, `autopilot_after_timeouts`, `bot_pace_ms` and `claim_window_seconds`. Each \
                 says which variants take it and its default in each (`x-variant-defaults`; \
                 `GET /v1/rulesets` lists them per variant). In a request, an option left out takes its \
                 default; a name not listed here, or a value of another type or out of bounds, is \
                 `400 invalid_options`; an option listed here that the variant does not take is \
                 `422 invalid_options`. A view holds every option of its variant, `turn_seconds`, \
                 `bank_seconds` and `autopilot_after_timeouts` when the game has them, `bot_pace_ms`, \
                 and `claim_window_seconds` in the variants with claims.",
            ));
        for (name, takers) in DOCUMENTED.iter() {
            object = object.property(name, property(takers));
        }
        object.into()
    }
}

impl ToSchema for HouseOptions {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("HouseOptions")
    }
}

/// One option's property. No `default` keyword: it differs between variants, and generated
/// clients send a property's default as if the caller had set it (to variants without it).
fn property(takers: &[(Variant, HouseOption)]) -> Schema {
    let option = stated(takers);
    let kind = match option.kind {
        OptionKind::Boolean => Type::Boolean,
        OptionKind::Integer => Type::Integer,
    };
    let schema_type = match option.nullable {
        true => SchemaType::from_iter([kind, Type::Null]),
        false => SchemaType::Type(kind),
    };
    // One line per description, each after the variants that give it and their defaults.
    let mut lines: Vec<(String, Vec<String>)> = Vec::new();
    for (variant, entry) in takers {
        let default = serde_json::to_string(&entry.default).unwrap_or_default();
        let taker = format!("`{variant}` (default `{default}`)");
        match lines.iter_mut().find(|(d, _)| *d == entry.description) {
            Some((_, variants)) => variants.push(taker),
            None => lines.push((entry.description.clone(), vec![taker])),
        }
    }
    let description = lines
        .iter()
        .map(|(description, variants)| format!("{}: {description}", variants.join(", ")))
        .collect::<Vec<_>>()
        .join("\n");
    let defaults: Map<String, Value> = takers
        .iter()
        .map(|(variant, entry)| {
            (
                variant.id().to_owned(),
                serde_json::to_value(entry.default).unwrap_or_default(),
            )
        })
        .collect();
    ObjectBuilder::new()
        .schema_type(schema_type)
        .minimum(option.minimum)
        .maximum(option.maximum)
        .description(Some(description))
        .extensions(Some(Extensions::from_iter([(
            VARIANT_DEFAULTS,
            Value::Object(defaults),
        )])))
        .into()
}

/// `value` as `option` takes it (a whole-number float as an integer, as JSON Schema reads
/// one), or `None` if the document refuses it.
fn fits(option: &HouseOption, value: &Value) -> Option<Value> {
    match (value, option.kind) {
        (Value::Null, _) => option.nullable.then_some(Value::Null),
        (Value::Bool(_), OptionKind::Boolean) => Some(value.clone()),
        (Value::Number(n), OptionKind::Integer) => {
            // Beyond 2^63 no bound is met: such a float is refused like any other out of bounds.
            let whole = n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
                    .map(|f| f as i64)
            })?;
            let within = option.minimum.is_none_or(|min| whole >= min)
                && option.maximum.is_none_or(|max| whole <= max);
            within.then(|| whole.into())
        }
        _ => None,
    }
}

/// What the document takes for `option`, in words.
fn expected(option: &HouseOption) -> String {
    let mut out = match (option.kind, option.minimum, option.maximum) {
        (OptionKind::Integer, Some(min), Some(max)) => format!("a whole number from {min} to {max}"),
        (OptionKind::Integer, _, _) => "a whole number".to_owned(),
        (OptionKind::Boolean, _, _) => "true or false".to_owned(),
    };
    if option.nullable {
        out.push_str(", or null");
    }
    out
}

/// The rules and the service's options that an `options` object asks for in `variant`: first
/// held to the document's `HouseOptions`, then read by the variant's rules.
///
/// # Errors
/// `invalid_options`, refused by the document (400) for a name it does not list or a value of
/// another type or out of bounds, and by the rules (422) for an option the variant lacks.
pub fn read(variant: Variant, options: Option<Value>) -> Result<(Ruleset, TurnClock), Invalid> {
    let mut map = match options {
        None | Some(Value::Null) => return Ok((Ruleset::default_for(variant), TurnClock::default())),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(Invalid::new(
                Code::InvalidOptions,
                "`options` is an object of option names and values",
            ));
        }
    };
    for (name, value) in &mut map {
        let Some((_, takers)) = DOCUMENTED.iter().find(|(n, _)| n == name) else {
            return Err(Invalid::new(
                Code::InvalidOptions,
                format!("`{name}` is not an option of any variant (GET /v1/rulesets lists them)"),
            ));
        };
        let option = stated(takers);
        *value = fits(option, value)
            .ok_or_else(|| Invalid::new(Code::InvalidOptions, format!("`{name}` is {}", expected(option))))?;
    }
    let mut seconds = |name: &str| {
        map.remove(name)
            .and_then(|v| v.as_u64())
            .and_then(|v| u32::try_from(v).ok())
    };
    let clock = TurnClock {
        turn_seconds: seconds(TURN_SECONDS_OPTION),
        bank_seconds: seconds(BANK_SECONDS_OPTION),
        autopilot_after_timeouts: seconds(AUTOPILOT_AFTER_TIMEOUTS_OPTION),
        claim_window_seconds: seconds(CLAIM_WINDOW_SECONDS_OPTION),
        bot_pace_ms: seconds(BOT_PACE_MS_OPTION),
    };
    if clock.claim_window_seconds.is_some() && !has_claims(variant) {
        return Err(Invalid::refused(
            Code::InvalidOptions,
            format!(
                "`{CLAIM_WINDOW_SECONDS_OPTION}` is an option of the variants with claims, not of `{variant}`"
            ),
        ));
    }
    let ruleset = Ruleset::new(variant, Some(Value::Object(map)))?;
    Ok((ruleset, clock))
}
