//! House-rule options: each variant's options are declared once, in [`house_options!`], and
//! that one declaration gives the struct, its defaults, its JSON form, its range checks and
//! its catalogue entries ([`HouseOption`]), so what the service lists cannot drift from what
//! the engine accepts.

use serde::{Deserialize, Serialize};

/// One house-rule option as the catalogue lists it (`GET /v1/rulesets`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct HouseOption {
    /// Its name in the `options` object.
    pub name: String,
    /// The JSON type of its value.
    #[serde(rename = "type")]
    pub kind: OptionKind,
    /// Whether `null` is a value (no limit).
    pub nullable: bool,
    /// Its default value (`null` for a nullable option off by default).
    pub default: Option<OptionValue>,
    /// The smallest integer accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<i64>,
    /// The largest integer accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<i64>,
    /// What it does.
    pub description: String,
}

/// The JSON type of an option's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum OptionKind {
    /// `true` or `false`.
    Boolean,
    /// A whole number within the option's bounds.
    Integer,
}

/// A value of an option: a JSON boolean or a JSON integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum OptionValue {
    /// A boolean option's value.
    Boolean(bool),
    /// An integer option's value.
    Integer(i64),
}

impl HouseOption {
    /// Values at the option's bounds, which the engine accepts (`true`), and just beyond them
    /// or of the wrong type, which it refuses (`false`): what a test needs to try every
    /// option without knowing it.
    pub fn edge_values(&self) -> Vec<(serde_json::Value, bool)> {
        use serde_json::json;
        let mut out = match self.kind {
            OptionKind::Boolean => vec![(json!(true), true), (json!(false), true), (json!(1), false)],
            OptionKind::Integer => {
                let (lo, hi) = (self.minimum.unwrap_or(0), self.maximum.unwrap_or(0));
                vec![
                    (json!(lo), true),
                    (json!(hi), true),
                    (json!(lo - 1), false),
                    (json!(hi + 1), false),
                    (json!(true), false),
                ]
            }
        };
        out.push((serde_json::Value::Null, self.nullable));
        out
    }
}

/// A value an option may hold: how it is listed and checked.
pub(crate) trait OptionType {
    /// Its JSON type.
    const KIND: OptionKind;
    /// Whether `null` is a value.
    const NULLABLE: bool;
    /// The bounds of the Rust type (integers).
    const TYPE_BOUNDS: Option<(i64, i64)>;
    /// The value, `None` for `null`.
    fn value(&self) -> Option<OptionValue>;
}

impl OptionType for bool {
    const KIND: OptionKind = OptionKind::Boolean;
    const NULLABLE: bool = false;
    const TYPE_BOUNDS: Option<(i64, i64)> = None;
    fn value(&self) -> Option<OptionValue> {
        Some(OptionValue::Boolean(*self))
    }
}

macro_rules! integer_option {
    ($($t:ty),*) => {$(
        impl OptionType for $t {
            const KIND: OptionKind = OptionKind::Integer;
            const NULLABLE: bool = false;
            const TYPE_BOUNDS: Option<(i64, i64)> = Some((<$t>::MIN as i64, <$t>::MAX as i64));
            fn value(&self) -> Option<OptionValue> {
                Some(OptionValue::Integer(i64::from(*self)))
            }
        }
    )*};
}
integer_option!(u8, u32);

impl<T: OptionType> OptionType for Option<T> {
    const KIND: OptionKind = T::KIND;
    const NULLABLE: bool = true;
    const TYPE_BOUNDS: Option<(i64, i64)> = T::TYPE_BOUNDS;
    fn value(&self) -> Option<OptionValue> {
        self.as_ref().and_then(T::value)
    }
}

/// A value outside its option's bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OutOfRange {
    /// The option's name.
    pub option: &'static str,
    /// The range it must be in, in words.
    pub expected: String,
}

/// One option's entry, from its declaration.
pub(crate) fn entry<T: OptionType>(
    name: &str,
    description: &str,
    default: &T,
    bounds: Option<(i64, i64)>,
) -> HouseOption {
    let bounds = bounds.or(T::TYPE_BOUNDS);
    HouseOption {
        name: name.to_owned(),
        kind: T::KIND,
        nullable: T::NULLABLE,
        default: default.value(),
        minimum: bounds.map(|b| b.0),
        maximum: bounds.map(|b| b.1),
        description: description.trim().to_owned(),
    }
}

/// Checks one option's value against its declared bounds.
pub(crate) fn check<T: OptionType>(
    name: &'static str,
    value: &T,
    bounds: Option<(i64, i64)>,
) -> Result<(), OutOfRange> {
    let (Some((lo, hi)), Some(OptionValue::Integer(n))) = (bounds, value.value()) else {
        return Ok(());
    };
    if (lo..=hi).contains(&n) {
        return Ok(());
    }
    let mut expected = match T::TYPE_BOUNDS {
        Some((_, type_max)) if hi == type_max => format!("at least {lo}"),
        _ => format!("between {lo} and {hi}"),
    };
    if T::NULLABLE {
        expected.push_str(", or null for unlimited");
    }
    Err(OutOfRange {
        option: name,
        expected,
    })
}

/// What every variant's options struct offers: its catalogue and its range checks.
pub(crate) trait HouseOptions {
    /// One entry per option, in declaration order.
    fn catalogue() -> Vec<HouseOption>;
    /// The first option outside its bounds, if any.
    fn check_ranges(&self) -> Result<(), OutOfRange>;
}

/// Declares a variant's options once: each field is `/// description` then
/// `name: Type = default` and, for integers, optional bounds `, min..=max`. The struct reads
/// its JSON with every option optional and unknown ones refused.
macro_rules! house_options {
    ($(
        $(#[doc = $sdoc:literal])*
        $name:ident {
            $(
                #[doc = $doc:literal]
                $field:ident: $ty:ty = $default:expr $(, $min:literal..=$max:expr)?;
            )*
        }
    )*) => {$(
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $(
                #[doc = $doc]
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $crate::options::HouseOptions for $name {
            fn catalogue() -> Vec<$crate::options::HouseOption> {
                vec![$(
                    $crate::options::entry::<$ty>(
                        stringify!($field),
                        $doc,
                        &$default,
                        house_options!(@bounds $($min, $max)?),
                    ),
                )*]
            }

            fn check_ranges(&self) -> Result<(), $crate::options::OutOfRange> {
                $(
                    $crate::options::check(
                        stringify!($field),
                        &self.$field,
                        house_options!(@bounds $($min, $max)?),
                    )?;
                )*
                Ok(())
            }
        }
    )*};
    (@bounds) => { None };
    (@bounds $min:literal, $max:expr) => { Some(($min as i64, $max as i64)) };
}

house_options! {
    /// House rules of `may_i`
    /// ([options](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#options)).
    MayIOptions {
        /// Deuces are wild as well as jokers.
        deuces_wild: bool = false;
        /// No "May I?" in this many last deals (0 to 7).
        claims_disabled_last_deals: u8 = 0, 0..=7;
        /// At most this many claims per player per deal; null is unlimited.
        // Zero claims is what claims_disabled_last_deals = 7 says: 0 is refused as ambiguous.
        max_claims_per_deal: Option<u32> = None, 1..=u32::MAX;
        /// The deal's first upcard may be claimed ("May I?") like any other discard.
        first_upcard_claims: bool = true;
    }

    /// House rules of `contract_7`
    /// ([options](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#options));
    /// its claims follow `may_i`'s.
    Contract7Options {
        /// No claims in this many last deals (0 to 7).
        claims_disabled_last_deals: u8 = 0, 0..=7;
        /// At most this many claims per player per deal; null is unlimited.
        max_claims_per_deal: Option<u32> = None, 1..=u32::MAX;
        /// The deal's first upcard may be claimed like any other discard.
        first_upcard_claims: bool = true;
    }

    /// House rules of `continental`
    /// ([options](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#options)).
    ContinentalOptions {
        /// Deuces are wild as well as jokers.
        deuces_wild: bool = true;
        /// Jokers in each pack (0 to 4).
        jokers_per_pack: u8 = 1, 0..=4;
        /// The deal passes left instead of to the winner.
        deal_passes_left: bool = false;
        /// Pay the going-out bonuses.
        bonuses: bool = true;
        /// Deals in the match (1 to 20).
        deals: u8 = 1, 1..=20;
    }

    /// House rules of `push`
    /// ([options](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#options)).
    PushOptions {
        /// No partnerships: 4 to 6 players each for themselves.
        individual: bool = false;
        /// Deal ten cards in every deal.
        ten_every_deal: bool = false;
        /// Deal 5's contract is a run of three and a run of seven.
        three_and_seven: bool = false;
    }
}
