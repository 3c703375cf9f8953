// @ts-check
// Quick play: a matchmaking ticket that waits for people asking for the same game (or, past the
// server's wait, bots), then the table with the seat token the ticket brings, as after
// "Sit down". The ticket's id is what lets anyone read or cancel it, so it stays in this tab's
// storage, never in the address.

import { call } from "./api.js";
import { h, announce, mainArea } from "./dom.js";
import { keepSeatToken, ratingText } from "./table.js";
import { variantName } from "./cards.js";
import { serverKey } from "./watch.js";

const TICKET_KEY = "continental.ticket";

/** How often the waiting screen asks for its ticket when the ticket's stream is not there. */
const POLL_MS = 1000;

/** How often the waiting screen reads its ticket again for how many wait for the same game:
 * the ticket's stream speaks only of its own changes. */
const COUNT_MS = 5000;

/** How often a screen reader hears that the wait goes on. */
const SAY_EVERY_S = 30;

/** The table sizes a variant seats, and the ones offered checked: 2 to 4 where it can.
 * @param {{min_players: number, max_players: number}} ruleset
 * @returns {{size: number, usual: boolean}[]} */
export function tableSizes(ruleset) {
  const out = [];
  for (let size = ruleset.min_players; size <= ruleset.max_players; size++) {
    out.push({ size, usual: size <= 4 || ruleset.min_players > 4 });
  }
  return out;
}

/** "2 to 4 players", "2, 3 or 5 players", "4 players". @param {number[]} sizes */
export function sizesWords(sizes) {
  const sorted = [...sizes].sort((a, b) => a - b);
  if (sorted.length === 1) return `${sorted[0]} players`;
  const run = sorted.every((n, i) => i === 0 || n === sorted[i - 1] + 1);
  if (run) return `${sorted[0]} to ${sorted[sorted.length - 1]} players`;
  return `${sorted.slice(0, -1).join(", ")} or ${sorted[sorted.length - 1]} players`;
}

/** A bot level with its rating, as the lobby shows it ("normal · 1,387"), the dot read as
 * "rating". @param {{level: string, rating: {display: number}}} bot */
export function levelWithRating(bot) {
  return h("span", { class: "level-rating" }, bot.level, h("span", { "aria-hidden": "true" }, " · "),
    h("span", { class: "visually-hidden" }, ", rating "), ratingText(bot.rating));
}

/** Who a waiting ticket may meet, in words: "… bots (normal · 1,387) fill the empty seats".
 * @param {{level: string, rating: {display: number}, after_seconds: number} | null | undefined} bots
 * @returns {(string | Node)[]} */
export function botsWords(bots) {
  if (!bots) return ["You sit with whoever asks for the same game: this server fills no seat with bots, so the wait is for people."];
  return [`You sit with whoever asks for the same game; if nobody comes within ${bots.after_seconds} s, bots (`,
    levelWithRating(bots), ") fill the empty seats."];
}

/** How many others wait for the same game, in words, from the ticket's `waiting`.
 * @param {number | null | undefined} others @returns {string} */
export function waitingWords(others) {
  if (others === null || others === undefined) return "";
  if (others === 0) return "Nobody else is waiting for this game right now.";
  const many = others >= 1000 ? "1,000 or more" : String(others);
  return others === 1 ? "1 other person is waiting for this game." : `${many} others are waiting for this game.`;
}

/**
 * Asks for a table (`POST /v1/matchmaking/tickets`) and opens the waiting screen. Throws the
 * service's refusal for the lobby to show.
 * @param {any} body the ticket's request @param {string | undefined} key a server key
 */
export async function quickPlay(body, key) {
  const answer = await call("POST", "/v1/matchmaking/tickets", { body, key, idempotent: true });
  sessionStorage.setItem(TICKET_KEY, JSON.stringify({ id: answer.ticket.id, body, keyed: Boolean(key) }));
  // "Try again" asks from the waiting screen itself, whose address does not change.
  if (location.hash === "#/wait") window.dispatchEvent(new HashChangeEvent("hashchange"));
  else location.hash = "#/wait";
}

/** The ticket this tab waits on. @returns {{id: string, body: any, keyed: boolean} | null} */
export function waiting() {
  try {
    return JSON.parse(sessionStorage.getItem(TICKET_KEY) || "null");
  } catch {
    return null;
  }
}

/** The waiting screen: the seconds waited, Cancel, and the table once the ticket is matched. */
export async function openWait() {
  const held = waiting();
  const main = mainArea();
  if (!held) {
    main.append(h("p", { class: "hint" }, "This tab is not waiting for a table."),
      h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
    return { close() {} };
  }
  const path = `/v1/matchmaking/tickets/${held.id}`;
  let closed = false;
  let done = false;
  let waitedAt = { seconds: 0, at: Date.now() };
  let lastSaid = 0;
  /** @type {EventSource | null} */
  let source = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let polling = null;

  const title = h("h1", { id: "wait-title" }, "Looking for a table");
  const about = h("p", { class: "about-wait" }, `${variantName(held.body.variant)}, ${sizesWords(held.body.sizes)}`);
  // The seconds are shown, not read out each second: the status below says what changes.
  const waited = h("p", { class: "waited", id: "waited", role: "timer" }, "Waited 0 s");
  const status = h("p", { class: "hint", id: "wait-status", role: "status" });
  const problem = h("p", { class: "problem", role: "alert", id: "wait-problem" });
  const cancel = h("button", { type: "button", id: "cancel-quick", class: "danger", onclick: cancelTicket }, "Cancel");
  // Shown once the ticket says bots may fill its table: on a server that seats none, there is
  // nothing to ask for.
  const botsNow = h("button", { type: "button", id: "bots-now", class: "primary", hidden: true, onclick: playWithBotsNow },
    "Play with bots now");
  const actions = h("div", { class: "row" }, botsNow, cancel);
  const count = h("p", { class: "hint", id: "wait-count" });
  const bots = h("p", { class: "hint", id: "wait-bots" },
    "You sit with whoever asks for the same game; when nobody comes for a while, bots fill the empty seats.");
  main.append(h("section", { class: "lobby waiting", "aria-labelledby": "wait-title" },
    title, about, waited, count, bots, status, problem, actions));
  /** Whether the bots to come are said yet: the server chooses them once, for the ticket. */
  let botsSaid = false;

  /** @param {string} text */
  function say(text) {
    // Set after a tick: a region filled as it is added is not always read.
    setTimeout(() => { if (!closed) status.textContent = text; }, 50);
  }

  function tick() {
    const seconds = Math.max(0, Math.floor(waitedAt.seconds + (Date.now() - waitedAt.at) / 1000));
    waited.textContent = `Waited ${seconds} s`;
    if (!done && seconds >= lastSaid + SAY_EVERY_S) {
      lastSaid = seconds - (seconds % SAY_EVERY_S);
      say(`Still looking: ${lastSaid} seconds so far.`);
    }
  }
  const ticker = setInterval(tick, 250);
  const counting = setInterval(() => {
    if (!closed && !done) call("GET", path).then(update, () => {});
  }, COUNT_MS);

  /** What the ticket says now. @param {any} ticket */
  function update(ticket) {
    if (closed || done) return;
    problem.textContent = "";
    if (ticket.status === "waiting") {
      if (!botsSaid) {
        botsSaid = true;
        bots.replaceChildren(...botsWords(ticket.bots));
        botsNow.hidden = !ticket.bots;
      }
      count.textContent = waitingWords(ticket.waiting);
      waitedAt = { seconds: Number(ticket.waited_seconds) || 0, at: Date.now() };
      tick();
      return;
    }
    finish();
    if (ticket.status === "matched" && ticket.match) {
      keepSeatToken(ticket.match.game_id, ticket.match.token);
      sessionStorage.removeItem(TICKET_KEY);
      say("Found a table: opening it.");
      // The table takes the waiting screen's place: "back" leads to the lobby, not to a wait over.
      location.replace(`#/game/${ticket.match.game_id}`);
    } else if (ticket.status === "cancelled") {
      sessionStorage.removeItem(TICKET_KEY);
      announce("Quick play cancelled.");
      location.hash = "#/";
    } else {
      sessionStorage.removeItem(TICKET_KEY);
      title.textContent = "Nobody came in time";
      say("Nobody came in time: the ticket expired.");
      cancel.remove();
      const again = h("button", { type: "button", class: "primary", id: "quick-again", onclick: tryAgain }, "Try again");
      actions.append(again, h("a", { href: "#/", class: "button" }, "Back to the lobby"));
      again.focus();
    }
  }

  /** Stops following the ticket: it is over, or the screen closes. */
  function finish() {
    done = true;
    clearInterval(ticker);
    clearInterval(counting);
    source?.close();
    if (polling) clearTimeout(polling);
  }

  /** The ticket's stream; without it (an old browser, a proxy that cuts it), asking each second. */
  function listen() {
    if (typeof EventSource === "undefined") return poll();
    source = new EventSource(`${path}/events`);
    source.addEventListener("ticket", (ev) => {
      try {
        update(JSON.parse(/** @type {MessageEvent} */ (ev).data));
      } catch {
        // A message the page cannot read: the poll reads the ticket itself.
      }
    });
    source.onerror = () => {
      source?.close();
      source = null;
      if (!closed && !done) poll();
    };
  }

  async function poll() {
    polling = null;
    if (closed || done) return;
    try {
      update(await call("GET", path));
    } catch (e) {
      const err = /** @type {any} */ (e);
      // Cancelled elsewhere (another tab): a cancelled ticket reads 410.
      if (err.code === "ticket_cancelled") return update({ status: "cancelled" });
      if (err.status === 404) {
        finish();
        sessionStorage.removeItem(TICKET_KEY);
        problem.textContent = "The server knows no such ticket any more.";
        cancel.remove();
        actions.append(h("a", { href: "#/", class: "button" }, "Back to the lobby"));
        return;
      }
      problem.textContent = `${err.message}. Asking again…`;
    }
    if (!closed && !done) polling = setTimeout(poll, POLL_MS);
  }

  async function cancelTicket() {
    cancel.setAttribute("disabled", "");
    try {
      await call("DELETE", path);
      update({ status: "cancelled" });
    } catch (e) {
      const err = /** @type {any} */ (e);
      cancel.removeAttribute("disabled");
      // Matched before the cancel arrived: the table is there, so the person goes to it.
      if (err.code === "ticket_matched") {
        update(await call("GET", path).catch(() => ({ status: "waiting" })));
        return;
      }
      problem.textContent = err.message;
    }
  }

  /** "Play with bots now": the server seats the ticket at once with the people it finds and
   * bots, as when its bots' wait is reached, and answers the ticket matched. */
  async function playWithBotsNow() {
    botsNow.setAttribute("disabled", "");
    say("Asking for a table with bots now…");
    try {
      update(await call("POST", `${path}/bots`));
    } catch (e) {
      const err = /** @type {any} */ (e);
      botsNow.removeAttribute("disabled");
      // Seated by the matching pass meanwhile: the table is there.
      if (err.code === "ticket_matched" || err.code === "ticket_expired") {
        update(await call("GET", path).catch(() => ({ status: "waiting" })));
        return;
      }
      if (err.code === "ticket_cancelled") return update({ status: "cancelled" });
      problem.textContent = err.message;
    }
  }

  async function tryAgain() {
    try {
      await quickPlay(held?.body, held?.keyed ? serverKey() || undefined : undefined);
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
  }

  say(`Looking for a table of ${sizesWords(held.body.sizes)}.`);
  try {
    update(await call("GET", path));
  } catch (e) {
    if (/** @type {any} */ (e).status === 404) sessionStorage.removeItem(TICKET_KEY);
    finish();
    throw e;
  }
  if (!done) listen();
  return {
    close() {
      closed = true;
      finish();
    },
  };
}
