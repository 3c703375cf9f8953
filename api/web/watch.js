// @ts-check
// A studio's view: its games listed with a server key, any of them watched as a spectator.
// The key and the spectator tokens live in this module's memory only: a reload forgets them.

import { call } from "./api.js";
import { h, mainArea } from "./dom.js";
import { openGame } from "./table.js";
import { variantName } from "./cards.js";

/** @type {string | null} */
let key = null;
/** Spectator tokens by game id. @type {Map<string, string>} */
const spectators = new Map();

/** The server key typed in this page, if any. */
export function serverKey() {
  return key;
}

/** @param {string} value */
export function setServerKey(value) {
  key = value || null;
}

/** A spectator token for a game, asked with the server key once. @param {string} id */
export async function spectatorToken(id) {
  const known = spectators.get(id);
  if (known) return known;
  if (!key) return null;
  const { token } = await call("POST", `/v1/games/${id}/spectators`, { key });
  spectators.set(id, token);
  return token;
}

/** The studio's games. */
export async function openWatch() {
  const main = mainArea();
  const input = h("input", { id: "watch-key", type: "password", autocomplete: "off", value: key || "" });
  const status = h("select", { id: "watch-status", "aria-label": "Status" },
    ...["", "waiting", "playing", "suspended", "finished", "void"].map((s) => h("option", { value: s }, s || "any status")));
  const problem = h("p", { class: "problem", role: "alert" });
  const list = h("div", { id: "games" });
  const more = h("button", { type: "button", id: "more", hidden: true }, "More");
  /** The next page's cursor, and the listing it was given for: the server reads a cursor only
   * on that listing (the key's tenant's, with its filter).
   * @type {{ cursor: string, listing: string } | null} */
  let next = null;

  async function load(/** @type {boolean} */ again) {
    problem.textContent = "";
    const q = new URLSearchParams({ limit: "50" });
    const s = /** @type {HTMLSelectElement} */ (status).value;
    if (s) q.set("status", s);
    const listing = JSON.stringify([key, s]);
    if (again && next?.listing !== listing) again = false;
    if (again && next) q.set("cursor", next.cursor);
    try {
      const page = await call("GET", `/v1/games?${q}`, { key: key || undefined });
      if (!again) list.replaceChildren(table());
      const body = /** @type {HTMLElement} */ (list.querySelector("tbody"));
      for (const g of page.games) body.append(row(g));
      if (!page.games.length && !again) body.append(h("tr", {}, h("td", { colspan: 5 }, "No games.")));
      next = page.next_cursor ? { cursor: page.next_cursor, listing } : null;
      more.hidden = !next;
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
  }

  const form = h("form", { class: "lobby", "aria-labelledby": "watch-title" },
    h("h1", { id: "watch-title" }, "Watch a studio's games"),
    h("div", { class: "field" }, h("label", { for: "watch-key" }, "Server key (X-Api-Key), kept in this page's memory only"), input),
    h("div", { class: "row" }, status, h("button", { type: "submit", class: "primary", id: "list" }, "List games")),
    problem);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setServerKey(/** @type {HTMLInputElement} */ (input).value.trim());
    load(false);
  });
  more.addEventListener("click", () => load(true));
  // Another filter is another listing: its "More" would be the old one's.
  status.addEventListener("change", () => {
    next = null;
    more.hidden = true;
  });
  main.append(form, list, more);
  if (key) load(false);
}

function table() {
  return h("table", { class: "games" }, h("thead", {}, h("tr", {},
    ...["created", "variant", "status", "seats", ""].map((t) => h("th", { scope: "col" }, t)))), h("tbody"));
}

/** @param {any} g */
function row(g) {
  const seats = g.seats.map((/** @type {any} */ s) => `${s.name || "open"}${s.kind === "bot" ? ` (${s.level || "normal"} bot)` : ""}`).join(", ");
  const turn = g.turn ? `, seat ${g.turn.seat + 1} to ${g.turn.phase}` : "";
  return h("tr", {},
    h("td", {}, new Date(g.created_at).toLocaleString()),
    h("td", {}, variantName(g.variant)),
    h("td", {}, g.status + turn),
    h("td", {}, seats),
    h("td", {}, h("a", { href: `#/watch/${g.id}`, class: "button", "data-game": g.id }, "Watch"),
      ...(g.status === "finished" ? [" ", h("a", { href: `#/replay/${g.id}`, class: "button" }, "Replay")] : [])));
}

/** Watches a game as a spectator. @param {string} id */
export async function openSpectator(id) {
  const token = await spectatorToken(id);
  if (!token) {
    location.hash = "#/watch";
    return { close() {} };
  }
  return openGame(id, token, true);
}
