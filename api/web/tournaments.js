// @ts-check
// A studio's tournaments: the events lobby (the studio's tournaments, listed and entered with a
// server key, as the watch list is), and an entry as its player follows it with the entry's id
// alone (docs/tournaments.md): the countdown to the start, each round's table, the standings
// between rounds with each deal beside the same cards at the other tables, the final standings.
// The entry's id is its holder's capability: kept in this browser (localStorage) and in the
// address (#/event/{tournament}/{entry}), so the player comes back to it.

import { call } from "./api.js";
import { h, announce, mainArea } from "./dom.js";
import { keepSeatToken, keepWayBack } from "./table.js";
import { variantName } from "./cards.js";
import { serverKey, setServerKey } from "./watch.js";

const ENTRIES_KEY = "continental.entries";

/** How often an entry's screen reads the entry again: an entry has no stream. */
const POLL_MS = 1500;

/** @param {number} n */
const ordinal = (n) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th"}`;

/** "2 tables", "1 table". @param {number} n @param {string} one @param {string} [many] */
const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A score as a person reads it: matchpoints come in halves. @param {number} n */
const score = (n) => (Number.isInteger(n) ? String(n) : `${Math.floor(n) || ""}½`);

/** The entries this browser holds, newest first.
 * @returns {{tournament: string, entry: string, name: string, player: string}[]} */
export function heldEntries() {
  try {
    const held = JSON.parse(localStorage.getItem(ENTRIES_KEY) || "[]");
    return Array.isArray(held) ? held : [];
  } catch {
    return [];
  }
}

/** Keeps an entry in this browser. @param {any} entry the entry as the service shows it */
function keepEntry(entry) {
  const rest = heldEntries().filter((e) => e.entry !== entry.id);
  const held = { tournament: entry.tournament_id, entry: entry.id, name: entry.tournament_name, player: entry.name };
  localStorage.setItem(ENTRIES_KEY, JSON.stringify([held, ...rest].slice(0, 50)));
}

/** Forgets an entry (withdrawn, or no longer found). @param {string} entry */
function forgetEntry(entry) {
  localStorage.setItem(ENTRIES_KEY, JSON.stringify(heldEntries().filter((e) => e.entry !== entry)));
}

/** How long until `at`, in words: "1 h 05 min", "2 min 07 s", "9 s". @param {number} ms */
export function untilWords(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  if (s >= 86_400) return count(Math.floor(s / 86_400), "day");
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${s} s`;
}

/** A time of day (and day, when not today) in the reader's own zone. @param {string} at */
function when(at) {
  const d = new Date(at);
  const today = d.toDateString() === new Date().toDateString();
  return today ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })
    : d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

/** The entries this browser holds, to go back to. */
function heldList() {
  const held = heldEntries();
  if (!held.length) return "";
  return h("section", { class: "resume", id: "held-entries", "aria-labelledby": "held-title" },
    h("h2", { id: "held-title" }, "Your events in this browser"),
    h("ul", {}, ...held.map((e) => h("li", {},
      h("a", { href: `#/event/${e.tournament}/${e.entry}` }, `${e.name}, as ${e.player}`)))));
}

/** The events lobby: the studio's tournaments with a server key, each open one entered here. */
export async function openEvents() {
  const main = mainArea();
  const input = h("input", { id: "events-key", type: "password", autocomplete: "off", value: serverKey() || "" });
  const problem = h("p", { class: "problem", role: "alert", id: "events-problem" });
  const list = h("div", { id: "events" });
  /** Seconds to each start, counting down. @type {{el: HTMLElement, at: number}[]} */
  let countdowns = [];

  async function load() {
    problem.textContent = "";
    try {
      const page = await call("GET", "/v1/tournaments?limit=50", { key: serverKey() || undefined });
      countdowns = [];
      const body = h("tbody");
      for (const t of page.tournaments) body.append(row(t));
      if (!page.tournaments.length) body.append(h("tr", {}, h("td", { colspan: 5 }, "No events yet.")));
      list.replaceChildren(h("table", { class: "games events" },
        h("caption", {}, "The studio's events, newest first"),
        h("thead", {}, h("tr", {}, ...["Event", "Game", "Start", "Entrants", "Registration"].map((t) => h("th", { scope: "col" }, t)))),
        body));
      tick();
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
  }

  /** @param {any} t */
  function row(t) {
    const starts = h("span", { class: "starts" });
    if (t.status === "open") countdowns.push({ el: starts, at: Date.parse(t.starts_at) });
    else starts.textContent = t.status === "running" ? `round ${t.round} of ${t.rounds} playing` : t.status;
    const form = t.status === "open" && t.entrants < t.max_entrants ? registration(t) : "";
    return h("tr", { "data-tournament": t.id },
      h("td", {}, h("strong", {}, t.name)),
      h("td", {}, `${variantName(t.variant)}, ${count(t.rounds, "round")} at tables of ${t.table_size}`),
      h("td", {}, "Starts ", h("time", { datetime: t.starts_at }, when(t.starts_at)), " ", starts),
      h("td", {}, `${t.entrants} of ${t.max_entrants} entered`),
      h("td", {}, form || (t.status === "open" ? "Full" : "")));
  }

  /** "Register" for tournament `t`: the player's id at the studio and the name the tables
   * show, entered with the server key. @param {any} t */
  function registration(t) {
    const id = (/** @type {string} */ what) => `${what}-${t.id.slice(0, 8)}`;
    const player = h("input", { id: id("reg-player"), autocomplete: "off", maxlength: 128, required: true });
    const name = h("input", { id: id("reg-name"), autocomplete: "nickname", maxlength: 40, required: true });
    const said = h("p", { class: "problem", role: "alert" });
    const button = h("button", { type: "submit", class: "primary register", "aria-label": `Register for ${t.name}` }, "Register");
    const form = h("form", { class: "register-form", "aria-label": `Register for ${t.name}` },
      h("div", { class: "field" }, h("label", { for: id("reg-player") }, "Player id at the studio"), player),
      h("div", { class: "field" }, h("label", { for: id("reg-name") }, "Name at the tables"), name),
      said, button);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      said.textContent = "";
      const body = { player: /** @type {HTMLInputElement} */ (player).value.trim(), name: /** @type {HTMLInputElement} */ (name).value.trim() };
      if (!body.player || !body.name) {
        said.textContent = "Type the player's id and the name the other players see.";
        return;
      }
      try {
        button.setAttribute("disabled", "");
        const entry = await call("POST", `/v1/tournaments/${t.id}/entries`, { body, key: serverKey() || undefined, idempotent: true });
        keepEntry(entry);
        location.hash = `#/event/${t.id}/${entry.id}`;
      } catch (e) {
        said.textContent = /** @type {Error} */ (e).message;
        button.removeAttribute("disabled");
      }
    });
    return form;
  }

  function tick() {
    for (const c of countdowns) {
      const left = c.at - Date.now();
      c.el.textContent = left > 0 ? `(in ${untilWords(left)})` : "(starting)";
    }
  }
  const ticker = setInterval(tick, 1000);

  const form = h("form", { class: "lobby", "aria-labelledby": "events-title" },
    h("h1", { id: "events-title" }, "Events"),
    h("p", { class: "hint" }, "A studio's tournaments: rounds that start at their time, every table a game, the standings after each round. ",
      "The studio lists and enters them with its server key; a player follows their entry with its link alone."),
    h("div", { class: "field" }, h("label", { for: "events-key" }, "Server key (X-Api-Key), kept in this page's memory only"), input),
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary", id: "events-list" }, "List events")),
    problem);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setServerKey(/** @type {HTMLInputElement} */ (input).value.trim());
    load();
  });
  main.append(form, heldList(), list);
  if (serverKey()) load();
  return { close() { clearInterval(ticker); } };
}

/**
 * An entry as its player follows it, with the entry's id alone: before the start the countdown;
 * each round the table to go to; between rounds and at the end the standings, and the
 * entrant's deals beside the same seat's at the other tables.
 * @param {string} tournament @param {string} entryId
 */
export async function openEntry(tournament, entryId) {
  const path = `/v1/tournaments/${tournament}/entries/${entryId}`;
  const main = mainArea();
  let entry;
  try {
    entry = await call("GET", path);
  } catch (e) {
    if (/** @type {any} */ (e).status === 404) forgetEntry(entryId);
    throw e;
  }
  keepEntry(entry);
  let closed = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let polling = null;
  /** The rounds the standings on screen count, and whether the entrant's table is over. */
  let shownRounds = -1;
  /** @type {string | null} */
  let tableOver = null;
  /** What the status line last said, to say a change once. */
  let lastSaid = "";

  const title = h("h1", { id: "event-title" }, entry.tournament_name);
  const about = h("p", { class: "hint", id: "event-about" });
  const status = h("p", { class: "event-status", id: "event-status" });
  const clock = h("p", { class: "waited", id: "countdown", role: "timer", hidden: true });
  const table = h("div", { id: "event-table" });
  const problem = h("p", { class: "problem", role: "alert", id: "event-problem" });
  const withdraw = h("button", { type: "button", class: "danger", id: "withdraw", hidden: true, onclick: withdrawEntry }, "Withdraw");
  const standings = h("section", { class: "panel event-standings", id: "event-standings", "aria-labelledby": "standings-title", hidden: true });
  const deals = h("section", { class: "panel event-deals", id: "event-deals", "aria-labelledby": "deals-title", hidden: true });
  // The address is the entry: the way back to it from another browser too.
  const keep = h("p", { class: "hint", id: "event-keep" },
    "This page's address is your entry: keep it to come back from any browser. Whoever holds it sees your seat, so share it with no one.");
  main.append(h("section", { class: "lobby event", "aria-labelledby": "event-title" },
    title, about, status, clock, table, problem, h("div", { class: "row" }, withdraw), keep), standings, deals);

  /** @param {string} text */
  function say(text) {
    status.textContent = text;
    if (text !== lastSaid) {
      if (lastSaid) announce(text);
      lastSaid = text;
    }
  }

  function tick() {
    const left = Date.parse(entry.starts_at) - Date.now();
    clock.textContent = left > 0 ? `Starts in ${untilWords(left)}` : "Starting now";
  }
  const ticker = setInterval(tick, 1000);

  async function refresh() {
    try {
      entry = await call("GET", path);
      problem.textContent = "";
      await draw();
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
    if (!closed && entry.tournament_status !== "finished" && entry.tournament_status !== "cancelled" && entry.status !== "withdrawn") {
      polling = setTimeout(refresh, POLL_MS);
    }
  }

  async function draw() {
    const s = entry.tournament_status;
    about.textContent = `${variantName(entry.variant)}, ${count(entry.rounds, "round")}, the first at ${when(entry.starts_at)}. You play as ${entry.name} (${entry.player}).`;
    const open = s === "open" && entry.status === "entered";
    clock.hidden = !open;
    withdraw.hidden = !open;
    if (entry.status === "withdrawn") {
      say("You withdrew from this event.");
      table.replaceChildren();
    } else if (s === "cancelled") {
      say("The studio cancelled this event.");
      table.replaceChildren();
    } else if (open) {
      say("You are registered. Your table opens here when the event starts.");
      tick();
      table.replaceChildren();
    } else if (s === "running") {
      await drawTable();
    } else if (s === "finished") {
      say(`The event is over: ${count(entry.rounds, "round")} played.`);
      table.replaceChildren();
    }
    await drawStandings();
  }

  /** The entrant's table in the round being played, or why there is none to go to. */
  async function drawTable() {
    const t = entry.table;
    const round = `Round ${entry.round} of ${entry.rounds}`;
    if (!t) {
      say(`${round}: your table is being set.`);
      table.replaceChildren();
      return;
    }
    if (t.token_replaced || !t.token) {
      say(`${round}: the studio has given your seat at table ${t.table + 1} to someone else.`);
      table.replaceChildren();
      return;
    }
    keepSeatToken(t.game_id, t.token);
    keepWayBack(t.game_id, `#/event/${tournament}/${entryId}`, entry.tournament_name);
    // A table whose game is over waits for the round's other tables.
    if (tableOver !== t.game_id) {
      const view = await call("GET", `/v1/games/${t.game_id}`, { token: t.token }).catch(() => null);
      if (view && (view.status === "finished" || view.status === "void")) tableOver = t.game_id;
    }
    if (tableOver === t.game_id) {
      say(`${round}: your table is done. The standings come once every table of the round is over.`);
      table.replaceChildren(h("p", {}, h("a", { href: `#/game/${t.game_id}`, class: "button", id: "see-table" }, "See your table")));
      return;
    }
    say(`${round} is being played: you sit at table ${t.table + 1}, seat ${t.seat + 1}.`);
    table.replaceChildren(h("p", { class: "row" },
      h("a", { href: `#/game/${t.game_id}`, class: "button primary", id: "go-table" }, `Go to your table for round ${entry.round}`)));
  }

  /** The standings after the rounds that are over, and the entrant's deals, read when a round
   * more is counted. */
  async function drawStandings() {
    if (entry.status !== "entered" || entry.tournament_status === "open") return;
    const page = await call("GET", `${path}/standings?limit=200`);
    if (page.rounds === shownRounds) return;
    if (!page.rounds) {
      standings.hidden = true;
      deals.hidden = true;
      shownRounds = 0;
      return;
    }
    // Every round counted: the tournament is over (the last round's count finishes it).
    const final = page.rounds === entry.rounds;
    const duplicate = page.format === "duplicate";
    // The deals come with the standings they count, on screen at once.
    const list = await dealsList(duplicate);
    // Penalty points (fewer is better), or in `continental` payments (more is better).
    const penalty = await penaltyPoints(entry.variant);
    const unit = (/** @type {number} */ n) => (duplicate ? (n === 1 ? "matchpoint" : "matchpoints") : n === 1 ? "point" : "points");
    const me = page.player;
    const heading = final ? "Final standings" : `Standings after round ${page.rounds} of ${entry.rounds}`;
    const place = me
      ? `${final ? "You finished" : "You are"} ${ordinal(me.rank)} of ${page.entrants} with ${score(me.score)} ${unit(me.score)}.`
      : "";
    const rows = page.standings.map((/** @type {any} */ s) => h("tr", { class: s.player === entry.player ? "me" : "" },
      h("td", {}, String(s.rank)), h("th", { scope: "row" }, s.player === entry.player ? `${s.name} (you)` : s.name), h("td", {}, score(s.score))));
    standings.replaceChildren(
      h("h2", { id: "standings-title" }, heading),
      h("p", { class: "event-place", id: "event-place" }, place),
      h("p", { class: "hint" }, duplicate
        ? `Every table of a round holds the same cards: each deal is scored against the same seat at the other tables, 1 matchpoint for each that ${penalty ? "scored more penalty points" : "was paid less"}, ½ for each that scored the same. More is better.`
        : penalty ? "The penalty points of every deal added up: fewer is better." : "What every deal paid added up: more is better."),
      h("table", { class: "games standings-table", id: "standings-table" },
        h("caption", { class: "visually-hidden" }, heading),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Place"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, duplicate ? "Matchpoints" : "Points"))),
        h("tbody", {}, ...rows)),
      page.next_cursor ? h("p", { class: "hint" }, `The first ${page.standings.length} of ${page.entrants}.`) : "");
    standings.hidden = false;
    if (list) deals.replaceChildren(h("h2", { id: "deals-title" }, "Your deals beside the other tables"), ...list);
    deals.hidden = !list;
    shownRounds = page.rounds;
    announce(`${heading}. ${place}`);
  }

  /** The entrant's deals, each beside the same seat's at the round's other tables: the last
   * round first, none when no deal is counted. @param {boolean} duplicate */
  async function dealsList(duplicate) {
    const [{ deals: played }, penalty] = await Promise.all([call("GET", `${path}/deals`), penaltyPoints(entry.variant)]);
    if (!played.length) return null;
    const points = (/** @type {number} */ n) => `${n} ${Math.abs(n) === 1 ? "point" : "points"}`;
    const items = played.map((/** @type {any} */ d) => {
      const head = `Deal ${d.deal} (table ${d.table + 1}, seat ${d.seat + 1}): `;
      // Where a deal scores penalty points, 0 is the one who went out.
      const mine = penalty && d.score === 0 ? "you went out" : `you scored ${points(d.score)}`;
      if (!duplicate) return h("li", {}, head, mine, ".");
      const others = d.others;
      if (!others.length) return h("li", {}, head, mine, "; no other table played these cards.");
      const out = others.filter((/** @type {number} */ o) => o === 0).length;
      const more = others.filter((/** @type {number} */ o) => o > d.score).length;
      const same = others.filter((/** @type {number} */ o) => o === d.score).length;
      const fewer = others.length - more - same;
      const went = !penalty ? "" : out === 0 ? " this hand did not go out" : out === 1 ? " this hand went out once" : ` this hand went out ${out} times`;
      let said;
      if (others.length === 1) {
        const o = others[0];
        said = `At the other table${went}: ${o === d.score ? "the same score as yours" : `${points(o)}, ${o > d.score ? "more" : "fewer"} than yours`}.`;
      } else {
        const beside = [more ? `${more} scored more than you` : "", same ? `${same} the same` : "", fewer ? `${fewer} fewer` : ""].filter(Boolean).join(", ");
        said = `At the other ${others.length} tables${went}: ${beside}. Their scores: ${others.join(", ")}.`;
      }
      return h("li", { class: "deal-compare", "data-round": d.round }, h("strong", {}, head, mine), h("br"), said);
    });
    const rounds = [...new Set(played.map((/** @type {any} */ d) => d.round))].sort((a, b) => b - a);
    return rounds.map((r) => h("section", { "aria-labelledby": `deals-round-${r}` },
      h("h3", { id: `deals-round-${r}` }, `Round ${r}`),
      h("ul", { class: "deal-list" }, ...items.filter((li) => li.dataset.round === String(r)))));
  }

  async function withdrawEntry() {
    try {
      await call("DELETE", path);
      forgetEntry(entryId);
      await refresh();
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
  }

  await draw();
  if (entry.tournament_status !== "finished" && entry.tournament_status !== "cancelled" && entry.status !== "withdrawn") {
    polling = setTimeout(refresh, POLL_MS);
  }
  return {
    close() {
      closed = true;
      clearInterval(ticker);
      if (polling) clearTimeout(polling);
    },
  };
}

/** Whether `variant`'s deals score penalty points (its rules list the cards' values; a
 * variant that pays the winner lists none). @param {string} variant */
async function penaltyPoints(variant) {
  rulesets ??= call("GET", "/v1/rulesets").then((r) => r.variants, () => null);
  const rules = (await rulesets)?.find((/** @type {any} */ v) => v.variant === variant);
  return Boolean(rules && Object.keys(rules.card_values).length);
}
/** The rulesets, asked once. @type {Promise<any[] | null> | null} */
let rulesets = null;
