// @ts-check
// A game at the table: the view of one seat (or a spectator's, every hand hidden), kept live
// by the game's stream, and the seat's moves made by selecting cards.

import { call, follow, allEvents } from "./api.js";
import { cardElement, sortHand, wildIn, readingName, readingChoice, cardName, standsName, shortName, variantName, inWords, RULES_URL } from "./cards.js";
import { h, announce, mainArea } from "./dom.js";
import { keepResult } from "./results.js";

const SEAT_KEY = "continental.seat.";

/** The seat token this tab holds for a game. Kept for the tab's life (a reload keeps the
 * seat); a server key never is. @param {string} id */
export function seatToken(id) {
  return sessionStorage.getItem(SEAT_KEY + id);
}

/** @param {string} id @param {string} token */
export function keepSeatToken(id, token) {
  sessionStorage.setItem(SEAT_KEY + id, token);
}

const BACK_KEY = "continental.back.";

/** Where a game's end leads back to instead of "Play again" (a tournament's table: the
 * tournament seats the next round). @param {string} id @param {string} href @param {string} name */
export function keepWayBack(id, href, name) {
  sessionStorage.setItem(BACK_KEY + id, JSON.stringify({ href, name }));
}

/** @param {string} id @returns {{href: string, name: string} | null} */
function wayBack(id) {
  try {
    return JSON.parse(sessionStorage.getItem(BACK_KEY + id) || "null");
  } catch {
    return null;
  }
}

const ABOUT_KEY = "continental.about.";

/** What this tab knows of a game it sits at, for the lobby's list: its variant, who plays and
 * how far it is. @param {string} id @returns {{variant: string, players: string[], status: string, deal?: number, deals?: number} | null} */
export function aboutGame(id) {
  try {
    return JSON.parse(sessionStorage.getItem(ABOUT_KEY + id) || "null");
  } catch {
    return null;
  }
}

/** @param {any} view */
function remember(view) {
  if (!view.you) return;
  const about = {
    variant: view.variant,
    players: view.players.map((/** @type {any} */ p) => (p.seat === view.you.seat ? "you" : p.name || "an open seat")),
    status: view.status,
    deal: view.deal,
    deals: view.deals,
  };
  sessionStorage.setItem(ABOUT_KEY + view.id, JSON.stringify(about));
}

/** Opens the game this tab holds a seat in. @param {string} id */
export async function openTable(id) {
  const token = seatToken(id);
  if (!token) {
    const main = mainArea();
    main.append(h("p", { class: "problem", role: "alert" }, "This tab holds no seat in that game. ",
      "Open the invitation link you were given, or watch it with a server key."),
      h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
    return { close() {} };
  }
  return openGame(id, token, false);
}

/** @typedef {{key: string, meld: boolean, fits: Set<number>, swaps: Set<number>, why: string, groups: string[],
 * readings: {at: number, options: {reading: any, done: boolean}[]} | null}} Verdict */

/** Nothing said yet of a selection. @param {string} key @returns {Verdict} */
function noVerdict(key) {
  return { key, meld: false, fits: new Set(), swaps: new Set(), why: "", groups: [], readings: null };
}

/** Why cards are no meld, in a sentence from the validator's reasons: the first reason of
 * each kind of meld it ruled out. @param {any} answer */
function notMeldWhy(answer) {
  const said = new Set();
  const suits = { C: "♣", D: "♦", H: "♥", S: "♠" };
  for (const r of answer.reasons || []) {
    // "a run needs one suit, not C, D, H": the suits as a card shows them.
    said.add(inWords(r.message).replace(/\bnot ([CDHS](?:, [CDHS])*)$/, (_, list) => `not ${list.replace(/[CDHS]/g, (x) => suits[x])}`));
  }
  return [...said].slice(0, 2).join("; ") || "not a meld";
}

/** Why melds miss the contract, from the contract validator's reasons. @param {any} answer */
function contractWhy(answer) {
  const r = (answer.reasons || [])[0];
  if (!r) return "";
  if (r.code === "illegal_meld" && r.meld !== undefined) return `meld ${r.meld + 1} is no meld`;
  return inWords(r.message);
}

const PACE_KEY = "continental.pace";
/** When the page asks the person "May I?" for a discard on offer: always, only when the card
 * fits their hand, or never. Kept in the browser between games; the server never learns it, only
 * the passes it sends for them. */
const PACES = /** @type {const} */ ([
  ["always", "always"],
  ["fits", "only when the card fits my hand"],
  ["never", "never: pass for me"],
]);

/** The person's pace. @returns {"always" | "fits" | "never"} */
export function pace() {
  const kept = localStorage.getItem(PACE_KEY);
  return kept === "fits" || kept === "never" ? kept : "always";
}

/** @param {string} value */
function keepPace(value) {
  localStorage.setItem(PACE_KEY, value);
}

/** Who a seat is, for sentences. @param {any} view @param {number} seat */
function who(view, seat) {
  const p = view?.players?.[seat];
  if (!p) return `seat ${seat + 1}`;
  if (view.you && view.you.seat === seat) return "you";
  return p.name || `seat ${seat + 1}`;
}

/** The screen width below which the page folds to one column (style.css). */
const phone = window.matchMedia("(max-width: 760px)");

/** @param {string} text */
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

const thousands = new Intl.NumberFormat("en-US");

/** "1st", "2nd", "3rd", "4th". @param {number} n */
const ordinal = (n) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th"}`;

/** A rating as the server shows it ("1,640"). @param {{display: number}} rating */
export const ratingText = (rating) => thousands.format(rating.display);

/** What the view says of ratings that may change without a new version: each seat's change
 * once the finished game is rated. @param {any} view */
const ratingsOf = (view) => JSON.stringify(view.players.map((/** @type {any} */ p) => [p.rating?.display, p.rating_change?.after?.display]));

/** One event in words. @param {any} e @param {any} view */
export function describe(e, view) {
  const s = (/** @type {number} */ seat) => who(view, seat);
  // "you deal", "Bot 2 deals": the verb agrees with who does it.
  const does = (/** @type {number} */ seat, /** @type {string} */ verb) =>
    `${s(seat)} ${s(seat) === "you" ? verb : verb.replace(/(s|sh|ch)?$/, (m) => (m ? `${m}es` : "s"))}`;
  const cards = (/** @type {string[]} */ cs) => cs.map(cardName).join(", ");
  const yours = (/** @type {number} */ seat) => (s(seat) === "you" ? "your" : `${s(seat)}'s`);
  switch (e.type) {
    case "first_dealer": return `${does(e.dealer, "deal")} first`;
    case "deal_started": return `deal ${e.deal} starts, ${does(e.dealer, "deal")} ${e.hand_size} cards each`;
    case "dealt": return e.cards ? `${s(e.seat)} got ${cards(e.cards)}` : `${s(e.seat)} got a hand`;
    case "upcard": return `the upcard is ${cardName(e.card)}`;
    case "upcard_buried": return `the upcard ${cardName(e.card)} was buried`;
    case "drew": return `${s(e.seat)} drew ${e.card ? cardName(e.card) : "a card"} from the ${e.source}`;
    case "pushed": return `${s(e.from)} pushed ${cardName(e.discard)} and a card from the stock to ${s(e.to)}` + (e.stock ? ` (${cardName(e.stock)})` : "");
    case "claim_asked": return `${s(e.seat)} asked "May I?"`;
    case "passed": return `${s(e.seat)} passed on the discard`;
    case "claim_won": return `${s(e.seat)} took ${cardName(e.card)} with "May I?"` + (e.penalty ? ` and ${cardName(e.penalty)} as penalty` : " and a penalty card");
    case "claim_refused": return `${yours(e.seat)} "May I?" was refused (${String(e.reason).replace(/_/g, " ")})`;
    case "melded": return `${s(e.seat)} laid ${e.melds.map((/** @type {any} */ m) => readingName(m.reading)).join(" and ")}` + (e.contract ? ", going down" : "");
    case "laid_off": return `${s(e.seat)} laid off ${cards(e.cards)} on meld ${e.meld_id}`;
    case "swapped": return `${s(e.seat)} put ${cardName(e.card)} in meld ${e.meld_id}` + (e.freed ? ` and took ${cardName(e.freed)}` : "");
    case "joker_moved": return `${s(e.seat)} moved a joker from meld ${e.from_meld} to meld ${e.to_meld}`;
    case "took_back": return `${s(e.seat)} took back ${e.cards.length === 1 ? "a card" : `${e.cards.length} cards`}`;
    case "discarded": return `${s(e.seat)} discarded ${cardName(e.card)}`;
    case "stock_turned_over": return `the discards became the stock (${e.stock_count} cards)`;
    case "left": return `${s(e.seat)} left the game`;
    case "turn": return s(e.seat) === "you" ? "your turn" : `${s(e.seat)}'s turn`;
    case "timed_out": return `${s(e.seat)} ran out of time; the server played the turn`;
    case "seat_joined": return `${e.name} took seat ${e.seat + 1}`;
    case "seat_vacated": return `seat ${e.seat + 1} is open again`;
    case "deal_ended": return `deal ${e.deal} ended` + (e.end?.type === "went_out" ? `: ${s(e.end.seat)} went out` : ": the stock ran out") + `; scores ${e.scores.join(", ")}`;
    case "game_ended": return `the game ended: ${e.standings.map((/** @type {any} */ x) => `${x.place}. ${s(x.seat)} (${x.total})`).join(", ")}`;
    case "game_finished": return "the game is over";
    case "game_void": return "the game was void";
    case "called_off": return `the game was called off: ${e.reason}` + (e.rated ? " (rated on the deals played)" : "");
    case "matched": return `quick play seated ${e.seats.map((/** @type {any} */ x) => s(x.seat)).join(" and ") || "this table"}`;
    case "bot_seated": return `a bot (${e.level}) took ${yours(e.seat)} seat`;
    case "rematch": return "a rematch is ready: play again";
    case "suspend_asked": return `${s(e.seat)} asked to suspend the game`;
    case "suspended": return "the game is suspended";
    case "resume_asked": return `${s(e.seat)} asked to resume the game`;
    case "resumed": return "the game resumed";
    case "autopilot_on": return `a bot (${e.level}) plays for ${s(e.seat)}`;
    case "autopilot_off": return `${s(e.seat)} ${s(e.seat) === "you" ? "play" : "plays"} again`;
    default: return String(e.type).replace(/_/g, " ");
  }
}

/**
 * The table for `token`'s holder: a seat, or a spectator (`spectator`).
 * @param {string} id @param {string} token @param {boolean} spectator
 */
export async function openGame(id, token, spectator) {
  const main = mainArea();
  /** @type {any} */
  let view = await call("GET", `/v1/games/${id}`, { token });
  const past = await allEvents(id, token);
  /** @type {{seq: number, text: string}[]} */
  const log = past.map((/** @type {any} */ e) => ({ seq: e.seq, text: describe(e.event, view) }));
  let lastSeq = past.length ? past[past.length - 1].seq : 0;
  /** The last deal's end, as its `deal_ended` event tells it (the view's `last_deal` once it
   * has one): shown until the person moves on. @type {any} */
  let dealEnd = null;
  for (const e of past) if (e.event.type === "deal_ended") dealEnd = e.event;
  /** Which deal's end the person has moved on from. */
  let dealEndSeen = dealEnd && view.deal > dealEnd.deal ? dealEnd.deal : 0;

  let sortBy = /** @type {"rank" | "suit"} */ ("rank");
  /** Selected cards of the hand, each as `card#n` (its n-th copy in the sorted hand). */
  let selected = new Set();
  /** @type {number | null} */
  let target = null;
  /** Melds put together before laying them at once (the contract takes several). @type {any[]} */
  let staged = [];
  let handBefore = "";
  let busy = false;
  let live = "connecting";
  let message = { text: "", kind: "info" };
  /** A question the server's answer left open: which reading of a meld, which end of a run.
   * Every option is the server's (readings of a refusal, hints, the meld validator).
   * @type {{question: string, options: {label: string, pick: () => void}[]} | null} */
  let choice = null;
  /** Whether the seat's hints hold anything for "Suggest" to stage, read once per version of
   * the play phase: "Suggest" says so before it is pressed. */
  let suggestions = { version: -1, any: true };
  /** The version whose hints are on their way. */
  let lookingAt = -1;
  /** The phone's deal-end sheet folded (true) or open (false) by the person; `null` follows
   * the turn: open, folded once the next deal needs them. @type {boolean | null} */
  let sheetFolded = null;
  let sheetDeal = 0;
  /** Whether "Leave" has been pressed and waits for its confirmation. */
  let leaving = false;
  /** The lay-offs "Suggest" found, with what each wild represents. @type {any[]} */
  let layoffHints = [];
  /** What became of this seat's "May I?", shown beside the discard pile until the seat's
   * turn ends: won (the two cards it brought, marked in the hand) or refused, and why.
   * @type {{text: string, kind: "won" | "refused", cards: string[]} | null} */
  let claimNote = null;
  /** The other seats' moves since this seat's last one, in words, shown beside the discard
   * pile (the last few). @type {string[]} */
  let since = [];
  /** What the server said the selection could do (`check`): whether the staged and selected
   * cards make a meld the seat may lay now, which melds on the table they can be laid off on,
   * and which a selected card can swap a wild out of. Keyed by the view's version and the
   * selection it was asked for. `why` says why the melds cannot be laid as they are (next to
   * Meld); `groups` why each one alone is no meld (next to it); `readings`, a meld the server
   * reads more than one way, the readings that lay it (`done`: the melds are then laid as they
   * are, else another meld still asks).
   * @type {Verdict} */
  let verdict = noVerdict("");
  /** The key of the question on its way. @type {string | null} */
  let asking = null;
  /** The melds on the table when the last deal ended, as this page last saw them.
   * @type {{deal: number, melds: any[]} | null} */
  let endTable = null;
  /** Whether the game's end has been read out. */
  let overSaid = false;
  let closed = false;

  // Focusable from script only: the page moves the focus to the table when it opens.
  const root = h("section", { class: "game", tabindex: "-1", "aria-label": spectator ? "The game, as a spectator" : "Your table" });
  main.append(root);

  function isWild(/** @type {string} */ c) {
    return wildIn(view)(c);
  }
  function legal(/** @type {string} */ type, /** @type {(a: any) => boolean} */ test = () => true) {
    return (view.legal_actions || []).find((/** @type {any} */ a) => a.type === type && test(a));
  }
  /** The sorted hand with each card's key. */
  function hand() {
    const seen = new Map();
    return sortHand(view.you?.hand || [], isWild, sortBy).map((c) => {
      const n = seen.get(c) || 0;
      seen.set(c, n + 1);
      return { card: c, key: `${c}#${n}` };
    });
  }
  function selectedCards() {
    return hand().filter((x) => selected.has(x.key)).map((x) => x.card);
  }

  /** How many more times a finished rated game's view is read for its ratings' change. */
  let ratingReads = 15;
  /** A rated game is rated after it finishes, by the server's worker: its view is read again
   * until the change shows (the game's stream has ended by then). */
  function awaitRating() {
    if (!view.rated || view.status !== "finished" || view.players.some((/** @type {any} */ p) => p.rating_change)) return;
    if (ratingReads-- <= 0) return;
    setTimeout(() => { if (!closed) refresh(); }, 2000);
  }

  function setView(/** @type {any} */ next) {
    // Answers can cross: never go back to an older version.
    if (next.version < view.version) return;
    // A new deal: the last move's note belongs to the deal before.
    if (next.deal !== view.deal) {
      // The melds as the ended deal left them: how it was won, shown with its end.
      if (view.table?.length) endTable = { deal: view.deal, melds: view.table };
      message = { text: "", kind: "info" };
      choice = null;
      layoffHints = [];
      claimNote = null;
      since = [];
    }
    // A refusal is about the turn it was made in: it goes once another seat is in turn.
    if (message.kind === "problem" && (next.turn?.seat !== view.turn?.seat || next.deal !== view.deal)) message = { text: "", kind: "info" };
    if (next.last_deal) dealEnd = { ...next.last_deal, type: "deal_ended" };
    view = next;
    remember(view);
    const now = (view.you?.hand || []).join();
    if (now !== handBefore) {
      const keys = new Set(hand().map((x) => x.key));
      selected = new Set([...selected].filter((k) => keys.has(k)));
      if (handBefore) {
        staged = [];
        choice = null;
      }
      handBefore = now;
    }
    if (target !== null && !view.table.some((/** @type {any} */ m) => m.id === target)) target = null;
    render();
    awaitRating();
    passForThem();
    arrangeAhead();
  }

  /** Whether the card on offer fits the hand, by the server's stateless arrangement of it
   * (`POST /v1/hands/arrange`): not down, it brings the contract nearer (`cards_short`, or
   * makes it); down, it lays off on the table. Asked once per view. @type {{key: string, fits: Promise<boolean>} | null} */
  let fitsAsked = null;
  /** The hand's own arrangement (not down), asked ahead once per hand, so that a discard on
   * offer waits for one answer only: the hand with the card. @type {{key: string, answer: Promise<any>} | null} */
  let handArranged = null;
  /** @param {string[]} cards */
  function arrange(cards) {
    const down = view.players.find((/** @type {any} */ p) => p.seat === view.you?.seat)?.down;
    return call("POST", "/v1/hands/arrange", {
      body: {
        variant: view.variant, options: view.options, deal: view.deal, hand: cards,
        ...(down ? { table: view.table.map((/** @type {any} */ m) => pinned(m.reading)) } : {}),
      },
    });
  }
  /** The arrangement of the hand as it is, not yet down, asked once per hand and deal. */
  function ownArrangement() {
    const hand = view.you?.hand || [];
    const key = `${view.id}:${view.deal}:${hand.join()}`;
    if (handArranged?.key !== key) {
      const answer = arrange(hand);
      // Unanswered: asked again with the discard.
      answer.catch(() => { if (handArranged?.key === key) handArranged = null; });
      handArranged = { key, answer };
    }
    return handArranged.answer;
  }
  /** Under "only when it fits", between the seat's turns: the hand's own arrangement, asked
   * before any discard is on offer. */
  function arrangeAhead() {
    if (spectator || pace() !== "fits" || over() || !view.you || !view.claims || !hasClaims() || view.turn?.seat === view.you.seat) return;
    if (view.players.find((/** @type {any} */ p) => p.seat === view.you.seat)?.down) return;
    ownArrangement().catch(() => {});
  }
  /** @param {string} card */
  function offerFits(card) {
    const key = `${view.version}:${card}`;
    if (fitsAsked?.key === key) return fitsAsked.fits;
    const hand = view.you?.hand || [];
    const down = view.players.find((/** @type {any} */ p) => p.seat === view.you?.seat)?.down;
    const fits = (async () => {
      try {
        if (down) return (await arrange([...hand, card])).layoffs.some((/** @type {any} */ l) => l.card === card);
        const [without, withIt] = await Promise.all([ownArrangement(), arrange([...hand, card])]);
        return (withIt.makes_contract && !without.makes_contract) || withIt.cards_short < without.cards_short;
      } catch {
        // Unanswered: the person is asked, as with "always".
        return true;
      }
    })();
    fitsAsked = { key, fits };
    return fits;
  }

  /** The pace the person chose: where they would not be asked about this discard, the page
   * passes on it for them at once ("No, go on"), so the bots move on. */
  async function passForThem() {
    const chosen = pace();
    if (spectator || chosen === "always" || !legal("pass") || busy) return;
    const card = view.claims?.offered || view.discard?.top;
    if (!card) return;
    const version = view.version;
    if (chosen === "fits" && (await offerFits(card))) return;
    if (view.version !== version || !legal("pass") || busy || closed) return;
    const why = chosen === "never" ? "you asked never to be asked" : "it does not fit your hand";
    act("pass", {}, `Passed on the ${cardName(card)} for you: ${why}.`);
  }

  let refreshing = null;
  /** Fetches the view again, at most once for a burst of events. */
  function refresh() {
    if (refreshing) return;
    refreshing = setTimeout(async () => {
      refreshing = null;
      try {
        const next = await call("GET", `/v1/games/${id}`, { token });
        // The view the page shows already (the answer to its own move): drawing it again would
        // only replace the buttons under a person's finger.
        if (next.version !== view.version || next.status !== view.status || ratingsOf(next) !== ratingsOf(view)) setView(next);
      } catch (e) {
        say(/** @type {Error} */ (e).message, "problem");
      }
    }, 60);
  }

  function say(/** @type {string} */ text, /** @type {"info" | "problem"} */ kind = "info") {
    // A server's words name cards by their codes: the page names them as a person does.
    message = { text: inWords(text), kind };
    render();
  }

  /**
   * Sends a move; the answer is the seat's new view, a refusal is shown by the hand. A meld the
   * server can read more than one way comes back with its readings: `ambiguous` turns them
   * into a choice for the person.
   * @param {string} path @param {any} body @param {string} done @param {string} [method]
   * @param {(problem: any) => boolean} [ambiguous]
   */
  async function act(path, body, done, method = "POST", ambiguous = undefined) {
    if (busy) return;
    busy = true;
    message = { text: "", kind: "info" };
    choice = null;
    // A move in the deal after the one that ended: its end has been read. (Not the move that
    // ends a deal: its end comes with it, to be read.)
    const read = dealEnd && view.deal > dealEnd.deal ? dealEnd.deal : 0;
    try {
      const next = await call(method, `/v1/games/${id}/${path}`, { token, body, ifMatch: view.version, idempotent: method === "POST" });
      selected.clear();
      target = null;
      layoffHints = [];
      busy = false;
      // What the others did is old news once this seat moves; a claim's outcome lasts until
      // the turn it helped ends.
      since = [];
      if (path === "discard") claimNote = null;
      message = { text: done, kind: "info" };
      dealEndSeen = Math.max(dealEndSeen, read);
      setView(next);
    } catch (e) {
      busy = false;
      const err = /** @type {any} */ (e);
      if (err.code === "ambiguous_meld" && err.problem?.readings?.length && ambiguous?.(err.problem)) {
        render();
        announce(choice?.question || err.message);
        return;
      }
      say(err.message, "problem");
      announce(message.text);
      if (err.status === 412 || err.status === 409) refresh();
    }
  }

  /** A meld as the server reads it, pinned: its kind and what every wild represents. @param {any} reading */
  function pinned(reading) {
    return {
      cards: reading.cards,
      kind: reading.kind,
      wilds: reading.slots.filter((/** @type {any} */ x) => isWild(x.card)).map((/** @type {any} */ x) => ({ card: x.card, represents: x.represents })),
    };
  }

  /** The wilds a reading holds that `before` (a meld on the table) did not: what a lay-off
   * names to lie that way. @param {any} reading @param {any} before */
  function addedWilds(reading, before) {
    const old = [...(before?.slots || [])];
    const out = [];
    for (const x of reading.slots) {
      const k = old.findIndex((o) => o.card === x.card && o.represents === x.represents);
      if (k >= 0) old.splice(k, 1);
      else if (isWild(x.card)) out.push({ card: x.card, represents: x.represents });
    }
    return out;
  }

  /** "joker as 8 of hearts": what the wilds stand for. @param {{card: string, represents: string}[]} wilds */
  function wildWords(wilds) {
    return wilds.map((w) => `${cardName(w.card)} as ${standsName(w.represents)}`).join(", ");
  }

  /** Asks the person which reading they mean, then sends `send(reading)`.
   * @param {string} question @param {any[]} readings @param {(reading: any) => void} send @param {(reading: any) => string} words */
  function askReading(question, readings, send, words) {
    choice = {
      question,
      options: readings.map((r) => ({ label: words(r), pick: () => send(r) })),
    };
  }

  /** What `verdict` is asked for: the version, the staged melds and the selection. */
  function selectionKey() {
    return JSON.stringify([view.version, staged, selectedCards()]);
  }

  /**
   * Asks the server what the selection could do, never a rule of the page's own: a contract by
   * `POST /v1/contracts/validate`, later melds by `POST /v1/melds/validate`, a single card's
   * lay-offs and wild swaps by the seat's hints, several cards' lay-offs by the meld validator
   * on each meld with them. Meld, Lay off and Swap wild are enabled, and melds marked, from its
   * answer.
   */
  async function check() {
    const key = selectionKey();
    if (spectator || verdict.key === key || asking === key) return;
    const sel = selectedCards();
    const meldAction = legal("meld");
    const layoff = legal("layoff");
    const swapOk = legal("swap");
    const melds = [...staged, ...(sel.length ? [{ cards: sel }] : [])];
    if ((!meldAction || !melds.length) && (!layoff || !sel.length) && (!swapOk || sel.length !== 1)) {
      verdict = noVerdict(key);
      root.dataset.checked = "true";
      return;
    }
    asking = key;
    const out = noVerdict(key);
    const rules = { variant: view.variant, options: view.options };
    /** @param {any} body */
    const validate = (body) => call("POST", "/v1/melds/validate", { body: { ...rules, ...body } });
    try {
      if (meldAction && melds.length) {
        // Each group read alone, as the server reads it: why one is no meld is said beside it.
        const each = await Promise.all(melds.map((m) => validate({ cards: m.cards, kind: m.kind, wilds: m.wilds })));
        out.groups = each.map((r) => (r.valid ? "" : notMeldWhy(r)));
        const ambiguousAt = each.findIndex((r) => r.readings.length > 1);
        if (meldAction.contract) {
          /** @param {any[]} ms */
          const contract = (ms) => call("POST", "/v1/contracts/validate", { body: { ...rules, deal: view.deal, melds: ms } });
          const r = await contract(melds);
          out.meld = r.valid;
          const ambiguous = !r.valid && r.reasons.some((/** @type {any} */ x) => x.code === "ambiguous_meld");
          if (ambiguous && ambiguousAt >= 0) {
            // Only the readings with which the contract can still be met are offered.
            const readings = each[ambiguousAt].readings;
            const tries = await Promise.all(readings.map((/** @type {any} */ x) => contract(melds.map((m, i) => (i === ambiguousAt ? pinned(x) : m)))));
            const options = readings.map((/** @type {any} */ x, /** @type {number} */ i) => ({ reading: x, done: tries[i].valid }))
              .filter((/** @type {any} */ o, /** @type {number} */ i) => o.done || tries[i].reasons.some((/** @type {any} */ y) => y.code === "ambiguous_meld"));
            if (options.length) {
              out.meld = true;
              out.readings = { at: ambiguousAt, options };
            }
          }
          if (!out.meld) out.why = contractWhy(r);
        } else {
          out.meld = each.every((r) => r.valid);
          if (out.meld && ambiguousAt >= 0) {
            const others = each.filter((r, i) => i !== ambiguousAt && r.readings.length > 1).length;
            out.readings = { at: ambiguousAt, options: each[ambiguousAt].readings.map((/** @type {any} */ x) => ({ reading: x, done: others === 0 })) };
          }
          const bad = out.groups.findIndex(Boolean);
          if (bad >= 0) out.why = melds.length > 1 ? `meld ${bad + 1} is no meld` : out.groups[bad];
        }
      }
      if ((layoff || swapOk) && sel.length === 1) {
        const hints = await call("GET", `/v1/games/${id}/hints`, { token });
        if (layoff) for (const l of hints.layoffs || []) if (l.card === sel[0]) out.fits.add(l.meld_id);
        if (swapOk) for (const w of hints.swaps || []) if (w.card === sel[0]) out.swaps.add(w.meld_id);
      } else if (layoff && sel.length > 1) {
        const on = view.table.filter((/** @type {any} */ m) => layoff.meld_ids.includes(m.id));
        const rs = await Promise.all(on.map((/** @type {any} */ m) => validate({ cards: [...m.reading.cards, ...sel], kind: m.reading.kind })));
        on.forEach((/** @type {any} */ m, /** @type {number} */ i) => { if (rs[i].valid) out.fits.add(m.id); });
      }
    } catch {
      // Unanswered: nothing is offered that the server has not said could work.
    }
    if (asking !== key) return;
    asking = null;
    verdict = out;
    // One meld the cards fit: chosen for them, so that no scrolling to the table is needed.
    const places = new Set([...out.fits, ...out.swaps]);
    if (target === null && places.size === 1) target = [...places][0];
    if (selectionKey() === key) render();
  }

  /** Reads the seat's hints once a play phase's view comes, so that "Suggest" says there is
   * nothing to lay before anyone presses it. */
  async function lookAhead() {
    if (spectator || over() || !(legal("meld") || legal("layoff"))) return;
    if (suggestions.version === view.version || lookingAt === view.version) return;
    const asked = view.version;
    lookingAt = asked;
    try {
      const hints = await call("GET", `/v1/games/${id}/hints`, { token });
      if (view.version !== asked) return;
      suggestions = { version: asked, any: Boolean(hints.contract?.length || hints.new_meld || hints.layoffs?.length) };
      if (!suggestions.any) render();
      else root.dataset.looked = String(asked);
    } catch {
      // Unanswered: "Suggest" stays offered.
    }
  }

  /** Stages the selected cards as a meld to lay; the server then says whether it is one. */
  function group() {
    const sel = selectedCards();
    if (!sel.length) return;
    staged.push({ cards: sel });
    selected.clear();
    render();
  }

  async function suggest() {
    const asked = view.version;
    try {
      const hints = await call("GET", `/v1/games/${id}/hints`, { token });
      // An answer for a hand that has changed since would stage what is no longer there.
      if (view.version !== asked) return say("The table moved on while looking: press Suggest again.", "problem");
      /** @param {any[]} melds */
      const words = (melds) => melds.map((m) => `${m.kind === "run" ? "a run" : "a set"} of ${m.cards.map(cardName).join(", ")}`).join("; ");
      if (hints.contract?.length) {
        staged = hints.contract;
        selected.clear();
        say(`Suggested: ${words(hints.contract)}. Press Meld to lay them.`);
      } else if (hints.new_meld) {
        staged = [hints.new_meld];
        selected.clear();
        say(`Suggested a new meld: ${words(staged)}. Press Meld to lay it.`);
      } else if (hints.layoffs?.length) {
        const first = hints.layoffs[0];
        const key = hand().find((x) => x.card === first.card)?.key;
        selected = new Set(key ? [key] : []);
        target = first.meld_id;
        layoffHints = hints.layoffs;
        say(`${cardName(first.card)} fits meld ${first.meld_id}: press Lay off.`);
      } else {
        say("No meld or lay-off in this hand yet.");
      }
    } catch (e) {
      say(/** @type {Error} */ (e).message, "problem");
    }
  }

  function meld() {
    const melds = [...staged];
    const rest = selectedCards();
    if (rest.length) melds.push({ cards: rest });
    if (!melds.length) return say("Select the cards of a meld first, or press Suggest.", "problem");
    const readings = verdict.key === selectionKey() ? verdict.readings : null;
    if (readings) {
      // A meld the server reads more than one way: the person says which, in words; the melds
      // then go with that one pinned (or, when another still reads two ways, it asks next).
      const at = readings.at;
      choice = {
        question: `Meld ${at + 1} (${melds[at].cards.map(shortName).join(" ")}) can be read ${readings.options.length} ways: which one?`,
        options: readings.options.map((o) => ({
          label: readingChoice(o.reading),
          pick: () => {
            const next = melds.map((m, i) => (i === at ? pinned(o.reading) : m));
            if (o.done) return sendMelds(next);
            staged = next;
            selected.clear();
            choice = null;
            render();
          },
        })),
      };
      render();
      announce(choice.question);
      return;
    }
    sendMelds(melds);
  }

  /** Lays melds; when one of them reads more than one way, the person picks its reading. @param {any[]} melds */
  function sendMelds(melds) {
    act("melds", { melds }, "Laid.", "POST", (problem) => {
      const at = Number(problem.meld ?? 0);
      askReading(`Meld ${at + 1} (${melds[at].cards.map(cardName).join(", ")}) can be read ${problem.readings.length} ways: which one?`,
        problem.readings, (r) => sendMelds(melds.map((m, i) => (i === at ? pinned(r) : m))),
        readingChoice);
      return true;
    });
  }

  function layOff() {
    const cards = selectedCards();
    if (!cards.length || target === null) return say("Select cards, then the meld on the table to lay them off on.", "problem");
    const meldId = target;
    const before = view.table.find((/** @type {any} */ m) => m.id === meldId)?.reading;
    // A suggested lay-off goes as suggested: with what its wild represents. Where "Suggest"
    // found several readings of the same card on the same meld, the person picks one.
    const hinted = cards.length === 1 ? layoffHints.filter((l) => l.card === cards[0] && l.meld_id === meldId) : [];
    const send = (/** @type {any[]} */ wilds) => act("layoffs", { meld_id: meldId, cards, ...(wilds.length ? { wilds } : {}) }, "Laid off.", "POST", (problem) => {
      askReading(`${cards.map(cardName).join(", ")} on meld ${meldId} can lie ${problem.readings.length} ways: which one?`,
        problem.readings, (r) => send(addedWilds(r, before)), (r) => wildWords(addedWilds(r, before)) || readingName(r));
      return true;
    });
    if (hinted.length > 1) {
      askReading(`${cardName(cards[0])} fits meld ${meldId} ${hinted.length} ways: which one?`, hinted, (l) => send(l.wilds),
        (l) => wildWords(l.wilds) || readingName(l.reading));
      return render();
    }
    send(hinted[0]?.wilds || []);
  }

  /** "Lay off", or why not yet: the selection fits no meld, or its meld is still to choose.
   * @param {Verdict} known */
  function layoffLabel(known) {
    if (verdict.key !== selectionKey()) return "Lay off";
    if (!known.fits.size) return "Lay off: fits no meld";
    if (target === null || !known.fits.has(target)) return "Lay off: choose a meld";
    return "Lay off";
  }

  /** Takes `card` out of staged group `group` (a suggestion's pinned reading no longer holds).
   * @param {number} group @param {string} card */
  function ungroup(group, card) {
    const cards = [...staged[group].cards];
    cards.splice(cards.indexOf(card), 1);
    staged = staged.map((m, i) => (i === group ? { cards } : m)).filter((m) => m.cards.length);
    choice = null;
    render();
  }

  function swap() {
    const cards = selectedCards();
    if (cards.length !== 1 || target === null) return say("Select one natural card, then the meld holding the wild it replaces.", "problem");
    act("swaps", { meld_id: target, card: cards[0] }, "Swapped.");
  }

  /**
   * `contract_7`: moves a joker from an end of one of the listed runs to an end of the chosen
   * run. Which ends the joker can take there the server says (`POST /v1/melds/validate`, the
   * run's every reading with one more joker); where more than one move fits, the person picks.
   */
  async function moveJoker() {
    choice = null;
    const to = view.table.find((/** @type {any} */ m) => m.id === target);
    const froms = (legal("move_joker")?.meld_ids || []).filter((/** @type {number} */ id) => id !== target)
      .map((/** @type {number} */ id) => view.table.find((/** @type {any} */ m) => m.id === id)).filter(Boolean);
    if (!to || !froms.length) return say("Choose the run the joker goes to (another run than the one it leaves).", "problem");
    /** @type {("low" | "high")[]} */
    let toEnds = ["low", "high"];
    try {
      const checked = await call("POST", "/v1/melds/validate", {
        body: { variant: view.variant, options: view.options, cards: [...to.reading.cards, "JK"], kind: "run" },
      });
      const ends = new Set();
      for (const r of checked.readings) {
        // Where the added joker lies: the slot of this reading that the run on the table lacks.
        const old = [...to.reading.slots];
        r.slots.forEach((/** @type {any} */ x, /** @type {number} */ i) => {
          const k = old.findIndex((o) => o.card === x.card && o.represents === x.represents);
          if (k >= 0) old.splice(k, 1);
          else if (x.card === "JK") ends.add(i === 0 ? "low" : i === r.slots.length - 1 ? "high" : "");
        });
      }
      toEnds = toEnds.filter((e) => ends.has(e));
    } catch {
      // The validator unreachable: both ends are offered, and the move's answer says which fits.
    }
    if (!toEnds.length) return say(`No end of meld ${to.id} can take a joker.`, "problem");
    const moves = [];
    for (const from of froms) {
      const slots = from.reading.slots;
      const ends = [];
      if (slots[0]?.card === "JK" && !slots[0].natural) ends.push("low");
      if (slots[slots.length - 1]?.card === "JK" && !slots[slots.length - 1].natural) ends.push("high");
      for (const end of ends) for (const toEnd of toEnds) moves.push({ from: from.id, end, toEnd });
    }
    if (!moves.length) return say("None of your runs has a joker at an end.", "problem");
    const send = (/** @type {any} */ m) =>
      act("swaps", { from_meld: m.from, end: m.end, to_meld: to.id, to_end: m.toEnd }, `Moved the joker to the ${m.toEnd} end of meld ${to.id}.`);
    if (moves.length === 1) return send(moves[0]);
    choice = {
      question: "Which joker goes to which end?",
      options: moves.map((m) => ({ label: `the joker at the ${m.end} end of meld ${m.from} to the ${m.toEnd} end of meld ${to.id}`, pick: () => send(m) })),
    };
    render();
  }

  function discard() {
    const cards = selectedCards();
    if (cards.length !== 1) return say("Select exactly one card to discard.", "problem");
    act("discard", { card: cards[0] }, `Discarded ${cardName(cards[0])}.`);
  }

  // Keeps the keyboard's place across a re-render.
  function focusKey() {
    const a = /** @type {HTMLElement | null} */ (document.activeElement);
    if (!a || !root.contains(a)) return null;
    return a.id ? `#${a.id}` : a.dataset.key ? `[data-key="${a.dataset.key}"]` : null;
  }

  function render() {
    if (closed) return;
    const keep = focusKey();
    // Which version is on screen: lets a test (or a curious reader) see the table caught up.
    root.dataset.version = String(view.version);
    // And whether a move of this page is still on its way.
    root.dataset.busy = String(busy);
    // And whether the server has said what the selection could do (Meld, Lay off).
    root.dataset.checked = String(verdict.key === selectionKey());
    // And which version's hints "Suggest" has read ahead.
    root.dataset.looked = String(suggestions.version);
    // A deal's end sits beside the table above the log; on a phone, where there is no beside,
    // it is a sheet over the foot of the screen.
    const narrow = phone.matches;
    // Once the game is over nothing is played: the last deal's end lies below the standings.
    const sheet = narrow && !over() ? dealEndPanel(true) : "";
    root.classList.toggle("with-sheet", Boolean(sheet));
    root.replaceChildren(header(), gameOverPanel(), h("div", { class: "layout" },
      h("div", { class: "board" }, players(), piles(), you(), melds(), scores(), narrow && over() ? dealEndPanel() : ""),
      h("div", { class: "side" }, narrow ? "" : dealEndPanel(), logPanel())), sheet);
    if (keep) /** @type {HTMLElement | null} */ (root.querySelector(keep))?.focus({ preventScroll: true });
    tick();
    check();
    lookAhead();
  }

  /** Whether the game is over: finished, or void. */
  function over() {
    return view.status === "finished" || view.status === "void";
  }

  function header() {
    const turn = view.turn ? `${who(view, view.turn.seat)} to ${view.turn.phase === "draw" ? "draw" : "play"}` : "";
    return h("div", { class: "status" },
      h("span", { class: "variant" }, variantName(view.variant)),
      over() ? h("span", { class: "over", id: "game-over-status" }, view.status === "void" ? "game void" : `game over after ${view.deal} ${view.deal === 1 ? "deal" : "deals"}`)
        : view.deal ? h("span", {}, `deal ${view.deal} of ${view.deals}`) : h("span", {}, view.status),
      view.contract && !over() ? h("span", { class: "contract" }, `contract: ${view.contract.description}`) : "",
      view.rated ? h("span", { class: "badge", id: "rated" }, "rated") : "",
      turn ? h("span", { class: "turn", id: "turn" }, turn) : "",
      view.turn?.deadline ? h("span", { class: "deadline", id: "deadline", "data-deadline": view.turn.deadline }) : "",
      // Once the game is over, there is nothing live to follow.
      over() ? "" : h("span", { class: `live stream-${live}`, title: "the game's live stream" }, live === "live" ? "live" : live === "ended" ? "stream ended" : live),
      h("a", { href: `${RULES_URL}#${view.variant}`, target: "_blank", rel: "noreferrer" }, "rules"));
  }

  /** A partnership's name: "team 1" (seats 1 and 3). @param {number} team */
  function teamName(team) {
    return `team ${team + 1}`;
  }

  function players() {
    const list = h("ul", { class: "players", "aria-label": "Players" });
    const myTeam = view.players.find((/** @type {any} */ p) => p.seat === view.you?.seat)?.team;
    for (const p of view.players) {
      const inTurn = view.turn?.seat === p.seat;
      const me = view.you?.seat === p.seat;
      const partner = !me && p.team !== null && p.team !== undefined && p.team === myTeam;
      const bits = [
        h("strong", {}, p.name || "open seat", me ? " (you)" : "", p.kind === "bot" ? ` (${p.level || "normal"} bot)` : "",
          p.autopilot ? ` (autopilot: ${p.autopilot} bot)` : ""),
        // Once the finished game is rated, the new rating.
        p.rating ? h("span", { class: "rating" }, h("span", { "aria-hidden": "true" }, "· "),
          h("span", { class: "visually-hidden" }, "rating "), ratingText(p.rating_change?.after || p.rating)) : "",
        p.team !== null && p.team !== undefined
          ? h("span", { class: `badge team team-${p.team}` }, partner ? `your partner, ${teamName(p.team)}` : teamName(p.team))
          : "",
        p.kind === "open" ? "" : h("span", { class: "count", "aria-label": `${p.hand_count} cards in hand` },
          h("span", { class: "mini-back", "aria-hidden": "true" }), ` ${p.hand_count}`),
        p.down ? h("span", { class: "badge" }, "down") : "",
        h("span", { class: "total" }, p.team !== null && p.team !== undefined ? `${teamName(p.team)}: ${p.total} pts` : `${p.total} pts`),
        p.left ? h("span", { class: "badge" }, "left") : "",
        p.timeouts ? h("span", { class: "badge" }, `${p.timeouts} timeouts`) : "",
        typeof p.bank_seconds_left === "number"
          ? h("span", { class: "badge reserve", "aria-label": `${Math.floor(p.bank_seconds_left)} seconds of reserve left` }, `reserve ${Math.floor(p.bank_seconds_left)} s`)
          : "",
        p.reserved ? h("span", { class: "badge" }, "not back yet") : "",
        view.claims?.pending?.includes(p.seat) ? h("span", { class: "badge claim" }, "May I?") : "",
      ];
      const li = h("li", { class: "player" + (inTurn ? " in-turn" : "") + (me ? " me" : ""), "aria-current": inTurn ? "true" : false }, ...bits);
      if (p.kind === "open" && view.status === "waiting") {
        const link = `${location.origin}${location.pathname}#/join/${view.id}/${p.seat}`;
        const input = h("input", { readonly: true, value: link, id: `invite-${p.seat}`, "aria-label": `Invitation link for seat ${p.seat + 1}`, onfocus: (/** @type {Event} */ ev) => /** @type {HTMLInputElement} */ (ev.target).select() });
        li.append(h("div", { class: "invite" }, h("label", { for: `invite-${p.seat}` }, "Invite: "), input,
          h("button", { type: "button", class: "small", onclick: () => copy(link) }, "Copy")));
      }
      list.append(li);
    }
    return h("section", { class: "panel players-panel" }, h("h2", {}, "Players"), list, seatActions());
  }

  /** What concerns the seat rather than the turn, away from the moves: the pace, "Autopilot",
   * and "Leave" behind a confirmation. */
  function seatActions() {
    if (spectator || !view.you || over()) return "";
    const leave = legal("leave");
    const confirmLeave = leaving && leave
      ? h("div", { class: "confirm", id: "leave-confirm", role: "group", "aria-labelledby": "leave-question" },
        h("p", { id: "leave-question" }, "Leave this game for good? Your seat will not come back."),
        button("act-leave-yes", "Yes, leave", false, () => { leaving = false; act("leave", {}, "You left the game."); }, "danger"),
        button("act-leave-no", "Stay", false, () => { leaving = false; render(); }))
      : "";
    return h("div", { class: "seat-actions", id: "seat-actions" },
      paceSetting(),
      h("div", { class: "row" }, autopilotButton(),
        leave && !leaving ? button("act-leave", "Leave…", false, () => { leaving = true; render(); }, "danger") : ""),
      confirmLeave);
  }

  async function copy(/** @type {string} */ text) {
    try {
      await navigator.clipboard.writeText(text);
      say("Link copied.");
    } catch {
      say("Copy the link from the box.");
    }
  }

  function piles() {
    const d = view.discard;
    const fromStock = legal("draw", (a) => a.source === "stock");
    const fromDiscard = legal("draw", (a) => a.source === "discard");
    const top = d.top ? cardElement(d.top, { wild: isWild(d.top) }) : h("span", { class: "card empty", role: "img", "aria-label": "empty" }, "—");
    return h("section", { class: "panel piles", "aria-label": "Stock and discard pile" },
      h("div", { class: "pile" }, h("span", { class: "card back", role: "img", "aria-label": `stock, ${view.stock_count} cards` }, String(view.stock_count)),
        h("span", { class: "pile-label" }, "stock"),
        spectator || !fromStock ? "" : drawStock(fromStock, d.top)),
      h("div", { class: "pile" + (d.dead ? " dead" : "") }, top,
        h("span", { class: "pile-label" }, `discard (${d.count})${d.dead ? ", dead" : ""}`),
        spectator || !fromDiscard ? "" : button("act-draw-discard", "Take the discard", false, () => act("draw", { source: "discard" }, "Took the discard."))),
      // Said to those who may ask for it: not to the player in turn, who takes it or not.
      view.claims?.offered && !over() && view.turn?.seat !== view.you?.seat
        ? h("p", { class: "hint", id: "on-offer" }, `On offer for "May I?": ${cardName(view.claims.offered)}`) : "",
      news());
  }

  /** Beside the discard pile, where the person looks: what became of their "May I?" and what
   * the others did since their last move. */
  function news() {
    if (over() || (!claimNote && !since.length)) return "";
    return h("div", { class: "news", id: "news" },
      claimNote ? h("p", { class: `claim-note ${claimNote.kind}`, id: "claim-note" }, claimNote.text) : "",
      since.length ? h("ul", { class: "since", id: "since", "aria-label": "Since your last move" },
        ...since.slice(-4).map((t) => h("li", {}, capital(t)))) : "");
  }

  /** Words for why a claim was refused (docs/rules.md#claims). @param {string} reason */
  function refusedWhy(reason) {
    switch (reason) {
      case "taken": return "the player in turn took the discard";
      case "outranked": return "a player nearer in turn asked too, and won it";
      case "stock_empty": return "the stock is empty, so there is no penalty card";
      case "gone": return "the discard was gone";
      default: return String(reason).replace(/_/g, " ");
    }
  }

  /** Keeps what happened that the person should see beside the pile. @param {any} e */
  function notice(e) {
    const me = view.you?.seat;
    if (me === undefined || me === null) return;
    if (e.type === "claim_won" && e.seat === me) {
      const cards = [e.card, e.penalty].filter(Boolean);
      claimNote = { kind: "won", cards, text: `Your "May I?" won the ${cardName(e.card)}` + (e.penalty ? `, with the ${cardName(e.penalty)} as penalty: both are marked in your hand.` : ".") };
      announce(claimNote.text);
    } else if (e.type === "claim_refused" && e.seat === me) {
      claimNote = { kind: "refused", cards: [], text: `Your "May I?" was refused: ${refusedWhy(e.reason)}.` };
      announce(claimNote.text);
    } else if (e.seat !== undefined && e.seat !== me && !["turn", "dealt", "timed_out"].includes(e.type)) {
      since.push(describe(e, view));
      since = since.slice(-4);
      // The note of this seat's own last move is old news once another has moved.
      if (message.kind === "info") message = { text: "", kind: "info" };
    }
  }

  /** The stock draw; in `push` with a card on the discard pile it is the push, and says so
   * (docs/rules.md#push-draw): the top discard and a stock card go to the player on the left.
   * @param {any} allowed @param {string | null} top */
  function drawStock(allowed, top) {
    const pushTo = view.variant === "push" && top ? nextSeat(view.you?.seat) : null;
    if (pushTo === null) return button("act-draw-stock", "Draw from stock", !allowed, () => act("draw", { source: "stock" }, "Drew from the stock."));
    const to = who(view, pushTo);
    const el = button("act-draw-stock", `Draw, pushing the ${shortName(top)} and a card to ${to}`, !allowed,
      () => act("draw", { source: "stock" }, `Pushed the ${cardName(top)} and a card to ${to}, and drew from the stock.`));
    // Its name begins with what it shows (WCAG 2.5.3), then says the card in words.
    el.append(h("span", { class: "visually-hidden" }, ` (the ${cardName(top)} and a card from the stock)`));
    return el;
  }

  /** Whose: "your", "Bot 2's". @param {number} seat */
  function whose(seat) {
    const name = who(view, seat);
    return name === "you" ? "your" : `${name}'s`;
  }

  /** The player on the left of `seat`: the next seat in play order still playing. @param {number | undefined} seat */
  function nextSeat(seat) {
    if (seat === undefined) return null;
    const n = view.players.length;
    for (let k = 1; k < n; k++) {
      const p = view.players[(seat + k) % n];
      if (!p.left) return p.seat;
    }
    return null;
  }

  function melds() {
    const layoff = legal("layoff");
    const swapOk = legal("swap");
    // A joker moves from one of the listed runs to another run the player picks.
    const runs = legal("move_joker") ? view.table.filter((/** @type {any} */ m) => m.kind === "run").map((/** @type {any} */ m) => m.id) : [];
    const targets = new Set([...(layoff?.meld_ids || []), ...(swapOk?.meld_ids || []), ...runs]);
    const list = h("ul", { class: "melds" });
    for (const m of view.table) {
      const cards = h("span", { class: "cards" }, ...m.reading.slots.map((/** @type {any} */ s) =>
        cardElement(s.card, { wild: !s.natural, represents: s.represents, small: true })));
      const label = `meld ${m.id}, ${whose(m.owner)} ${readingName(m.reading)}`;
      const canTarget = !spectator && targets.has(m.id);
      // A meld nothing can go to now is numbered, not a button.
      const pick = canTarget
        ? h("button", {
          type: "button", class: "meld-pick", id: `meld-${m.id}`, "aria-pressed": target === m.id ? "true" : "false",
          "aria-label": `Choose ${label}`,
          onclick: () => { target = target === m.id ? null : m.id; render(); },
        }, `#${m.id}`)
        : h("span", { class: "meld-id", id: `meld-${m.id}` }, `#${m.id}`);
      const current = !spectator && verdict.key === selectionKey();
      const fits = current && verdict.fits.has(m.id);
      const swaps = current && verdict.swaps.has(m.id);
      list.append(h("li", { class: "meld" + (target === m.id ? " targeted" : "") + (fits || swaps ? " fits" : ""), "data-kind": m.reading.kind }, pick,
        h("span", { class: "reading" }, `${who(view, m.owner)}: ${readingName(m.reading)}`), cards,
        fits ? h("span", { class: "badge fit" }, "your cards fit") : "",
        swaps ? h("span", { class: "badge fit swap-fit" }, "your card swaps in") : ""));
    }
    if (!view.table.length) list.append(h("li", { class: "hint" }, "No melds yet."));
    return h("section", { class: "panel melds-panel", id: "table-melds", "aria-label": "Melds on the table" }, h("h2", {}, "Table"), list);
  }

  /** Hands the seat to a bot (docs/api.md#autopilot), or takes it back. */
  function autopilotButton() {
    const me = view.players.find((/** @type {any} */ p) => p.seat === view.you?.seat);
    if (!me || view.status !== "playing") return "";
    return me.autopilot
      ? button("act-autopilot", "Take my seat back", false, () => act("autopilot", undefined, "You play your seat again.", "DELETE"))
      : button("act-autopilot", "Autopilot", false, () => act("autopilot", {}, "A normal bot plays your seat until you take it back."));
  }

  /** A move's button; `label`, when given, is what a screen reader says (it holds the text). */
  function button(/** @type {string} */ id, /** @type {string} */ text, /** @type {boolean} */ disabled, /** @type {() => void} */ onclick, cls = "", label = "") {
    return h("button", { type: "button", id, class: cls, disabled: disabled || busy, onclick, "aria-label": label || undefined }, text);
  }

  function you() {
    // Once the game is over, the last move's note is old news: the standings say what matters.
    const msg = h("p", { id: "message", class: message.kind, role: message.kind === "problem" ? "alert" : "status" }, view.standings ? "" : message.text);
    if (spectator || !view.you) {
      return h("section", { class: "panel hand-panel", "aria-label": "Hands" },
        h("p", { class: "hint", id: "spectating" }, "Watching as a spectator: every hand is hidden."), msg);
    }
    /** Which group each copy of a card is in: the first copies in the hand's order. */
    const grouped = new Map();
    staged.forEach((m, i) => m.cards.forEach((/** @type {string} */ c) => grouped.set(c, (grouped.get(c) || []).concat(i))));
    const cards = h("div", { class: "hand", role: "group", "aria-label": `Your hand, ${view.you.hand.length} cards` });
    /** The cards a won claim brought, each marked once. */
    const won = claimNote?.kind === "won" ? [...claimNote.cards] : [];
    for (const { card, key } of hand()) {
      const group = grouped.get(card)?.shift();
      const el = cardElement(card, {
        wild: isWild(card), pressed: selected.has(key), id: key,
        // A grouped card is pressed again to take it out of its group.
        onToggle: group === undefined
          ? () => { selected.has(key) ? selected.delete(key) : selected.add(key); render(); }
          : () => ungroup(group, card),
      });
      if (group !== undefined) {
        el.classList.add("grouped");
        el.dataset.group = String(group + 1);
        const mark = h("span", { class: "group-mark", "aria-hidden": "true" }, `M${group + 1}`);
        el.append(mark);
        el.setAttribute("aria-description", `in meld ${group + 1} to lay; press to take it out`);
      }
      if (view.you.must_play?.includes(card)) el.classList.add("must");
      if (won.includes(card)) {
        won.splice(won.indexOf(card), 1);
        el.classList.add("claimed");
        el.setAttribute("aria-description", 'won with "May I?"');
      }
      cards.append(el);
    }
    const sel = selectedCards();
    const meldAction = legal("meld");
    const discardAction = legal("discard");
    /** The server's verdict on this very selection, or nothing yet. */
    const known = verdict.key === selectionKey() ? verdict : noVerdict("");
    const myTurn = view.turn?.seat === view.you.seat;
    const layoff = legal("layoff");
    const swapOk = legal("swap");
    const nothing = suggestions.version === view.version && !suggestions.any;
    // Only the moves that can be made now are drawn; one drawn but not yet possible says why.
    // Where every deal's contract is going out at once (`contract.go_out`), nothing is ever
    // laid off or swapped.
    const bar = over() ? "" : h("div", { class: "actions", role: "toolbar", "aria-label": "Moves" },
      claimButton(),
      meldAction || layoff ? button("act-suggest", nothing ? "Suggest: nothing to lay yet" : "Suggest", nothing, suggest) : "",
      meldAction && sel.length ? button("act-group", "Group", false, group) : "",
      meldAction ? button("act-meld", !staged.length && !sel.length ? "Meld: select its cards" : meldAction.contract ? "Meld (go down)" : "Meld",
        (!staged.length && !sel.length) || !known.meld, meld, "primary") : "",
      layoff && !view.contract?.go_out && sel.length
        ? button("act-layoff", layoffLabel(known), target === null || !known.fits.has(target), layOff) : "",
      swapOk && !view.contract?.go_out && sel.length === 1 && known.swaps.size
        ? button("act-swap", "Swap wild", target === null || !known.swaps.has(target), swap) : "",
      legal("move_joker") ? moveJokerButton() : "",
      discardAction ? button("act-discard", sel.length === 1 || !myTurn ? "Discard" : "Discard: select one card", sel.length !== 1 || !discardAction.cards.includes(sel[0]), discard, "primary") : "",
      legal("take_back") ? button("act-take-back", "Take back", false, () => act("take_back", {}, "Took back this turn's plays.")) : "",
      legal("suspend") ? button("act-suspend", "Suspend", false, () => act("suspend", {}, "Asked to suspend.")) : "",
      legal("resume") ? button("act-resume", "Resume", false, () => act("resume", {}, "Asked to resume.")) : "",
      view.you.hand.length > 1 ? button("act-sort", `Sort by ${sortBy === "rank" ? "suit" : "rank"}`, false, () => { sortBy = sortBy === "rank" ? "suit" : "rank"; render(); }) : "",
      sel.length || staged.length || target !== null || choice
        ? button("act-clear", "Clear", false, () => { selected.clear(); staged = []; target = null; choice = null; layoffHints = []; render(); })
        : "");
    const fitting = view.table.filter((/** @type {any} */ m) => known.fits.has(m.id) || known.swaps.has(m.id));
    const fitsList = sel.length && fitting.length && !over()
      ? h("p", { class: "fits", id: "fits" }, sel.length === 1 ? `${cardName(sel[0])} fits: ` : "These fit: ",
        ...fitting.map((/** @type {any} */ m) => h("button", {
          type: "button", class: "small fit-pick", id: `fit-${m.id}`, "aria-pressed": target === m.id ? "true" : "false",
          onclick: () => { target = target === m.id ? null : m.id; render(); },
        }, `#${m.id} ${whose(m.owner)} ${readingName(m.reading)}`, known.fits.has(m.id) ? "" : " (swap a wild)")))
      : "";
    // Each group to lay, and beside it why it is no meld when the server says so; beside
    // Meld, why the melds cannot be laid as they are.
    const stagedList = staged.length
      ? h("ul", { class: "staged", id: "staged", "aria-label": "Melds to lay" }, ...staged.map((m, i) => h("li", { class: "group" + (known.groups[i] ? " bad" : "") },
        h("span", { class: "group-cards" }, `M${i + 1}: ${m.cards.map(shortName).join(" ")}`),
        known.groups[i] ? h("span", { class: "group-why", id: `group-why-${i}` }, ` not a meld: ${known.groups[i]}`) : "")))
      : "";
    const meldWhy = meldAction && !known.meld && known.why && (staged.length || sel.length >= 3)
      ? h("p", { class: "meld-why", id: "meld-why" }, `Meld: ${known.why}.`)
      : known.readings ? h("p", { class: "meld-why", id: "meld-why" }, `Meld ${known.readings.at + 1} reads ${known.readings.options.length} ways: Meld asks which.`) : "";
    const choices = choice
      ? h("div", { class: "choices", id: "choices", role: "group", "aria-labelledby": "choice-question" },
        h("p", { id: "choice-question" }, choice.question),
        ...choice.options.map((o, i) => button(`choice-${i}`, o.label, false, o.pick, "choice")))
      : "";
    const state = view.status === "finished" || view.status === "void" ? "" :
      myTurn ? h("p", { class: "your-turn" }, view.turn.phase === "draw" ? "Your turn: draw a card." : "Your turn: meld, lay off, then discard.") : "";
    return h("section", { class: "panel hand-panel", "aria-label": "Your hand" },
      h("h2", {}, "Your hand"), state, msg, choices, stagedList, meldWhy, cards, fitsList, jokerTargets(), bar);
  }

  /** `contract_7`'s joker move: the runs it may leave are the view's (`data-from`). */
  function moveJokerButton() {
    const el = button("act-move-joker", "Move joker here", target === null, moveJoker);
    el.dataset.from = legal("move_joker").meld_ids.join(" ");
    return el;
  }

  /** `contract_7`: the runs a joker of the seat's may move to, as buttons by the hand that
   * choose one (no scrolling to the table), with what to do said. */
  function jokerTargets() {
    const from = legal("move_joker")?.meld_ids || [];
    if (!from.length || over()) return "";
    const runs = view.table.filter((/** @type {any} */ m) => m.reading.kind === "run" && !(from.length === 1 && m.id === from[0]));
    if (!runs.length) return "";
    return h("p", { class: "fits", id: "joker-targets" }, "A joker of yours can move: choose the run it goes to, then \"Move joker here\". ",
      ...runs.map((/** @type {any} */ m) => h("button", {
        type: "button", class: "small fit-pick", id: `joker-to-${m.id}`, "aria-pressed": target === m.id ? "true" : "false",
        onclick: () => { target = target === m.id ? null : m.id; render(); },
      }, `#${m.id} ${whose(m.owner)} ${readingName(m.reading)}`)));
  }

  /** "May I?", counting down the time the discard stays on offer (`turn.claim_until`), and
   * "No, go on" beside it, which passes on the discard: the bots then play on at once. Drawn
   * only in the variants with claims. */
  function claimButton() {
    if (!view.claims || !hasClaims()) return "";
    const until = view.turn?.claim_until;
    const el = button("act-claim", "May I?", !legal("claim"), () => act("claims", {}, 'Asked "May I?".'), "claim");
    if (until) el.dataset.until = until;
    if (!legal("claim") && !legal("pass")) return "";
    const pass = legal("pass")
      ? button("act-pass", "No, go on", false, () => act("pass", {}, `Passed on the ${cardName(view.claims.offered || view.discard.top)}.`), "claim")
      : "";
    return h("span", { class: "claim-pair" }, el, pass);
  }

  /** The pace setting: when to be asked "May I?" (variants with claims only). */
  function paceSetting() {
    if (!hasClaims() || spectator) return "";
    const select = h("select", {
      id: "pace", onchange: (/** @type {Event} */ ev) => { keepPace(/** @type {HTMLSelectElement} */ (ev.target).value); render(); passForThem(); },
    }, ...PACES.map(([value, words]) => h("option", { value, selected: pace() === value }, words)));
    return h("label", { class: "pace", for: "pace" }, 'Ask me "May I?": ', select);
  }

  /** Whether the game's variant has "May I?" (`may_i`, `contract_7`): the view's options
   * carry the claim window only there. */
  function hasClaims() {
    return view.options && "claim_window_seconds" in view.options;
  }

  /**
   * How the last deal ended, as at a real table when the hands go face up: who went out, what
   * every hand still held and what it cost, beside the totals. Shown until the person moves on
   * ("Next deal", or a move of theirs), and while the game is over.
   */
  function dealEndPanel(asSheet = false) {
    if (!dealEnd || (dealEndSeen >= dealEnd.deal && !view.standings)) return "";
    const e = dealEnd;
    const how = e.end?.type === "went_out" ? `${capital(who(view, e.end.seat))} went out.` : "The stock ran out: nobody went out.";
    /** A seat's row: its cards left and, unless its team's row says them, what the deal cost
     * and its total. @param {any} p @param {boolean} teamed */
    const row = (p, teamed) => {
      const held = e.hands[p.seat] || [];
      return h("tr", { class: teamed ? "member" : "" },
        h("th", { scope: "row" }, who(view, p.seat) === "you" ? "You" : p.name || `seat ${p.seat + 1}`),
        h("td", { class: "held" }, held.length
          ? h("span", { class: "cards" }, ...held.map((/** @type {string} */ c) => cardElement(c, { wild: isWild(c), small: true })))
          : e.end?.type === "went_out" && e.end.seat === p.seat ? "out" : "no cards"),
        h("td", {}, teamed ? "" : String(e.scores[p.seat])),
        h("td", {}, teamed ? "" : String(e.totals[p.seat])));
    };
    // Partnerships (`push`): a team scores its hands together, once, on its own row above its
    // players' cards (docs/rules.md#push-scoring).
    const teams = [...new Set(view.players.map((/** @type {any} */ p) => p.team).filter((/** @type {any} */ t) => t !== null && t !== undefined))];
    const rows = teams.length
      ? teams.flatMap((t) => {
        const members = view.players.filter((/** @type {any} */ p) => p.team === t);
        const first = members[0].seat;
        return [h("tr", { class: "team-row" },
          h("th", { scope: "row" }, `${capital(teamName(t))} (${members.map((/** @type {any} */ p) => who(view, p.seat)).join(" and ")})`),
          h("td", {}, ""), h("td", {}, String(e.scores[first])), h("td", {}, String(e.totals[first]))),
        ...members.map((/** @type {any} */ p) => row(p, true))];
      })
      : view.players.map((/** @type {any} */ p) => row(p, false));
    const last = e.deal >= view.deals || view.standings;
    // The deal's melds: from the view while it still shows that deal's table (the game's last
    // deal), else as the page saw them before the next deal was dealt.
    const melds = view.deal === e.deal ? view.table : endTable?.deal === e.deal ? endTable.melds : [];
    const payments = view.variant === "continental"
      ? h("p", { class: "hint", id: "payments" }, "Payments: each other player pays the player who went out 1 for the deal, 2 for each joker and 1 for each deuce used as a wild in their melds, and any bonuses (out without drawing, no wild, one suit). A minus is what a player paid (rules §4).")
      : "";
    // On a phone it is a sheet over the foot of the screen, which never pushes the hand away;
    // once the next deal needs the person (their turn) it folds to its heading.
    // The person's fold or unfold holds for the deal's end they made it on.
    if (sheetDeal !== e.deal) {
      sheetDeal = e.deal;
      sheetFolded = null;
    }
    const needed = view.turn && view.turn.seat === view.you?.seat && view.deal > e.deal;
    const folded = asSheet && (sheetFolded ?? needed);
    const next = last ? "" : button("act-next-deal", `On to deal ${e.deal + 1}`, false, () => {
      dealEndSeen = e.deal;
      sheetFolded = null;
      render();
    }, "primary");
    const fold = asSheet
      ? h("button", { type: "button", id: "deal-end-fold", class: "small", "aria-expanded": folded ? "false" : "true", "aria-controls": "deal-end-body",
        onclick: () => { sheetFolded = !folded; render(); } }, folded ? "Show" : "Hide")
      : "";
    // It scrolls (beside the table, or as a sheet): a keyboard reaches it to scroll it, even
    // with no button in it (the game's last deal).
    return h("section", { class: "panel deal-end" + (asSheet ? " sheet" : ""), id: "deal-end", "aria-labelledby": "deal-end-title", tabindex: "0" },
      h("div", { class: "deal-end-head" },
        h("h2", { id: "deal-end-title" }, `Deal ${e.deal} of ${view.deals} is over`),
        h("p", { class: "went-out" }, how), next, fold),
      h("div", { class: "deal-end-body", id: "deal-end-body", hidden: folded }, dealEndBody(e, melds, payments, rows)));
  }

  /** The deal's end in full: its melds, what each hand held and cost, the totals.
   * @param {any} e @param {any[]} melds @param {any} payments @param {any[]} rows */
  function dealEndBody(e, melds, payments, rows) {
    return h("div", {},
      melds.length ? h("ul", { class: "end-melds", id: "end-melds", "aria-label": "The melds on the table at the end" },
        ...melds.map((/** @type {any} */ m) => h("li", {}, h("span", { class: "reading" }, `${capital(who(view, m.owner))}: ${readingName(m.reading)}`),
          h("span", { class: "cards" }, ...m.reading.slots.map((/** @type {any} */ x) => cardElement(x.card, { wild: !x.natural, represents: x.represents, small: true })))))) : "",
      payments,
      h("table", { class: "scores" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "player"), h("th", { scope: "col" }, "cards left"),
          h("th", { scope: "col" }, view.variant === "continental" ? "paid or won" : "this deal"), h("th", { scope: "col" }, "total"))),
        h("tbody", {}, ...rows)));
  }

  function scores() {
    const out = h("section", { class: "panel scores-panel", "aria-label": "Scores" }, h("h2", {}, "Scores"));
    if (view.scores.length) {
      const table = h("table", { class: "scores" }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "deal"),
        ...view.players.map((/** @type {any} */ p) => h("th", { scope: "col" }, p.name || "—")))));
      const body = h("tbody");
      view.scores.forEach((/** @type {number[]} */ row, /** @type {number} */ i) => body.append(h("tr", {}, h("th", { scope: "row" }, String(i + 1)), ...row.map((x) => h("td", {}, String(x))))));
      body.append(h("tr", { class: "total" }, h("th", { scope: "row" }, "total"), ...view.players.map((/** @type {any} */ p) => h("td", {}, String(p.total)))));
      table.append(body);
      // Partnerships (`push`): each seat's total is its team's; say it once per team.
      const teams = [...new Set(view.players.map((/** @type {any} */ p) => p.team).filter((/** @type {any} */ t) => t !== null && t !== undefined))];
      if (teams.length) {
        out.append(h("ul", { class: "team-totals", id: "team-totals" }, ...teams.map((t) => {
          const members = view.players.filter((/** @type {any} */ p) => p.team === t);
          return h("li", {}, `${capital(teamName(t))} (${members.map((/** @type {any} */ p) => who(view, p.seat)).join(" and ")}): ${members[0].total} points`);
        })));
      }
      out.append(table);
    } else if (!view.standings) {
      out.append(h("p", { class: "hint" }, "No deal scored yet."));
    }
    return out;
  }

  /**
   * The game's end, first on the screen at any size: the seat's place, every player's total,
   * the rating change of a rated game, "Play again" and "Replay".
   */
  function gameOverPanel() {
    if (!over()) return "";
    const standings = view.standings || [];
    const mine = standings.find((/** @type {any} */ x) => x.seat === view.you?.seat);
    const title = view.status === "void" ? "The game was void: nobody is placed"
      : mine ? `You finished ${ordinal(mine.place)} of ${standings.length}` : "The game is over";
    const back = spectator ? null : wayBack(view.id);
    const actions = h("p", { class: "row" },
      back ? h("a", { href: back.href, id: "way-back", class: "button primary" }, `Back to ${back.name}`)
        : view.status === "finished" && !spectator ? button("act-rematch", view.rematch ? "Join the rematch" : "Play again", false, playAgain, "primary") : "",
      view.seed ? h("a", { href: `#/replay/${view.id}`, id: "replay-link", class: "button" }, "Replay this game") : "");
    if (!overSaid) {
      overSaid = true;
      announce(`${title}.`);
    }
    // The page's own board (results.js) counts it, once.
    if (!spectator) keepResult(view);
    return h("section", { class: "panel game-over", id: "game-over", "aria-labelledby": "game-over-title" },
      h("h2", { id: "game-over-title" }, title),
      standings.length ? h("ol", { class: "standings", id: "standings" }, ...standings.map((/** @type {any} */ x) =>
        h("li", { class: x.seat === view.you?.seat ? "me" : "" }, `${x.place}. ${capital(who(view, x.seat))}: ${x.total} points${x.left ? " (left)" : ""}`))) : "",
      ratingChanges(),
      actions,
      view.seed ? h("p", { class: "hint seed" }, "Seed revealed: ", h("code", {}, view.seed)) : "");
  }

  /** A rated game's effect on each player's rating, once the server has rated it. */
  function ratingChanges() {
    if (!view.rated) return "";
    const changed = view.players.filter((/** @type {any} */ p) => p.rating_change);
    if (!changed.length) {
      return view.status === "finished" ? h("p", { class: "hint", id: "rating-changes" }, "A rated game: the ratings are being updated.") : "";
    }
    return h("ul", { class: "rating-change", id: "rating-changes", "aria-label": "Rating changes" }, ...changed.map((/** @type {any} */ p) => {
      const { before, after } = p.rating_change;
      const delta = after.display - before.display;
      const sign = delta > 0 ? "+" : delta < 0 ? "−" : "±";
      return h("li", {}, `${capital(who(view, p.seat))}: ${ratingText(before)} `, h("span", { "aria-hidden": "true" }, "→"),
        h("span", { class: "visually-hidden" }, "to"), ` ${ratingText(after)} `,
        h("span", { class: delta > 0 ? "up" : delta < 0 ? "down" : "" }, `(${sign}${thousands.format(Math.abs(delta))})`));
    }));
  }

  function logPanel() {
    const list = h("ol", { class: "log", id: "log", reversed: true });
    for (const entry of log.slice(-150).reverse()) list.append(h("li", { value: String(entry.seq) }, entry.text));
    // Scrolls on its own: a keyboard reaches it too.
    return h("aside", { class: "panel log-panel", "aria-label": "Event log", tabindex: "0" }, h("h2", {}, "Event log"), list);
  }

  /** Asks for the rematch (made by the first seat to ask) and takes this seat in it. */
  async function playAgain() {
    if (busy) return;
    busy = true;
    try {
      const next = await call("POST", `/v1/games/${id}/rematch`, { token });
      keepSeatToken(next.id, next.token);
      location.hash = `#/game/${next.id}`;
    } catch (e) {
      busy = false;
      say(/** @type {Error} */ (e).message, "problem");
    }
  }

  /** The turn's deadline and the claim window, counting down. */
  function tick() {
    const claim = /** @type {HTMLElement | null} */ (root.querySelector("#act-claim[data-until]"));
    if (claim) {
      const ms = Date.parse(/** @type {string} */ (claim.dataset.until)) - Date.now();
      claim.textContent = ms > 0 && !claim.hasAttribute("disabled") ? `May I? ${Math.ceil(ms / 1000)} s` : "May I?";
    }
    const el = root.querySelector("#deadline");
    if (!el) return;
    const left = Math.max(0, Math.round((Date.parse(/** @type {string} */ (el.getAttribute("data-deadline"))) - Date.now()) / 1000));
    el.textContent = `${left} s left`;
    el.setAttribute("aria-label", `${left} seconds left in this turn`);
    el.classList.toggle("urgent", left <= 10);
  }
  const ticker = setInterval(tick, 250);
  phone.addEventListener("change", render);

  const stream = follow(id, token, lastSeq, (m) => {
    if (m.id <= lastSeq) return;
    lastSeq = m.id;
    log.push({ seq: m.id, text: describe(m.data, view) });
    if (m.event === "deal_ended") dealEnd = m.data;
    notice(m.data);
    const seat = m.data?.seat;
    // Other seats' moves are read out; one's own the player has just made.
    if (seat !== undefined && seat !== view.you?.seat && m.event !== "turn" && m.event !== "dealt") {
      announce(describe(m.data, view));
    }
    // A spectator moves along to the rematch; a player chooses to play again.
    if (m.event === "rematch") {
      announce(describe(m.data, view));
      if (spectator) location.hash = `#/watch/${m.data.id}`;
    }
    refresh();
  }, (state) => {
    // Back after a break, or at the end of the game: what happened meanwhile (a rematch, the
    // standings) is read again rather than guessed from the events.
    if ((state === "live" && live === "reconnecting") || state === "ended") refresh();
    live = state;
    render();
  });

  setView(view);
  return {
    close() {
      closed = true;
      stream.close();
      clearInterval(ticker);
      phone.removeEventListener("change", render);
    },
  };
}
