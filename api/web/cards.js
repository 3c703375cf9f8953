// @ts-check
// Cards as the API writes them ("7H", "TD", "JK"): names a screen reader says, faces the eye
// reads, and the order a hand is shown in.

const RANKS = "A23456789TJQK";
const RANK_NAMES = {
  A: "ace", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", T: "10",
  J: "jack", Q: "queen", K: "king",
};
const SUITS = { C: ["clubs", "♣"], D: ["diamonds", "♦"], H: ["hearts", "♥"], S: ["spades", "♠"] };
export const RULES_URL = "https://github.com/continental-rummy/continental/blob/main/docs/rules.md";

/** Which cards are wild in a game: the server lists them in its view (`wilds`), so the page
 * holds no rule of its own; this only marks cards for the eye.
 * @param {{ wilds?: string[] }} view @returns {(card: string) => boolean} */
export function wildIn(view) {
  const wilds = new Set(view.wilds || []);
  return (card) => wilds.has(card);
}

/** A card's name as a person says it: "7 of hearts", "joker". @param {string} card */
export function cardName(card) {
  if (card === "JK") return "joker";
  const [name] = SUITS[card[1]] || [card[1]];
  return `${RANK_NAMES[card[0]] || card[0]} of ${name}`;
}

/** A server's sentence with every card code in it named in words ("AC cannot be laid off"
 * becomes "ace of clubs cannot be laid off"), through `cardName`. @param {string} text */
export function inWords(text) {
  return String(text).replace(/\b(JK|[2-9TJQKA][CDHS])\b/g, (code) => cardName(code));
}

/** The face: rank and suit symbol ("10♥"), and whether the suit is red. @param {string} card */
export function face(card) {
  if (card === "JK") return { rank: "★", suit: "JK", red: false };
  const suit = SUITS[card[1]]?.[1] || card[1];
  return { rank: card[0] === "T" ? "10" : card[0], suit, red: card[1] === "H" || card[1] === "D" };
}

/** Hand order: by rank (for sets) or by suit then rank (for runs); wilds last either way.
 * @param {string[]} hand @param {(c: string) => boolean} isWild @param {"rank" | "suit"} by */
export function sortHand(hand, isWild, by) {
  const key = (/** @type {string} */ c) => {
    if (isWild(c)) return 1000 + (c === "JK" ? 99 : RANKS.indexOf(c[0]) * 4 + "CDHS".indexOf(c[1]));
    const rank = RANKS.indexOf(c[0]);
    const suit = "CDHS".indexOf(c[1]);
    return by === "suit" ? suit * 20 + rank : rank * 4 + suit;
  };
  return [...hand].sort((a, b) => key(a) - key(b));
}

/**
 * A card as an element: a toggle button when `onToggle` is given, else a plain face.
 * @param {string} card @param {{wild?: boolean, pressed?: boolean, onToggle?: () => void, represents?: string, small?: boolean, id?: string}} how
 */
export function cardElement(card, how = {}) {
  const f = face(card);
  const el = document.createElement(how.onToggle ? "button" : "span");
  el.className = "card" + (f.red ? " red" : "") + (how.wild ? " wild" : "") + (how.small ? " small" : "");
  el.dataset.card = card;
  let said = cardName(card) + (how.wild ? " (wild)" : "");
  if (how.represents && how.represents !== card) said += `, standing for ${standsName(how.represents)}`;
  el.title = said;
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = f.rank;
  const suit = document.createElement("span");
  suit.className = card === "JK" ? "suit joker" : "suit";
  suit.textContent = f.suit === "JK" ? "joker" : f.suit;
  if (card === "JK") rank.setAttribute("aria-hidden", "true");
  el.append(rank, suit);
  if (how.wild) {
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.textContent = how.represents && how.represents !== card ? `=${shortStands(how.represents)}` : "wild";
    mark.setAttribute("aria-hidden", "true");
    el.append(mark);
  }
  if (how.onToggle) {
    // A button is named by what it shows, then the card in words ("A♦ ace of diamonds"): a
    // person who says what they see finds it (WCAG 2.5.3).
    if (card !== "JK" || how.wild) {
      const words = document.createElement("span");
      words.className = "visually-hidden";
      words.textContent = ` ${card === "JK" ? said.slice("joker".length) : said}`;
      el.append(words);
    }
  } else {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", said);
  }
  if (how.onToggle) {
    el.type = "button";
    if (how.id) el.dataset.key = how.id;
    el.setAttribute("aria-pressed", how.pressed ? "true" : "false");
    el.addEventListener("click", how.onToggle);
  }
  return el;
}

/** What a wild stands for, said aloud: a card, a rank, or anything. @param {string} stands */
export function standsName(stands) {
  if (stands === "*") return "anything";
  if (stands.length >= 2 && SUITS[stands[stands.length - 1]]) return cardName(stands);
  return `a ${RANK_NAMES[stands] || stands}`;
}

/** What a wild stands for, as a card's face is written: "5♠", "7", "any". @param {string} stands */
export function shortStands(stands) {
  if (stands === "*") return "any";
  return stands.replace("T", "10").replace(/[CDHS]$/, (s) => SUITS[s][1]);
}

/** A reading in words: "set of 7s", "run of hearts from 4". @param {any} reading */
export function readingName(reading) {
  if (!reading) return "";
  if (reading.kind === "set") return reading.rank ? `set of ${RANK_NAMES[reading.rank] || reading.rank}s` : "wild trio";
  const first = reading.slots?.[0]?.represents;
  const suit = reading.suit ? SUITS[reading.suit][0] : "";
  return `run of ${suit}` + (first ? ` from ${standsName(first)}` : "");
}

/**
 * A reading told by what its wilds stand for, as a person chooses between readings: "joker as
 * 5♠ (run 2♠ to 5♠)", "2♦ as A♦ (run A♦ to K♦)"; a reading without wilds by its kind and ends.
 * @param {any} reading
 */
export function readingChoice(reading) {
  const slots = reading.slots || [];
  const wilds = slots.filter((/** @type {any} */ x) => !x.natural)
    .map((/** @type {any} */ x) => `${shortName(x.card)} as ${shortStands(x.represents)}`);
  const ends = slots.length ? `${shortStands(slots[0].represents)} to ${shortStands(slots[slots.length - 1].represents)}` : "";
  const what = reading.kind === "run" ? `run ${ends}` : readingName(reading);
  return wilds.length ? `${wilds.join(", ")} (${what})` : what;
}

/** A card as it is written on its face, "7♥", "10♠", "joker". @param {string} card */
export function shortName(card) {
  const f = face(card);
  return card === "JK" ? "joker" : `${f.rank}${f.suit}`;
}

/** A variant's name as players say it. @param {string} variant */
export function variantName(variant) {
  const names = { may_i: "May I?", contract_7: "Contract 7", continental: "Continental", push: "Push" };
  return /** @type {Record<string, string>} */ (names)[variant] || variant.replace(/_/g, " ");
}
