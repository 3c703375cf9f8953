// @ts-check
// Where a player stands. On an open server no one is rated (ratings are a studio's, by its
// server key), so the page keeps its own board: the games finished in this browser, who
// played them and where each finished. A studio lets its players read its own board with a
// board token (`POST /v1/leaderboards/{variant}/tokens`), which opens here as `#/board/{token}`.

import { call } from "./api.js";
import { h, mainArea } from "./dom.js";
import { variantName } from "./cards.js";

const thousands = new Intl.NumberFormat("en-US");
const RESULTS_KEY = "continental.results";
/** How many finished games the page keeps. */
const KEPT = 200;

/** @typedef {{id: string, variant: string, players: {name: string, you: boolean, place: number}[]}} Result */

/** The games finished in this browser, newest last. @returns {Result[]} */
function results() {
  try {
    const kept = JSON.parse(localStorage.getItem(RESULTS_KEY) || "[]");
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

/**
 * Keeps a finished game's standings, once: each player by the name the table shows (a bot by
 * its level, so that the same bots meet again on the board), the person as "You".
 * @param {any} view
 */
export function keepResult(view) {
  if (view.status !== "finished" || !view.standings?.length || !view.you) return;
  const all = results();
  if (all.some((r) => r.id === view.id)) return;
  const players = view.standings.map((/** @type {any} */ s) => {
    const p = view.players[s.seat];
    const you = s.seat === view.you.seat;
    const name = you ? "You" : p.kind === "bot" ? `${p.level || "normal"} bot` : p.name || `seat ${s.seat + 1}`;
    return { name, you, place: s.place };
  });
  all.push({ id: view.id, variant: view.variant, players });
  localStorage.setItem(RESULTS_KEY, JSON.stringify(all.slice(-KEPT)));
}

/**
 * The page's own board of a variant: everyone met in the games finished here, by games won,
 * then by their average place.
 * @param {string} variant
 */
export function ownBoard(variant) {
  /** @type {Map<string, {name: string, you: boolean, games: number, won: number, places: number}>} */
  const rows = new Map();
  const games = results().filter((r) => r.variant === variant);
  for (const game of games) {
    for (const p of game.players) {
      const row = rows.get(p.name) || { name: p.name, you: p.you, games: 0, won: 0, places: 0 };
      row.games++;
      row.places += p.place;
      if (p.place === 1) row.won++;
      rows.set(p.name, row);
    }
  }
  const ranked = [...rows.values()].sort((a, b) => b.won - a.won || a.places / a.games - b.places / b.games || a.name.localeCompare(b.name));
  const body = h("tbody", {}, ...ranked.map((r, i) => h("tr", { class: r.you ? "me" : "" },
    h("td", {}, String(i + 1)), h("td", {}, r.name), h("td", {}, String(r.games)), h("td", {}, String(r.won)),
    h("td", {}, (r.places / r.games).toFixed(1)))));
  if (!ranked.length) body.append(h("tr", {}, h("td", { colspan: 5 }, `No ${variantName(variant)} game finished in this browser yet.`)));
  return h("section", { class: "own-board", id: "own-board", "aria-labelledby": "own-board-title" },
    h("h2", { id: "own-board-title" }, "Your games in this browser"),
    h("p", { class: "hint" }, `This server rates no one: here is everyone you played ${variantName(variant)} with in this browser, `
      + `over ${games.length} finished ${games.length === 1 ? "game" : "games"}. A studio's board needs its server key, or a link from the studio.`),
    h("table", { class: "games board" },
      h("caption", {}, `${variantName(variant)}: by games won, then by average place`),
      h("thead", {}, h("tr", {}, ...["rank", "player", "games", "won", "average place"].map((t) => h("th", { scope: "col" }, t)))),
      body));
}

/** The variant a board token reads: it says so in its claims, which are not secret.
 * @param {string} token */
function tokenVariant(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return String(JSON.parse(atob(part)).variant || "");
  } catch {
    return "";
  }
}

/** A studio's board, read with the board token it gave its players (kept in the address's
 * fragment only, which no request carries). @param {string} token */
export async function openBoardByToken(token) {
  const main = mainArea();
  const variant = tokenVariant(token);
  const problem = h("p", { class: "problem", role: "alert" });
  const list = h("div", { id: "board" });
  const more = h("button", { type: "button", id: "board-more", hidden: true }, "More");
  /** @type {string | null} */
  let cursor = null;
  async function load() {
    problem.textContent = "";
    const q = new URLSearchParams({ limit: "50" });
    if (cursor) q.set("cursor", cursor);
    try {
      const page = await call("GET", `/v1/leaderboards/${variant}?${q}`, { token });
      if (!cursor) list.replaceChildren(h("table", { class: "games board" },
        h("caption", {}, `${variantName(variant)}: ordered by the conservative rating (rating less three deviations)`),
        h("thead", {}, h("tr", {}, ...["rank", "player", "rating", "games"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody")));
      const body = /** @type {HTMLElement} */ (list.querySelector("tbody"));
      for (const e of page.entries) {
        body.append(h("tr", {}, h("td", {}, String(e.rank)), h("td", { "data-player": e.player }, e.player),
          h("td", {}, thousands.format(e.rating.display)), h("td", {}, String(e.games))));
      }
      if (!page.entries.length && !cursor) body.append(h("tr", {}, h("td", { colspan: 4 }, "Nobody is rated in this game yet.")));
      cursor = page.next_cursor;
      /** @type {HTMLButtonElement} */ (more).hidden = !cursor;
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
  }
  more.addEventListener("click", load);
  main.append(h("h1", { id: "board-title" }, `Leaderboard: ${variantName(variant || "may_i")}`), problem, list, more);
  await load();
  return { close() {} };
}
