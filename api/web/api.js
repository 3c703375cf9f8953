// @ts-check
// The page's only way out: the service's public API, on the origin that served the page.

/** A refusal of the service: its problem document, whose `detail` a person can read. */
export class Refused extends Error {
  /** @param {number} status @param {any} problem */
  constructor(status, problem) {
    super(problem?.detail || `the service answered ${status}`);
    this.status = status;
    this.code = problem?.code || "";
    this.problem = problem;
  }
}

/** An idempotency key. `crypto.randomUUID` exists only on https or localhost; a phone on the
 * local network reaches the page over plain http, where `getRandomValues` still works. */
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Calls the API. `token` is a seat or spectator token, `key` a server key.
 * @param {string} method @param {string} path
 * @param {{token?: string, key?: string, body?: any, ifMatch?: number, idempotent?: boolean}} [how]
 */
export async function call(method, path, how = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  if (how.token) headers.authorization = `Bearer ${how.token}`;
  if (how.key) headers["x-api-key"] = how.key;
  if (how.ifMatch !== undefined) headers["if-match"] = `"${how.ifMatch}"`;
  // A retried click (a lost answer) then never acts twice.
  if (how.idempotent) headers["idempotency-key"] = newKey();
  let body;
  if (how.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(how.body);
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body, cache: "no-store" });
  } catch {
    throw new Refused(0, { detail: "the service cannot be reached: check the connection and try again" });
  }
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) throw new Refused(res.status, json);
  return json;
}

/**
 * Follows a game's live stream. EventSource cannot send the bearer token the stream asks for,
 * so this reads the server-sent events from `fetch` and resumes with `Last-Event-ID` after
 * any break, until the game is over or `close` is called.
 * @param {string} gameId @param {string} token @param {number} after
 * @param {(message: {id: number, event: string, data: any}) => void} onMessage
 * @param {(state: "live" | "reconnecting" | "ended") => void} onState
 */
export function follow(gameId, token, after, onMessage, onState) {
  let last = after;
  let closed = false;
  // A stream that cannot go on says so with an `error` event; one that just ends is a game over.
  let broken = false;
  const abort = new AbortController();
  let wait = 500;

  async function once() {
    const res = await fetch(`/v1/games/${gameId}/stream`, {
      headers: { authorization: `Bearer ${token}`, "last-event-id": String(last), accept: "text/event-stream" },
      signal: abort.signal,
      cache: "no-store",
    });
    if (!res.ok || !res.body) {
      const problem = await res.json().catch(() => null);
      const retry = Number(res.headers.get("retry-after"));
      if (retry > 0) wait = retry * 1000;
      throw new Refused(res.status, problem);
    }
    onState("live");
    wait = 500;
    broken = false;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        dispatch(block);
      }
    }
  }

  /** One SSE message: `id`, `event`, `data` and `retry` lines; comments (heartbeats) skipped. */
  function dispatch(block) {
    let id = null;
    let event = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "retry" && Number(value) > 0) wait = Number(value);
    }
    if (id !== null && /^\d+$/.test(id)) last = Number(id);
    if (!data.length) return;
    let parsed = null;
    try {
      parsed = JSON.parse(data.join("\n"));
    } catch {
      parsed = data.join("\n");
    }
    if (event === "error") {
      broken = true;
      return;
    }
    onMessage({ id: last, event, data: parsed });
  }

  (async () => {
    while (!closed) {
      try {
        await once();
        if (!broken) {
          onState("ended");
          return;
        }
      } catch (e) {
        if (closed) return;
        // A token refused for good (replaced, another game) will not heal by retrying.
        if (e instanceof Refused && [401, 403, 404].includes(e.status)) {
          onState("ended");
          return;
        }
      }
      if (closed) return;
      onState("reconnecting");
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 10_000);
    }
  })();

  return {
    close() {
      closed = true;
      abort.abort();
    },
  };
}

/** Every item of a game's paged log (`events` or the replay's `steps`), oldest first.
 * @param {string} gameId @param {string} token @param {"events" | "replay"} log */
async function allPages(gameId, token, log) {
  const field = log === "replay" ? "steps" : "events";
  const out = [];
  for (let after = 0; ;) {
    const page = await call("GET", `/v1/games/${gameId}/${log}?after=${after}`, { token });
    out.push(...page[field]);
    if (!page[field].length || page.last_seq === after) return out;
    after = page.last_seq;
  }
}

/** Every event of a game. @param {string} gameId @param {string} token */
export const allEvents = (gameId, token) => allPages(gameId, token, "events");

/** Every step of a game's replay. @param {string} gameId @param {string} token */
export const allSteps = (gameId, token) => allPages(gameId, token, "replay");
